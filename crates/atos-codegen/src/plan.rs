//! A program's plan: which queue (or idle sweep) feeds each task, checked against the state.
//! Both executors run from the same plan, so a program the GPU would run differently from the
//! CPU (a queue pushed to that nobody pops, two tasks on one queue) is refused before either.

use crate::error::CodegenError;
use crate::ir::*;

/// Where one task's items come from, resolved against the state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// `field` indexes `StateDesc::fields`; `queue` counts only the queue fields.
    Queue { field: usize, queue: usize },
    /// The idle hook, over `0..n` of the field at `range_field`.
    Idle { range_field: usize },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlannedTask {
    pub name: String,
    pub source: Source,
    /// `#[atos::task(inline)]`, checked: a plain queue's task that pushes to no inline task's
    /// queue (see [`Plan::inline_task_of`]).
    pub inline: bool,
}

/// A priority queue field's three rings (queue indices) and key type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PriorityPlan {
    /// Index into `StateDesc::fields`.
    pub field: usize,
    /// The ring of items below the threshold: the one its task pops.
    pub near: usize,
    /// The ring of keyed items at or above the band's end, moved near or next by passes.
    pub far: usize,
    /// Persistent runs: the ring of the next band's items (at or above the threshold, below
    /// the band's end), opened by the next advance and run by the same task as the near ring.
    pub next: usize,
    pub key: Scalar,
}

/// Which way a filtered field moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Only `lower` and `fetch_min` write it.
    Down,
    /// Only `raise` and `fetch_max` write it.
    Up,
}

/// An `Atomics` field that moves only one way and is asked with `lower` (or `raise`): spread
/// over several GPUs, each device keeps a filter copy of it (docs/runtime.md, "Filter copies").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FilterPlan {
    /// Index into `StateDesc::fields`.
    pub field: usize,
    pub name: String,
    pub direction: Direction,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// In program order.
    pub tasks: Vec<PlannedTask>,
    /// Names of the run's queues, in queue index order: the state's queue fields in declaration
    /// order, a priority queue as three: its near ring (named after the field), its far ring
    /// (`<field>.far`) and its next ring (`<field>.next`).
    pub queues: Vec<String>,
    /// The priority queues, in declaration order.
    pub priority: Vec<PriorityPlan>,
    /// The fields with filter copies on several GPUs, in declaration order.
    pub filters: Vec<FilterPlan>,
    /// The fields the program `accumulate`s into, in declaration order: spread over several
    /// GPUs, each device keeps a combine copy of each (docs/runtime.md, "Combined adds").
    pub combines: Vec<String>,
    /// The inline tasks whose pushes to another device are offers, filtered by a filter copy
    /// (docs/runtime.md, "Offers"), in program order.
    pub offers: Vec<OfferPlan>,
}

/// An inline task whose whole body is `if s.f.lower(i, v) { .. }` (or `raise`), its item the
/// tuple `(i, v, ..)`, on a field `f` with a filter copy that nothing else asks with `lower`
/// (`raise`). Spread over several GPUs the task always runs on the device owning `i` (items go
/// to the owner of their first part), so a push of `(i, v)` to another device is an *offer* of
/// `v` to element `i`: the pushing device sends it only if its copy of `f[i]` is above `v`
/// (below, for `raise`), and then lowers the copy to `v`. An offer it drops would have found
/// the element already at `v` or past it once the earlier offer that set the copy was applied:
/// one of the runs the program could have had (docs/runtime.md, "Offers", gives the argument).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OfferPlan {
    /// The inline task's queue field.
    pub queue: String,
    /// The guarded field: its index in `StateDesc::fields`, and its name.
    pub field: usize,
    pub name: String,
    pub direction: Direction,
}

/// The name of a priority queue's far ring.
pub fn far_name(field: &str) -> String {
    format!("{field}.far")
}

/// The name of a priority queue's next ring.
pub fn next_name(field: &str) -> String {
    format!("{field}.next")
}

impl Plan {
    /// Index of the task consuming queue `queue`, if any.
    pub fn consumer(&self, queue: usize) -> Option<usize> {
        self.tasks
            .iter()
            .position(|t| matches!(t.source, Source::Queue { queue: q, .. } if q == queue))
    }

    /// Index of the idle hook, if the program has one.
    pub fn idle(&self) -> Option<usize> {
        self.tasks
            .iter()
            .position(|t| matches!(t.source, Source::Idle { .. }))
    }

    /// The priority queue whose far ring is queue `queue`, if it is one.
    pub fn far_of(&self, queue: usize) -> Option<&PriorityPlan> {
        self.priority.iter().find(|p| p.far == queue)
    }

    /// The priority queue whose next ring is queue `queue`, if it is one.
    pub fn next_of(&self, queue: usize) -> Option<&PriorityPlan> {
        self.priority.iter().find(|p| p.next == queue)
    }

    /// The inline task popping the queue field named `field`, if that queue has one: a push
    /// to it may run that task at once instead of queueing the item.
    pub fn inline_task_of(&self, field: &str) -> Option<usize> {
        self.tasks.iter().position(|t| {
            t.inline
                && matches!(t.source, Source::Queue { queue, .. } if self.queues[queue] == field)
        })
    }

    /// Queue index of the queue task `task` pops, `None` for the idle hook.
    pub fn queue_of(&self, task: usize) -> Option<usize> {
        match self.tasks[task].source {
            Source::Queue { queue, .. } => Some(queue),
            Source::Idle { .. } => None,
        }
    }
}

/// The `Atomics` fields that `bodies` ask with `lower` (or `raise`) and write with no other
/// operation than that one and `fetch_min` (or `raise` and `fetch_max`): each stays on one side
/// of any copy taken from it, which is what makes a filter copy exact.
pub fn filters(bodies: &[&FnIr], state: &StateDesc) -> Vec<FilterPlan> {
    let mut ops: Vec<(String, String)> = Vec::new();
    for f in bodies {
        visit_exprs(&f.body, &mut |e| {
            if let ExprKind::Atomic { field, op, .. } = &e.kind {
                ops.push((field.clone(), op.clone()));
            }
        });
    }
    let mut out = Vec::new();
    for (i, f) in state.fields.iter().enumerate() {
        if f.kind != FieldKind::Atomics {
            continue;
        }
        let used: Vec<&str> = ops
            .iter()
            .filter(|(n, _)| *n == f.name)
            .map(|(_, o)| o.as_str())
            .collect();
        let only = |allowed: &[&str]| used.iter().all(|o| *o == "load" || allowed.contains(o));
        let direction = if used.contains(&"lower") && only(&["lower", "fetch_min"]) {
            Direction::Down
        } else if used.contains(&"raise") && only(&["raise", "fetch_max"]) {
            Direction::Up
        } else {
            continue;
        };
        out.push(FilterPlan {
            field: i,
            name: f.name.clone(),
            direction,
        });
    }
    out
}

/// The inline tasks of `tasks` whose pushes are offers ([`OfferPlan`]): `planned` their plan,
/// `filters` the fields with filter copies, `bodies` every task and device function.
pub fn offers(
    tasks: &[&FnIr],
    planned: &[PlannedTask],
    filters: &[FilterPlan],
    bodies: &[&FnIr],
    state: &StateDesc,
) -> Vec<OfferPlan> {
    // The field of every `lower` / `raise`, anywhere.
    let mut asked: Vec<String> = Vec::new();
    for f in bodies {
        visit_exprs(&f.body, &mut |e| {
            if let ExprKind::Atomic { field, op, .. } = &e.kind
                && (op == "lower" || op == "raise")
            {
                asked.push(field.clone());
            }
        });
    }
    let mut out: Vec<OfferPlan> = Vec::new();
    for (task, planned) in tasks.iter().zip(planned) {
        let Role::Task(attrs) = &task.role else {
            continue;
        };
        let Source::Queue { field: queue, .. } = planned.source else {
            continue;
        };
        if !planned.inline || !attrs.tuple_item || task.params.len() < 2 {
            continue;
        }
        let [stmt] = task.body.as_slice() else {
            continue;
        };
        let StmtKind::If {
            cond, els: None, ..
        } = &stmt.kind
        else {
            continue;
        };
        let ExprKind::Atomic { field, op, args } = &cond.kind else {
            continue;
        };
        let var = |e: &Expr, p: &Param| matches!(&e.kind, ExprKind::Var(n) if *n == p.name);
        let direction = match op.as_str() {
            "lower" => Direction::Down,
            "raise" => Direction::Up,
            _ => continue,
        };
        let Some(filter) = filters
            .iter()
            .find(|f| f.name == *field && f.direction == direction)
        else {
            continue;
        };
        let value = &task.params[1];
        if args.len() != 2
            || !var(&args[0], &task.params[0])
            || !var(&args[1], value)
            || state.fields[filter.field].elem.scalar() != Some(value.ty)
        {
            continue;
        }
        out.push(OfferPlan {
            queue: state.fields[queue].name.clone(),
            field: filter.field,
            name: field.clone(),
            direction,
        });
    }
    // A field some other `lower` / `raise` asks keeps the copy's invariant (never past the
    // element) for that one: no offers on it. Each guard is one of the asks, so a field's asks
    // outnumber its guards exactly when another exists.
    let count = |plans: &[OfferPlan], name: &str| plans.iter().filter(|p| p.name == name).count();
    let keep: Vec<bool> = out
        .iter()
        .map(|o| asked.iter().filter(|f| **f == o.name).count() == count(&out, &o.name))
        .collect();
    out.into_iter()
        .zip(keep)
        .filter_map(|(o, keep)| keep.then_some(o))
        .collect()
}

/// The `Atomics` fields `bodies` call `accumulate` on, in declaration order.
pub fn combines(bodies: &[&FnIr], state: &StateDesc) -> Vec<String> {
    let mut asked: Vec<String> = Vec::new();
    for f in bodies {
        visit_exprs(&f.body, &mut |e| {
            if let ExprKind::Atomic { field, op, .. } = &e.kind
                && op == "accumulate"
            {
                asked.push(field.clone());
            }
        });
    }
    state
        .fields
        .iter()
        .filter(|f| f.kind == FieldKind::Atomics && asked.contains(&f.name))
        .map(|f| f.name.clone())
        .collect()
}

/// A queue field's rings: its index in `StateDesc::fields`, the queue index of its ring (a
/// priority queue's near ring) and of a priority queue's far and next rings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueueRings {
    pub field: usize,
    pub near: usize,
    /// A priority queue's `(far, next)` rings: `near + 1` and `near + 2`.
    pub far_next: Option<(usize, usize)>,
}

impl QueueRings {
    /// One past the field's last ring.
    pub fn end(&self) -> usize {
        self.far_next.map_or(self.near, |(_, next)| next) + 1
    }
}

/// The state's queue fields in declaration order with their queue indices: the one numbering
/// of the rings that the plan, the generated kernel and both executors share.
pub fn queue_rings(state: &StateDesc) -> Vec<QueueRings> {
    let mut next = 0;
    let mut out = Vec::new();
    for (field, f) in state.fields.iter().enumerate() {
        if !f.kind.is_queue() {
            continue;
        }
        let r = QueueRings {
            field,
            near: next,
            far_next: f.kind.key().map(|_| (next + 1, next + 2)),
        };
        next = r.end();
        out.push(r);
    }
    out
}

/// Resolves and checks the program `tasks` over `state`; `device_fns` are the device
/// functions they call (their pushes count as the caller's).
pub fn plan_program(
    tasks: &[&FnIr],
    device_fns: &[&FnIr],
    state: &StateDesc,
) -> Result<Plan, CodegenError> {
    if tasks.is_empty() {
        return Err(CodegenError::Program(
            "a program needs at least one task".into(),
        ));
    }
    // Runtime queue indices: a priority queue takes three (near, far, next).
    let mut runtime = Vec::new();
    let mut priority = Vec::new();
    let mut queues: Vec<(usize, usize, &FieldDesc)> = Vec::new();
    for r in queue_rings(state) {
        let f = &state.fields[r.field];
        queues.push((r.near, r.field, f));
        runtime.push(f.name.clone());
        if let (Some((far, next)), Some(key)) = (r.far_next, f.kind.key()) {
            priority.push(PriorityPlan {
                field: r.field,
                near: r.near,
                far,
                next,
                key,
            });
            runtime.push(far_name(&f.name));
            runtime.push(next_name(&f.name));
        }
    }
    if queues.is_empty() {
        return Err(CodegenError::NoQueue {
            state: state.name.clone(),
        });
    }
    let mut planned = Vec::new();
    for (i, task) in tasks.iter().enumerate() {
        let attrs = task.task_attrs().ok_or_else(|| {
            CodegenError::Spec(format!("`{}` is a device function, not a task", task.name))
        })?;
        if attrs.state_type != state.name {
            return Err(CodegenError::StateMismatch {
                task: task.name.clone(),
                expected: attrs.state_type.clone(),
                found: state.name.clone(),
            });
        }
        if tasks[..i].iter().any(|t| t.name == task.name) {
            return Err(CodegenError::Program(format!(
                "task `{}` is listed twice in the program",
                task.name
            )));
        }
        let item = task.item_ty();
        let source = match &attrs.source {
            ItemSource::Queue(named) => {
                let (queue, (field, desc)) = match named {
                    Some(name) => queues
                        .iter()
                        .find(|(_, _, f)| &f.name == name)
                        .map(|(q, i, f)| (*q, (*i, *f)))
                        .ok_or_else(|| {
                            CodegenError::Program(format!(
                                "task `{}` pops queue `{name}`, but state `{}` has no Queue field of that name (queues: {})",
                                task.name,
                                state.name,
                                names(&queues)
                            ))
                        })?,
                    None if queues.len() == 1 => (0, (queues[0].1, queues[0].2)),
                    None => {
                        return Err(CodegenError::Program(format!(
                            "state `{}` has several queues ({}): say which one task `{}` pops with #[atos::task(queue = \"...\")]",
                            state.name,
                            names(&queues),
                            task.name
                        )));
                    }
                };
                if item != desc.elem {
                    return Err(CodegenError::ItemMismatch {
                        task: task.name.clone(),
                        item: item.rust_name(),
                        queue: desc.name.clone(),
                        elem: desc.elem.rust_name(),
                    });
                }
                Source::Queue { field, queue }
            }
            ItemSource::Idle { range } => {
                let (field, f) = state
                    .fields
                    .iter()
                    .enumerate()
                    .find(|(_, f)| &f.name == range)
                    .ok_or_else(|| {
                        CodegenError::Program(format!(
                            "idle hook `{}` sweeps `{range}`, but state `{}` has no field of that name",
                            task.name, state.name
                        ))
                    })?;
                let fits = match f.kind {
                    FieldKind::Scalar => matches!(f.elem.scalar(), Some(Scalar::U32 | Scalar::U64)),
                    FieldKind::Slice | FieldKind::Atomics => true,
                    FieldKind::Queue | FieldKind::PriorityQueue(_) => false,
                };
                if !fits {
                    return Err(CodegenError::Program(format!(
                        "idle hook `{}` sweeps `{range}`: the range must be a u32/u64 scalar field (0..value) or a Slice/Atomics field (0..len)",
                        task.name
                    )));
                }
                Source::Idle { range_field: field }
            }
        };
        if attrs.inline {
            match &source {
                Source::Queue { field, .. } if state.fields[*field].kind.key().is_some() => {
                    return Err(CodegenError::Program(format!(
                        "task `{}` is `inline`, but its queue `{}` is a priority queue: running an item at its push would skip the threshold; drop `inline` or give the task a plain queue",
                        task.name, state.fields[*field].name
                    )));
                }
                Source::Queue { .. } => {}
                Source::Idle { .. } => {
                    return Err(CodegenError::Program(format!(
                        "idle hook `{}` cannot be `inline`: only a queue's task runs at a push",
                        task.name
                    )));
                }
            }
        }
        planned.push(PlannedTask {
            name: task.name.clone(),
            source,
            inline: attrs.inline,
        });
    }
    let bodies: Vec<&FnIr> = tasks.iter().chain(device_fns).copied().collect();
    let filters = filters(&bodies, state);
    let plan = Plan {
        queues: runtime,
        priority,
        combines: combines(&bodies, state),
        offers: offers(tasks, &planned, &filters, &bodies, state),
        filters,
        tasks: planned,
    };
    let hooks: Vec<&str> = plan
        .tasks
        .iter()
        .filter(|t| matches!(t.source, Source::Idle { .. }))
        .map(|t| t.name.as_str())
        .collect();
    if hooks.len() > 1 {
        return Err(CodegenError::Program(format!(
            "a program has at most one idle hook; this one has {}",
            hooks.join(", ")
        )));
    }
    if let Some(hook) = plan.idle()
        && let Some(q) = tasks[hook]
            .pushed_queues(device_fns)
            .into_iter()
            .find(|q| plan.inline_task_of(q).is_some())
    {
        return Err(CodegenError::Program(format!(
            "idle hook `{}` pushes to queue `{q}`, whose task is inline: a sweep proves the run finished by seeing no push during it, and an inline run is no push in a queue; drop `inline` or push from a task",
            tasks[hook].name
        )));
    }
    // A sweep that delivers combined adds cannot prove the end (docs/runtime.md, "Combined
    // adds"): a hook that accumulated into another device's element on every sweep would make
    // every next sweep deliver, and the run would never end where its plain adds let it.
    if let Some(hook) = plan.idle() {
        let (called, _) = reachable_device_fns(&[tasks[hook]], device_fns);
        for f in std::iter::once(tasks[hook]).chain(called) {
            if let Some(field) = combines(&[f], state).into_iter().next() {
                let via = if f.name == tasks[hook].name {
                    String::new()
                } else {
                    format!(" (in `{}`, which it calls)", f.name)
                };
                return Err(CodegenError::Program(format!(
                    "idle hook `{}` calls `accumulate` on `{field}`{via}: spread over several devices a sweep that delivers combined adds cannot end the run, so a hook's adds would keep it going; write `s.{field}.fetch_add(i, v);` in the hook (its result dropped, it is the same add on one device) and keep `accumulate` for tasks",
                    tasks[hook].name
                )));
            }
        }
    }
    for (task, planned) in tasks.iter().zip(&plan.tasks) {
        if !planned.inline {
            continue;
        }
        if let Some(q) = task
            .pushed_queues(device_fns)
            .into_iter()
            .find(|q| plan.inline_task_of(q).is_some())
        {
            return Err(CodegenError::Program(format!(
                "inline task `{}` pushes to queue `{q}`, whose task is inline too: an inline task runs inside the push that made its item, so its own pushes must be queued (drop `inline` from one of them)",
                task.name
            )));
        }
    }
    for (q, name) in plan.queues.iter().enumerate() {
        if plan.far_of(q).is_some() {
            continue; // served by the threshold passes, not by a task
        }
        let consumers: Vec<&str> = plan
            .tasks
            .iter()
            .filter(|t| matches!(t.source, Source::Queue { queue, .. } if queue == q))
            .map(|t| t.name.as_str())
            .collect();
        if consumers.len() > 1 {
            return Err(CodegenError::Program(format!(
                "queue `{name}` is popped by {}: one task per queue (give each task its own queue)",
                consumers.join(" and ")
            )));
        }
        if consumers.is_empty()
            && let Some(pusher) = tasks
                .iter()
                .find(|t| t.pushed_queues(device_fns).contains(name))
        {
            return Err(CodegenError::Program(format!(
                "task `{}` pushes to queue `{name}`, but no task of this program pops it, so those items would never run: add the task that pops `{name}` to the program",
                pusher.name
            )));
        }
    }
    Ok(plan)
}

fn names(queues: &[(usize, usize, &FieldDesc)]) -> String {
    queues
        .iter()
        .map(|(_, _, f)| format!("`{}`", f.name))
        .collect::<Vec<_>>()
        .join(", ")
}
