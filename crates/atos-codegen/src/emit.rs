//! Typed IR -> readable CUDA C++.
//!
//! Rust semantics are kept explicit: signed arithmetic wraps through `atos::wadd`/`wsub`/...,
//! integer division faults on zero, shifts mask their amount, and float->int casts saturate,
//! so no C++ promotion or undefined behaviour changes what a task computes. Indices past the
//! length fault in every build; in checked mode (`KernelSpec::checked`, as a debug build)
//! overflow faults too (`faults.rs`).

use std::fmt::Write;

use crate::faults::Fault;
use crate::ir::*;
use crate::names::sanitize;
use crate::typeck::Typed;
use crate::unit::TrailingFence;

/// Name of the push channels parameter of a generated task function.
pub(crate) const OUT: &str = "atos_out";

/// Suffixes of the two variants of a device function that takes the state: called from uniform
/// code (side effects on the leader, results broadcast) or from a lane / the leader (direct).
pub(crate) const STATE_FN_UNIFORM: &str = "__uniform";
pub(crate) const STATE_FN_DIRECT: &str = "__direct";

/// The inline tasks of a unit (`#[atos::task(inline)]`, persistent kernels): a push to one of
/// their queues runs the task in the pushing thread when this device owns the item, at once or,
/// held ([`InlineCalls::held`]), once the fence before the push is made.
#[derive(Clone, Debug, Default)]
pub(crate) struct InlineCalls {
    /// (queue field, the C++ function running its task on a `ThreadWorker`).
    pub calls: Vec<(String, String)>,
    /// A unit spread over several devices: only items this device owns run at once; the
    /// others are routed as any push.
    pub spread: bool,
    /// Spread units: the inline tasks whose pushes to another device are offers, sent only
    /// when the pushing device's filter copy lets them through (`Plan::offers`).
    pub offers: Vec<crate::plan::OfferPlan>,
    /// Persistent thread groups on one device: a push to an inline queue that follows a
    /// deferred fence ([`deferred_fence`]) is held, and the task runs when the thread's batch
    /// ends, after the one fence the thread owes (`atos_Out`'s `atos_run_<queue>`, unit.rs
    /// `emit_held_runs`), instead of the push fencing and running it at once.
    pub held: bool,
}

impl InlineCalls {
    /// The function running the inline task of queue `field`, if it has one.
    pub fn callee(&self, field: &str) -> Option<&str> {
        self.calls
            .iter()
            .find(|(f, _)| f == field)
            .map(|(_, c)| c.as_str())
    }

    /// The function running task `i` of the program at its pushes, if it is inline here.
    pub fn callee_of_task(&self, plan: &crate::plan::Plan, i: usize) -> Option<&str> {
        match plan.tasks[i].source {
            crate::plan::Source::Queue { queue, .. } if plan.tasks[i].inline => {
                self.callee(&plan.queues[queue])
            }
            _ => None,
        }
    }

    /// The per-thread counter in `atos_Out` of the items of `field` run at once.
    pub fn counter(field: &str) -> String {
        format!("atos_inlined_{}", sanitize(field))
    }

    /// `atos_Out`'s member holding `field`'s items until the batch end (with [`Self::held`]),
    /// and its two functions: hold one, run the held ones.
    pub fn hold_names(field: &str) -> [String; 3] {
        let f = sanitize(field);
        [
            format!("atos_held_{f}"),
            format!("atos_hold_{f}"),
            format!("atos_run_{f}"),
        ]
    }
}

pub(crate) struct Emitter<'a> {
    pub typed: &'a Typed,
    pub state_param: Option<&'a str>,
    out: String,
    indent: usize,
    temps: u32,
    /// Inside a `lanes(..)` loop: side effects are per lane.
    in_lanes: bool,
    /// Inside a leader-only lambda: nested side effects are already on the leader.
    on_leader: bool,
    /// Uniform code has written memory on the leader alone (a `store`, a state function's
    /// effects) since the worker last synchronized: the next `lanes` loop, whose other lanes
    /// may read what it wrote, starts with `worker.sync()`.
    leader_unsynced: bool,
    /// Fault sites (`faults.rs`): this function's number, whether overflow and indices are
    /// checked, and the source line of the statement being emitted.
    fn_index: u32,
    fn_line: u32,
    checked: bool,
    line: u32,
    inline: InlineCalls,
    /// `(field, loop variable)` pairs whose index a `lanes` loop checked once, for all its
    /// iterations (see [`Emitter::hoist_index_checks`]).
    checked_ranges: Vec<(String, String)>,
    /// The task's trailing fence ([`deferred_fence`]), compared by address, and what the unit
    /// does with it (unit.rs `trailing_fence`): settled by the group at the batch end
    /// (`Deferred`; the pushes after it are then `push_fenced`) or dropped (`Elided`).
    trailing_fence: Option<(*const Stmt, TrailingFence)>,
    fence_owed: bool,
    /// Inside a `lanes` loop that only reads ([`reads_only`]): the C++ name of the variable
    /// that keeps the first index fault's site, reported after the loop (`atos::index_quiet`).
    quiet_faults: Option<String>,
}

impl<'a> Emitter<'a> {
    pub fn new(typed: &'a Typed, state_param: Option<&'a str>) -> Self {
        Emitter {
            typed,
            state_param,
            out: String::new(),
            indent: 1,
            temps: 0,
            in_lanes: false,
            on_leader: false,
            leader_unsynced: false,
            fn_index: 0,
            fn_line: 0,
            checked: false,
            line: 0,
            inline: InlineCalls::default(),
            checked_ranges: Vec::new(),
            trailing_fence: None,
            fence_owed: false,
            quiet_faults: None,
        }
    }

    /// `fence` (a statement of the body about to be emitted, from [`deferred_fence`]) is handled
    /// as `how` says: `Deferred`, it marks the fence owed and the pushes after it wait for the
    /// group's one fence; `Elided`, it is not emitted (a bulk-synchronous unit's pushes run in a
    /// later level, a later launch, which sees every store of this one); `InPlace`, it is an
    /// ordinary fence.
    pub fn set_trailing_fence(&mut self, fence: Option<&Stmt>, how: TrailingFence) {
        self.trailing_fence = match how {
            TrailingFence::InPlace => None,
            _ => fence.map(|s| (s as *const Stmt, how)),
        };
    }

    /// Pushes to these queues run their inline task at once (see [`InlineCalls`]).
    pub fn set_inline(&mut self, inline: &InlineCalls) {
        self.inline = inline.clone();
    }

    /// Numbers this function's fault sites and turns overflow and index checks on or off.
    /// `fn_line` is the line of the function's `fn` keyword: sites hold their line as an offset
    /// from it (`faults::site`).
    pub fn set_sites(&mut self, fn_index: u32, fn_line: u32, checked: bool) {
        self.fn_index = fn_index;
        self.fn_line = fn_line;
        self.checked = checked;
    }

    /// The source line the fault sites of scaffolding emitted next name (statements set their
    /// own).
    pub fn set_line(&mut self, line: u32) {
        self.line = line;
    }

    /// The site word of `fault` at the current statement, as a C++ literal.
    fn site(&self, fault: Fault) -> String {
        format!(
            "{}ull",
            crate::faults::site(self.fn_index, self.line.saturating_sub(self.fn_line), fault)
        )
    }

    /// `state.field[index]`, the index checked against the length (in every build, as Rust
    /// checks indices).
    fn element(&mut self, field: &str, index: &Expr) -> String {
        let i = self.checked_index(field, index);
        format!("{}.{}[{i}]", self.state(), sanitize(field))
    }

    /// `index` checked against the field's length (a fault when past it).
    fn checked_index(&mut self, field: &str, index: &Expr) -> String {
        let i = self.expr(index);
        if matches!(index.kind, ExprKind::Var(_))
            && self
                .checked_ranges
                .iter()
                .any(|(f, var)| f == field && *var == i)
        {
            return i;
        }
        let (st, f) = (self.state(), sanitize(field));
        let site = self.site(Fault::IndexOutOfBounds);
        match &self.quiet_faults {
            Some(q) => format!("atos::index_quiet({i}, {st}.{f}_len, {site}, {q})"),
            None => format!("atos::index({i}, {st}.{f}_len, {site})"),
        }
    }

    pub fn finish(self) -> String {
        self.out
    }

    /// Checks a `lanes` loop's leading `let x = s.field[var];` statements once for the whole
    /// range `start..end` instead of once per element. Rust checks every element; the loop
    /// over `start..end` indexes `field` at every `var` in it, so some index is past the length
    /// exactly when `end > start` and `end > len`. Then the check faults with the `let`'s own
    /// site, and `end` is clamped to the length, so the iterations below it run (as Rust's
    /// do before its panic) and no lane reads past the array. The check runs before the first
    /// iteration, so a loop with another fault at a lower index (a division by zero, say)
    /// reports the index fault where Rust reports the other one; the run fails either way
    /// (docs/dsl.md says so). With several lanes, the first fault reported was already a race.
    ///
    /// Only the leading `let`s of the body qualify: they run in every iteration before
    /// anything else can fault, branch or leave the loop, so the check never fires where Rust
    /// would not. `var` is the loop variable's C++ name, unique to its binding (the type
    /// checker renames shadowing bindings), and an index is compared by its C++ name, so a
    /// shadowing `let` in the body is never taken for the loop variable. Returns the loop's
    /// (possibly clamped) end and how many pairs are now checked, to be dropped after the body
    /// ([`Emitter::end_checked_ranges`]).
    pub fn hoist_index_checks(
        &mut self,
        var: &str,
        ty: &str,
        body: &[Stmt],
        start: &str,
        end: &str,
    ) -> (String, usize) {
        let mut end = end.to_string();
        let mut hoisted = 0;
        let saved_line = self.line;
        for st in body {
            let StmtKind::Let { init, .. } = &st.kind else {
                break;
            };
            let ExprKind::Index { field, index } = &init.kind else {
                break;
            };
            if !matches!(index.kind, ExprKind::Var(_)) || self.expr(index) != var {
                break;
            }
            self.line = st.line;
            let site = self.site(Fault::IndexOutOfBounds);
            let clamped = self.temp("end");
            let (sp, f) = (self.state(), sanitize(field));
            self.line(
                &format!(
                    "const {ty} {clamped} = atos::index_range({start}, {end}, {sp}.{f}_len, {site});"
                ),
                0,
            );
            end = clamped;
            self.checked_ranges.push((field.clone(), var.to_string()));
            hoisted += 1;
        }
        self.line = saved_line;
        (end, hoisted)
    }

    /// Drops the last `n` pairs [`Emitter::hoist_index_checks`] added, after the loop's body.
    pub fn end_checked_ranges(&mut self, n: usize) {
        let keep = self.checked_ranges.len() - n;
        self.checked_ranges.truncate(keep);
    }

    /// The uniform variant of a function taking the state: its caller's leader may have
    /// written memory since the worker last synchronized.
    pub fn set_leader_unsynced(&mut self, on: bool) {
        self.leader_unsynced = on;
    }

    /// Emits what follows as per-lane code: each thread runs it for its own item (the
    /// balanced batch's item values and `lanes` body), so side effects need no leader.
    pub fn set_per_lane(&mut self, on: bool) {
        self.in_lanes = on;
    }

    /// A scaffolding line at the current indentation.
    pub fn raw(&mut self, text: &str) {
        self.line(text, 0);
    }

    pub fn indent_by(&mut self, delta: isize) {
        self.indent = self.indent.saturating_add_signed(delta);
    }

    fn line(&mut self, text: &str, src_line: u32) {
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        self.out.push_str(text);
        if src_line > 0 {
            let _ = write!(self.out, "  // line {src_line}");
        }
        self.out.push('\n');
    }

    fn temp(&mut self, base: &str) -> String {
        self.temps += 1;
        format!("atos_{base}{}", self.temps)
    }

    pub fn block(&mut self, stmts: &[Stmt]) {
        for s in stmts {
            self.stmt(s);
        }
    }

    fn nested(&mut self, stmts: &[Stmt]) {
        self.indent += 1;
        self.block(stmts);
        self.indent -= 1;
    }

    fn stmt(&mut self, s: &Stmt) {
        let outer = self.line;
        self.line = s.line;
        self.stmt_at_line(s);
        self.line = outer;
    }

    fn stmt_at_line(&mut self, s: &Stmt) {
        let l = s.line;
        match &s.kind {
            StmtKind::Let { init, .. } => {
                let (name, ty) = self.typed.binding(init);
                let name = name.to_string();
                let value = self.expr(init);
                self.line(&format!("{} {name} = {value};", ty.cuda_name()), l);
            }
            StmtKind::Assign { op, value, .. } => {
                let name = self.typed.target_name(value).to_string();
                let rhs = self.expr(value);
                // The value's type is the target's, except for a shift amount, which
                // `binary` does not consult.
                let text = match op {
                    None => rhs,
                    Some(op) => self.binary(*op, &name, &rhs, self.typed.ty(value)),
                };
                self.line(&format!("{name} = {text};"), l);
            }
            StmtKind::Expr(e) => match &e.kind {
                // An effect that returns nothing (`store`) runs once per worker, on the leader.
                ExprKind::Atomic { field, op, args }
                    if crate::ops::atomic(op)
                        .is_some_and(|d| d.returns == crate::ops::AtomicReturns::Nothing) =>
                {
                    if self.is_uniform_context() {
                        self.leader_unsynced = true;
                    }
                    let text = self.on_leader_if_uniform(|em| em.atomic_call(field, op, args));
                    self.line(&format!("{};", self.leader_stmt(text)), l);
                }
                // A read-modify-write whose previous value the statement drops, run by each
                // lane (or a thread worker): the `red` form, which nothing waits on. In uniform
                // code it keeps the fetch form, whose broadcast also synchronizes the worker.
                ExprKind::Atomic { field, op, args }
                    if !self.is_uniform_context()
                        && crate::ops::atomic(op).is_some_and(|d| d.discarded.is_some()) =>
                {
                    let text = self.atomic_call_as(field, op, args, true);
                    self.line(&format!("{text};"), l);
                }
                _ => {
                    let e = self.expr(e);
                    self.line(&format!("{e};"), l);
                }
            },
            StmtKind::Block(b) => {
                self.line("{", l);
                self.nested(b);
                self.line("}", 0);
            }
            StmtKind::If { cond, then, els } => {
                let c = self.expr(cond);
                self.line(&format!("if ({c}) {{"), l);
                self.nested(then);
                let mut els = els.as_deref();
                while let Some(e) = els {
                    if let [
                        Stmt {
                            kind:
                                StmtKind::If {
                                    cond,
                                    then,
                                    els: next,
                                },
                            line,
                        },
                    ] = e
                    {
                        let outer = std::mem::replace(&mut self.line, *line);
                        let c = self.expr(cond);
                        self.line = outer;
                        self.line(&format!("}} else if ({c}) {{"), *line);
                        self.nested(then);
                        els = next.as_deref();
                    } else {
                        self.line("} else {", 0);
                        self.nested(e);
                        els = None;
                    }
                }
                self.line("}", 0);
            }
            StmtKind::While { cond, body } => {
                let c = self.expr(cond);
                self.line(&format!("while ({c}) {{"), l);
                self.loop_body(body);
                self.line("}", 0);
            }
            StmtKind::Loop { body } => {
                self.line("while (true) {", l);
                self.loop_body(body);
                self.line("}", 0);
            }
            StmtKind::For {
                lo,
                hi,
                lanes,
                body,
                rev,
                step,
                ..
            } => {
                let (var, scalar) = self.typed.binding(lo);
                let (var, ty) = (var.to_string(), scalar.cuda_name());
                let lo_v = self.expr(lo);
                let hi_v = self.expr(hi);
                let start = self.temp("start");
                let end = self.temp("end");
                if *lanes && self.is_uniform_context() && self.leader_unsynced {
                    // The lanes may read what the leader wrote before the loop.
                    self.line("worker.sync();", l);
                    self.leader_unsynced = false;
                }
                // Rust evaluates the bounds once, `lo` first; so does the generated loop.
                self.line("{", l);
                self.indent += 1;
                self.line(&format!("const {ty} {start} = {lo_v};"), 0);
                self.line(&format!("const {ty} {end} = {hi_v};"), 0);
                // Reductions: each lane accumulates its share from the operation's identity;
                // after the loop the shares are combined across the worker and with the value
                // before the loop.
                let reductions: Vec<(String, Scalar, &str)> = if *lanes {
                    crate::ir::reductions(body)
                        .into_iter()
                        .map(|(_, op, value)| {
                            (
                                self.typed.target_name(value).to_string(),
                                self.typed.ty(value),
                                crate::ops::reduction(op).cuda,
                            )
                        })
                        .collect()
                } else {
                    Vec::new()
                };
                let mut saved = Vec::new();
                for (name, ty, functor) in &reductions {
                    let before = self.temp("before");
                    let t = ty.cuda_name();
                    self.line(&format!("const {t} {before} = {name};"), 0);
                    self.line(&format!("{name} = atos::{functor}::identity<{t}>();"), 0);
                    saved.push(before);
                }
                let step_v = step.as_ref().map(|st| self.expr(st));
                let mut first: Option<String> = None;
                let (end, hoisted) = if *lanes {
                    self.hoist_index_checks(&var, ty, body, &start, &end)
                } else {
                    (end, 0)
                };
                // A loop that only reads runs its body 4 times per trip, with branch-free index
                // checks, so each lane has 4 iterations' loads in flight ([`reads_only`]).
                // Unsigned 32- and 64-bit indices only: the trip test subtracts them.
                let quiet = (*lanes
                    && !self.checked
                    && matches!(scalar, Scalar::U32 | Scalar::U64)
                    && reads_only(body))
                .then(|| self.temp("lanes"));
                let header = if let Some(q) = &quiet {
                    self.line(&format!("atos::Site {q}_fault = 0;"), 0);
                    format!("auto {q}_body = [&](const {ty} {var}) {{")
                } else if *lanes && scalar.is_narrow() {
                    // Counted in 32 bits: a narrow index would wrap at the stride (a CTA of 256
                    // threads strides 0 as a u8) and never reach the end.
                    let at = self.temp("at");
                    first = Some(format!("const {ty} {var} = ({ty}){at};"));
                    format!(
                        "for (uint32_t {at} = (uint32_t){start} + worker.rank(); {at} < (uint32_t){end}; {at} += worker.size()) {{"
                    )
                } else if *lanes {
                    format!(
                        "for ({ty} {var} = {start} + ({ty})worker.rank(); {var} < {end}; {var} += ({ty})worker.size()) {{"
                    )
                } else if *rev {
                    // The counter steps down at the top of the body, so `continue` keeps the order.
                    let at = self.temp("at");
                    first = Some(format!("{ty} {var} = --{at};"));
                    format!("for ({ty} {at} = {end}; {at} > {start};) {{")
                } else if let Some(st) = step_v {
                    // Rust panics on a zero step; the next index never overflows the type.
                    let by = self.temp("step");
                    let site = self.site(Fault::StepZero);
                    self.line(
                        &format!("const uint64_t {by} = atos::check_step({st}, {site});"),
                        0,
                    );
                    format!(
                        "for ({ty} {var} = {start}; {var} < {end}; {var} = atos::step_next({var}, {end}, {by})) {{"
                    )
                } else {
                    format!("for ({ty} {var} = {start}; {var} < {end}; ++{var}) {{")
                };
                self.line(&header, 0);
                if let Some(first) = first {
                    self.indent += 1;
                    self.line(&first, 0);
                    self.indent -= 1;
                }
                let was = self.in_lanes;
                self.in_lanes |= *lanes;
                let outer_quiet = std::mem::replace(
                    &mut self.quiet_faults,
                    quiet.as_ref().map(|q| format!("{q}_fault")),
                );
                if *lanes {
                    self.nested(body);
                } else {
                    self.loop_body(body);
                }
                self.quiet_faults = outer_quiet;
                self.in_lanes = was;
                self.end_checked_ranges(hoisted);
                if let Some(q) = &quiet {
                    // Whole trips of 4 strides while they fit below the end, then one at a time.
                    let at = format!("{q}_at");
                    self.line("};", 0);
                    self.line(&format!("{ty} {at} = {start} + ({ty})worker.rank();"), 0);
                    self.line(
                        &format!(
                            "for (const {ty} atos_n = ({ty})worker.size(); {at} < {end} && {end} - {at} > 3 * atos_n; {at} += 4 * atos_n) {{"
                        ),
                        0,
                    );
                    self.line(
                        &format!(
                            "    {q}_body({at}); {q}_body({at} + atos_n); {q}_body({at} + 2 * atos_n); {q}_body({at} + 3 * atos_n);"
                        ),
                        0,
                    );
                    self.line("}", 0);
                    self.line(
                        &format!(
                            "for (; {at} < {end}; {at} += ({ty})worker.size()) {q}_body({at});"
                        ),
                        0,
                    );
                    self.line(&format!("if ({q}_fault != 0) atos::fault({q}_fault);"), 0);
                } else {
                    self.line("}", 0);
                }
                for ((name, _, functor), before) in reductions.iter().zip(&saved) {
                    self.line(
                        &format!(
                            "{name} = atos::{functor}::apply({before}, worker.template reduce<atos::{functor}>({name}));"
                        ),
                        0,
                    );
                }
                if *lanes {
                    // Every lane's effects are visible to the uniform code after the loop (a
                    // CTA's reduction ends with a barrier that already orders them).
                    self.line(
                        if reductions.is_empty() {
                            "worker.lanes_end();"
                        } else {
                            "worker.lanes_end_after_reduce();"
                        },
                        0,
                    );
                    if self.is_uniform_context() {
                        self.leader_unsynced = false;
                    }
                }
                self.indent -= 1;
                self.line("}", 0);
            }
            StmtKind::Reduce { op, value, .. } => {
                let name = self.typed.target_name(value).to_string();
                let v = self.expr(value);
                let functor = crate::ops::reduction(*op).cuda;
                self.line(&format!("{name} = atos::{functor}::apply({name}, {v});"), l);
            }
            StmtKind::Break => self.line("break;", l),
            StmtKind::Fence
                if self.trailing_fence == Some((s as *const Stmt, TrailingFence::Elided)) =>
            {
                self.line(
                    "// atos::fence() elided: only pushes follow, and their items run in the next level",
                    l,
                );
            }
            StmtKind::Fence
                if self.trailing_fence == Some((s as *const Stmt, TrailingFence::Deferred)) =>
            {
                // Only pushes follow: the group fences once before it keeps or publishes them.
                self.line(
                    &format!("{};", self.leader_stmt(format!("{OUT}.debt.owe()"))),
                    l,
                );
                self.fence_owed = true;
            }
            StmtKind::Fence => {
                if self.is_uniform_context() {
                    // Outside `lanes` the leader made the worker's stores (a loop's lanes were
                    // joined by its `lanes_end` barrier), so one fence serves the worker; the
                    // barrier after it keeps every lane's later reads behind it.
                    self.line("worker.leader_only([&]() { atos::fence_seq_cst(); });", l);
                    self.line("worker.sync();", l);
                    self.leader_unsynced = false;
                } else {
                    self.line("atos::fence_seq_cst();", l);
                }
            }
            StmtKind::Continue => self.line("continue;", l),
            StmtKind::Return(None) => self.line("return;", l),
            StmtKind::Return(Some(e)) => {
                let e = self.expr(e);
                self.line(&format!("return {e};"), l);
            }
            StmtKind::Push { field, item, key } => {
                let text = self.on_leader_if_uniform(|em| {
                    let item = em.expr(item);
                    if em.inline.callee(field).is_some() && em.fence_owed && em.inline.held {
                        // After a deferred fence: the item runs at the batch end, after the
                        // thread's one fence (`atos_run_<queue>`).
                        let [_, hold, _] = InlineCalls::hold_names(field);
                        return format!("{OUT}.{hold}({item})");
                    }
                    if let Some(callee) = em.inline.callee(field) {
                        // The item runs here and now: one more task of this queue, counted
                        // when the kernel ends (`count_inlined`).
                        let (f, st) = (sanitize(field), em.state());
                        let count = InlineCalls::counter(field);
                        let run = format!(
                            "{OUT}.{count} += 1; {callee}(atos_pushed, {st}, atos::ThreadWorker::make(), {OUT});"
                        );
                        return if em.inline.spread {
                            // An offer to another device goes only if this device's filter
                            // copy of the guarded element lets it through (mesh.cuh).
                            let send = match em.inline.offers.iter().find(|o| o.queue == *field) {
                                Some(o) => {
                                    let test = match o.direction {
                                        crate::plan::Direction::Down => "offer_lower",
                                        crate::plan::Direction::Up => "offer_raise",
                                    };
                                    let g = sanitize(&o.name);
                                    format!(
                                        "if (atos::{test}({st}.{g}, {st}.{g}_len, atos_pushed.f0, atos_pushed.f1)) {OUT}.{f}.push(atos_pushed);"
                                    )
                                }
                                None => format!("{OUT}.{f}.push(atos_pushed);"),
                            };
                            format!(
                                "{{ const auto atos_pushed = {item}; if ({OUT}.{f}.owns(atos_pushed)) {{ {run} }} else {{ {send} }} }}"
                            )
                        } else {
                            format!("{{ const auto atos_pushed = {item}; {run} }}")
                        };
                    }
                    let push = if em.fence_owed { "push_fenced" } else { "push" };
                    match key {
                        Some(k) => {
                            let k = em.expr(k);
                            format!("{OUT}.{}.{push}({item}, {k})", sanitize(field))
                        }
                        None => format!("{OUT}.{}.{push}({item})", sanitize(field)),
                    }
                });
                self.line(&format!("{};", self.leader_stmt(text)), l);
            }
        }
    }

    /// The body of a uniform loop: a leader write late in one iteration comes before a `lanes`
    /// loop early in the next, so a body holding both starts unsynchronized.
    fn loop_body(&mut self, body: &[Stmt]) {
        if self.is_uniform_context() && leader_writes(body) && has_lanes(body) {
            self.leader_unsynced = true;
        }
        self.nested(body);
    }

    /// Outside `lanes` and not already on the leader: side effects must run once per worker.
    fn is_uniform_context(&self) -> bool {
        !self.in_lanes && !self.on_leader
    }

    /// Emits `f` as code that will run on the leader when in a uniform context.
    fn on_leader_if_uniform(&mut self, f: impl FnOnce(&mut Self) -> String) -> String {
        let was = self.on_leader;
        if self.is_uniform_context() {
            self.on_leader = true;
        }
        let text = f(self);
        self.on_leader = was;
        text
    }

    fn leader_stmt(&self, text: String) -> String {
        if self.is_uniform_context() {
            format!("worker.leader_only([&]() {{ {text}; }})")
        } else {
            text
        }
    }

    fn state(&self) -> String {
        self.state_param.unwrap_or("s").to_string()
    }

    pub fn expr(&mut self, e: &Expr) -> String {
        let ty = self.typed.ty(e);
        match &e.kind {
            ExprKind::Int { value, .. } => int_literal(*value, ty),
            ExprKind::Float { digits, .. } => float_literal(digits, ty),
            ExprKind::Bool(b) => b.to_string(),
            ExprKind::Var(_) => self.typed.var_name(e).to_string(),
            ExprKind::Tuple(parts) => {
                let ty = ElemTy::Tuple(parts.iter().map(|p| self.typed.ty(p)).collect());
                let values: Vec<String> = parts.iter().map(|p| self.expr(p)).collect();
                format!("{}{{{}}}", ty.cuda_name(), values.join(", "))
            }
            ExprKind::Unary(op, a) => {
                let inner = self.expr(a);
                match (op, ty) {
                    // A negated literal (`i32::MIN` is lowered as `-2147483648`) is a constant:
                    // rustc rejects one that overflows, so it never panics at run time.
                    (UnOp::Neg, t)
                        if t.is_signed_int()
                            && self.checked
                            && !matches!(a.kind, ExprKind::Int { .. }) =>
                    {
                        format!(
                            "atos::checked_neg({inner}, {})",
                            self.site(Fault::NegOverflow)
                        )
                    }
                    (UnOp::Neg, t) if t.is_signed_int() => format!("atos::wneg({inner})"),
                    (UnOp::Neg, _) => format!("(-{inner})"),
                    (UnOp::Not, Scalar::Bool) => format!("(!{inner})"),
                    (UnOp::Not, t) => format!("(({})~{inner})", t.cuda_name()),
                }
            }
            ExprKind::Binary(op, a, b) => {
                let ta = self.typed.ty(a);
                let (sa, sb) = (self.expr(a), self.expr(b));
                self.binary(*op, &sa, &sb, ta)
            }
            ExprKind::Cast(a, to) => {
                let from = self.typed.ty(a);
                let inner = self.expr(a);
                if from == *to {
                    inner
                } else if from.is_float() && to.is_int() {
                    format!("atos::cast_sat<{}>({inner})", to.cuda_name())
                } else {
                    format!("(({}){inner})", to.cuda_name())
                }
            }
            ExprKind::Index { field, index } => self.element(field, index),
            ExprKind::Len { field } => format!("{}.{}_len", self.state(), sanitize(field)),
            ExprKind::Field { field } => format!("{}.{}", self.state(), sanitize(field)),
            ExprKind::Atomic { field, op, args } => {
                let uniform = self.is_uniform_context();
                let text = self.on_leader_if_uniform(|em| em.atomic_call(field, op, args));
                if uniform {
                    format!("worker.uniform([&]() {{ return {text}; }})")
                } else {
                    text
                }
            }
            ExprKind::FloatConst { name, ty } => crate::ops::float_const(name)
                .expect("the front end admits table constants")
                .cuda(*ty),
            ExprKind::Call { func, args } => match args.split_first() {
                // A function taking the state has a variant per context (`unit.rs`): in uniform
                // code its effects run on the leader; in a lane, or already on the leader, at once.
                Some((
                    Expr {
                        kind: ExprKind::StateRef,
                        ..
                    },
                    rest,
                )) => {
                    let variant = if self.is_uniform_context() {
                        // Its effects run on the leader.
                        self.leader_unsynced = true;
                        STATE_FN_UNIFORM
                    } else {
                        STATE_FN_DIRECT
                    };
                    let mut parts = vec![self.state(), "worker".to_string(), OUT.to_string()];
                    parts.extend(rest.iter().map(|a| self.expr(a)));
                    format!("{}{variant}({})", sanitize(func), parts.join(", "))
                }
                _ => {
                    let args: Vec<String> = args.iter().map(|a| self.expr(a)).collect();
                    format!("{}({})", sanitize(func), args.join(", "))
                }
            },
            ExprKind::StateRef => {
                unreachable!("the type checker admits the state only as a call argument")
            }
            ExprKind::Method { name, args } => {
                let decl = crate::ops::method(name).expect("the type checker admits table methods");
                let args: Vec<String> = args.iter().map(|a| self.expr(a)).collect();
                format!("atos::{}({})", decl.cuda, args.join(", "))
            }
            ExprKind::If { cond, then, els } => {
                let (c, t, f) = (self.expr(cond), self.expr(then), self.expr(els));
                format!("({c} ? {t} : {f})")
            }
        }
    }

    /// `atos::<cuda>(&state.field[index], values..)` for an `ops::ATOMICS` entry
    /// (`atos::<cuda>(state.field, index, values..)` for a `by_field` one).
    fn atomic_call(&mut self, field: &str, op: &str, args: &[Expr]) -> String {
        self.atomic_call_as(field, op, args, false)
    }

    /// [`Emitter::atomic_call`], with the entry's `discarded` function (a `red`) when the
    /// statement drops the result and the entry has one.
    fn atomic_call_as(&mut self, field: &str, op: &str, args: &[Expr], discard: bool) -> String {
        let decl = crate::ops::atomic(op).expect("the type checker admits table atomics");
        let cuda = match decl.discarded {
            Some(red) if discard => red,
            _ => decl.cuda,
        };
        let target = if decl.by_field {
            let i = self.checked_index(field, &args[0]);
            format!("{}.{}, {i}", self.state(), sanitize(field))
        } else {
            format!("&{}", self.element(field, &args[0]))
        };
        let mut parts = vec![target];
        parts.extend(args[1..].iter().map(|a| self.expr(a)));
        format!("atos::{cuda}({})", parts.join(", "))
    }

    /// `a op b` where `a` has type `ta` (the operands' common type; for shifts, the result's).
    fn binary(&self, op: BinOp, a: &str, b: &str, ta: Scalar) -> String {
        use BinOp::*;
        match op {
            Add | Sub | Mul | Shl | Shr if self.checked && ta.is_int() => {
                let (f, fault) = match op {
                    Add => ("checked_add", Fault::AddOverflow),
                    Sub => ("checked_sub", Fault::SubOverflow),
                    Mul => ("checked_mul", Fault::MulOverflow),
                    Shl => ("checked_shl", Fault::ShlOverflow),
                    _ => ("checked_shr", Fault::ShrOverflow),
                };
                format!("atos::{f}({a}, {b}, {})", self.site(fault))
            }
            Add | Sub | Mul if ta.is_signed_int() => {
                let f = match op {
                    Add => "wadd",
                    Sub => "wsub",
                    _ => "wmul",
                };
                format!("atos::{f}({a}, {b})")
            }
            Add | Sub | Mul if ta.is_narrow() => {
                format!("(({})({a} {} {b}))", ta.cuda_name(), op.cuda_token())
            }
            Div if ta.is_int() => format!(
                "atos::div({a}, {b}, {}, {})",
                self.site(Fault::DivByZero),
                self.site(Fault::DivOverflow)
            ),
            Rem if ta.is_int() => format!(
                "atos::rem({a}, {b}, {}, {})",
                self.site(Fault::RemByZero),
                self.site(Fault::RemOverflow)
            ),
            Rem => format!("atos::frem({a}, {b})"),
            Shl => format!("atos::shl({a}, {b})"),
            Shr => format!("atos::shr({a}, {b})"),
            BitAnd | BitOr | BitXor if ta == Scalar::Bool => {
                format!("((bool)({a} {} {b}))", op.cuda_token())
            }
            BitAnd | BitOr | BitXor => {
                format!("(({})({a} {} {b}))", ta.cuda_name(), op.cuda_token())
            }
            _ => format!("({a} {} {b})", op.cuda_token()),
        }
    }
}

fn int_literal(value: u128, ty: Scalar) -> String {
    match ty {
        Scalar::U8 | Scalar::U16 => format!("(({}){value}u)", ty.cuda_name()),
        Scalar::U32 => format!("{value}u"),
        Scalar::I32 if value <= i32::MAX as u128 => format!("{value}"),
        Scalar::I32 => format!("((int32_t){value}u)"),
        Scalar::U64 => format!("{value}ull"),
        Scalar::I64 if value <= i64::MAX as u128 => format!("{value}ll"),
        Scalar::I64 => format!("((int64_t){value}ull)"),
        Scalar::F32 => format!("{value}.0f"),
        Scalar::F64 => format!("{value}.0"),
        Scalar::Bool => (value != 0).to_string(),
    }
}

fn float_literal(digits: &str, ty: Scalar) -> String {
    let mut d = digits.to_string();
    if !d.contains(['.', 'e', 'E']) {
        d.push_str(".0");
    }
    if d.ends_with('.') {
        d.push('0');
    }
    match ty {
        Scalar::F32 => format!("{d}f"),
        _ => d,
    }
}

/// A task's fence that a CTA group, or a persistent thread group (unit.rs `defers_group`), may
/// leave to the end of its batch, and that a bulk-synchronous unit on any worker leaves out
/// (unit.rs `TrailingFence::Elided`): the last top-level `atos::fence()` of the body, when all that
/// follows it is pushes whose items read nothing a task writes (no `Atomics` operation, no call;
/// `Slice` reads are of data no task changes) to queues whose items stay queued (no inline
/// task; or, in a persistent thread group on one device, an inline task whose held items run
/// after the batch's fence, [`InlineCalls::held`]). After the fence the task only pushes, and an item is seen by anyone only once the
/// group keeps or publishes it, which it does after one fence for the whole batch
/// (`atos::FenceDebt`, a thread's `atos::ThreadFenceDebt`; a push that cannot wait for the
/// batch, a full stage or hold, fences first): the task's accesses before the fence stay
/// ordered before everything the tasks it pushes do. What is no longer ordered is the task against the later tasks its worker runs in
/// the same batch, which no program can rely on (those items could run on any worker).
/// Colouring's `assign` ends this way: one fence per batch instead of one per vertex. A trailing
/// fence with nothing after it is deferred too (it orders nothing of the task). So is one in a
/// branch of an `if` that ends the body (colouring's `if` found a colour { store; fence; push }),
/// found the same way in that branch (then `then`, else `else`): all that follows it in the task
/// is still that branch's pushes.
pub(crate) fn deferred_fence<'s>(body: &'s [Stmt], inline: &InlineCalls) -> Option<&'s Stmt> {
    let top = body
        .iter()
        .rposition(|s| matches!(s.kind, StmtKind::Fence))
        .and_then(|at| deferred_at(body, at, inline));
    match (top, body.last().map(|s| &s.kind)) {
        (Some(f), _) => Some(f),
        (None, Some(StmtKind::If { then, els, .. })) => deferred_fence(then, inline)
            .or_else(|| els.as_deref().and_then(|e| deferred_fence(e, inline))),
        _ => None,
    }
}

/// `body[at]`, a fence, if all that follows it in `body` is pushes that read nothing a task
/// writes ([`deferred_fence`]).
fn deferred_at<'s>(body: &'s [Stmt], at: usize, inline: &InlineCalls) -> Option<&'s Stmt> {
    let tail = &body[at + 1..];
    let pushes_only = tail.iter().all(|s| {
        matches!(&s.kind, StmtKind::Push { field, .. } if inline.held || inline.callee(field).is_none())
    });
    let mut reads = false;
    crate::ir::visit_exprs(tail, &mut |e| {
        reads |= matches!(e.kind, ExprKind::Atomic { .. } | ExprKind::Call { .. })
    });
    (pushes_only && !reads).then_some(&body[at])
}

/// Whether a `lanes` loop's body only reads: lets, assignments, `if`s and reductions, over
/// expressions that push, store, call and divide nothing (an `Atomics` field only `load`s).
/// Such a loop has no effect but its locals, so an index past a length can be reported after
/// its last iteration instead of at once (the lane reads element 0 meanwhile, as after any
/// index fault, and `atos::index_quiet` keeps the first site). Its body, then free of branches
/// to a fault call, becomes a lambda that each trip runs for 4 strides while 4 fit below the
/// end, then for one at a time: the 4 bodies are one block of straight code, so ptxas issues
/// their loads together where the plain loop waited for each in turn (an unroll pragma kept an
/// exit test between the copies, which stopped that). Colouring's `assign` reads a hub's
/// 100 K+ neighbours this way, two dependent loads per edge. Division and remainder fault in
/// every build, so a body with either keeps the plain loop; so does a checked build
/// (`Emitter::set_sites`), whose arithmetic faults, and a body with `continue`.
fn reads_only(body: &[Stmt]) -> bool {
    let mut ok = true;
    crate::ir::visit_stmts(body, &mut |s| {
        ok &= matches!(
            s.kind,
            StmtKind::Let { .. }
                | StmtKind::Assign { .. }
                | StmtKind::Expr(_)
                | StmtKind::Block(_)
                | StmtKind::If { .. }
                | StmtKind::Reduce { .. }
        );
    });
    crate::ir::visit_exprs(body, &mut |e| {
        ok &= match &e.kind {
            ExprKind::Atomic { op, .. } => op == "load",
            ExprKind::Binary(op, ..) => !matches!(op, BinOp::Div | BinOp::Rem),
            ExprKind::Call { .. } | ExprKind::StateRef | ExprKind::Tuple(_) => false,
            _ => true,
        };
    });
    ok
}

/// Whether `body` writes memory from uniform code on the leader alone: a `store`, or a call of a
/// function taking the state (its effects run on the leader).
fn leader_writes(body: &[Stmt]) -> bool {
    let mut found = false;
    crate::ir::visit_exprs(body, &mut |e| match &e.kind {
        ExprKind::Atomic { op, .. } => {
            found |= crate::ops::atomic(op)
                .is_some_and(|d| d.returns == crate::ops::AtomicReturns::Nothing);
        }
        ExprKind::Call { args, .. } => {
            found |= matches!(
                args.first(),
                Some(Expr {
                    kind: ExprKind::StateRef,
                    ..
                })
            );
        }
        _ => {}
    });
    found
}

/// Whether `body` holds a `lanes` loop (at any depth).
fn has_lanes(body: &[Stmt]) -> bool {
    let mut found = false;
    crate::ir::visit_stmts(body, &mut |s| {
        found |= matches!(s.kind, StmtKind::For { lanes: true, .. });
    });
    found
}
