//! Load-balanced batches (the papers' persist-CTA data-parallel load balancing).
//!
//! A warp or CTA worker holding a batch of several items runs them, by default, one after
//! another, each `lanes(..)` loop strided over the worker's threads: with low-degree items most
//! threads idle. A task of the *balanced shape*
//!
//! ```text
//! fn task(item: T, s: &S) {
//!     let a = ...;            // zero or more `let`s: the item's values
//!     let b = ...;
//!     for e in lanes(lo..hi) { ... }   // last statement; `lo`, `hi` unsigned (u32 or u64)
//! }
//! ```
//!
//! instead gets a generated `<task>_batch` function: each thread computes one item's `let`s and
//! range (its *frame*), a scan of the range lengths lays the items' ranges end to end, and the
//! worker's threads stride over that combined range, each finding its item by binary search.
//! Every `let` still runs once per item and every index of every range once, as in the plain
//! loop; what changes is only which thread runs which index and that the items of a chunk run
//! at once, as if by as many workers (a schedule the queue already allows).

use std::fmt::Write;

use crate::emit::{Emitter, InlineCalls, OUT};
use crate::ir::*;
use crate::names::sanitize;
use crate::typeck::Typed;
use crate::unit::{KernelSpec, Strategy, TaskSpec, held_per_thread, item_parts, worker_type};

/// Static shared memory a block may declare (CUDA's limit without opt-in).
pub const SHARED_LIMIT_BYTES: usize = 48 * 1024;

/// Shared memory kept for the kernel's small fixed allocations (broadcast slots, a push
/// flush's base and flag, a scan's warp sums, reductions' warp parts). The chunk CTA groups run
/// items from is counted apart (`unit::EACH_CHUNK_BYTES`).
pub const SHARED_FIXED_BYTES: usize = 2 * 1024;

/// The parts of a task body of the balanced shape.
pub struct BalancedShape<'a> {
    /// The statements before the loop: the item's values (`let`s) and, in the extended shape,
    /// any other statement.
    pub prefix: &'a [Stmt],
    /// The `lanes(lo..hi)` loop statement.
    pub lanes: &'a Stmt,
    /// The statements after the loop (the extended shape): they read its reductions.
    pub suffix: &'a [Stmt],
}

impl BalancedShape<'_> {
    /// The loop's body.
    pub fn body(&self) -> &[Stmt] {
        match &self.lanes.kind {
            StmtKind::For { body, .. } => body,
            _ => unreachable!("balanced_shape returns a lanes loop"),
        }
    }

    /// The plain shape: `let`s, then the loop, which reduces nothing.
    pub fn is_plain(&self) -> bool {
        self.suffix.is_empty()
            && !self.reduces()
            && self
                .prefix
                .iter()
                .all(|s| matches!(s.kind, StmtKind::Let { .. }))
    }

    /// Whether the loop reduces: a shared chunk's helpers then combine their parts into the
    /// board, and the owner takes them before its tail (`atos::share_end`).
    pub fn reduces(&self) -> bool {
        !crate::ir::reductions(self.body()).is_empty()
    }
}

/// Whether `stmts` hold a `lanes` loop or a `return` at any depth: neither may run per item in
/// a batch's prefix or suffix (a `return` would leave the whole batch).
fn runs_per_item(stmts: &[Stmt]) -> bool {
    let mut ok = true;
    visit_stmts(stmts, &mut |s| {
        ok &= !matches!(
            s.kind,
            StmtKind::Return(_) | StmtKind::For { lanes: true, .. }
        );
    });
    ok
}

/// The balanced shape of `task`'s body, if it has it: one `lanes` loop at the top level, with
/// no other `lanes` loop and no `return` before or after it (types are checked in `frame`
/// and `reduction_slots`).
pub fn balanced_shape(task: &FnIr) -> Option<BalancedShape<'_>> {
    let at = task
        .body
        .iter()
        .position(|s| matches!(s.kind, StmtKind::For { lanes: true, .. }))?;
    let (prefix, rest) = task.body.split_at(at);
    let (lanes, suffix) = rest.split_first()?;
    (runs_per_item(prefix) && runs_per_item(suffix)).then_some(BalancedShape {
        prefix,
        lanes,
        suffix,
    })
}

/// One reduction of a balanced loop: its target's C++ name, the target's type, the operation's
/// functor and the C++ type of its slot in shared memory.
struct ReductionSlot {
    name: String,
    ty: Scalar,
    functor: &'static str,
    slot_ty: &'static str,
}

/// The loop's reductions as shared-memory slots, or `None` if one cannot be balanced: its
/// type has no shared-memory atomic for the operation (floats, whose sums would also depend
/// on the order, and 8- or 16-bit integers), or its target is not a top-level `let` of the
/// prefix (whose value per item the slot starts from).
fn reduction_slots(shape: &BalancedShape<'_>, typed: &Typed) -> Option<Vec<ReductionSlot>> {
    let declared: Vec<&str> = shape
        .prefix
        .iter()
        .filter_map(|s| match &s.kind {
            StmtKind::Let { init, .. } => Some(typed.binding(init).0),
            _ => None,
        })
        .collect();
    crate::ir::reductions(shape.body())
        .into_iter()
        .map(|(_, op, value)| {
            let name = typed.target_name(value);
            let ty = typed.ty(value);
            let slot_ty = match ty {
                Scalar::U32 | Scalar::I32 | Scalar::U64 | Scalar::I64 => ty.cuda_name(),
                Scalar::Bool => "uint32_t",
                _ => return None,
            };
            declared.contains(&name).then(|| ReductionSlot {
                name: name.to_string(),
                ty,
                functor: crate::ops::reduction(op).cuda,
                slot_ty,
            })
        })
        .collect()
}

/// The C++ names of the variables `stmts` assign.
fn names_assigned(stmts: &[Stmt], typed: &Typed) -> Vec<String> {
    let mut out = Vec::new();
    visit_stmts(stmts, &mut |s| {
        if let StmtKind::Assign { value, .. } = &s.kind {
            out.push(typed.target_name(value).to_string());
        }
    });
    out
}

/// Whether what a batch runs per item before the chunk's scan may push: the prefix and the
/// loop's bounds (`lo..hi`), through a push or a call of a function taking the state (which
/// may).
fn prefix_may_push(shape: &BalancedShape<'_>) -> bool {
    let StmtKind::For { lo, hi, .. } = &shape.lanes.kind else {
        unreachable!("balanced_shape returns a lanes loop")
    };
    let bounds: Vec<Stmt> = [lo, hi]
        .into_iter()
        .map(|e| Stmt {
            line: shape.lanes.line,
            kind: StmtKind::Expr(e.clone()),
        })
        .collect();
    let mut found = false;
    visit_stmts(shape.prefix, &mut |s| {
        found |= matches!(s.kind, StmtKind::Push { .. });
    });
    for stmts in [shape.prefix, &bounds[..]] {
        visit_exprs(stmts, &mut |e| {
            found |= matches!(&e.kind, ExprKind::Call { args, .. }
                if args.iter().any(|a| matches!(a.kind, ExprKind::StateRef)));
        });
    }
    found
}

/// The C++ names of the variables `stmts` read or assign.
fn names_used(stmts: &[Stmt], typed: &Typed) -> Vec<String> {
    let mut used = Vec::new();
    visit_exprs(stmts, &mut |e| {
        if let ExprKind::Var(_) = e.kind {
            used.push(typed.var_name(e).to_string());
        }
    });
    visit_stmts(stmts, &mut |s| {
        if let StmtKind::Assign { value, .. } = &s.kind {
            used.push(typed.target_name(value).to_string());
        }
    });
    used
}

/// One member of a frame: its C++ name and type.
struct Member {
    name: String,
    ty: Scalar,
}

/// The frame of a balanced task: the item and the `let`s the loop body or the suffix reads (a
/// reduction's target but in its slot), and the loop's `lo` (named `atos_lo`, always last);
/// `None` when the loop variable is not an unsigned integer.
fn frame(task: &FnIr, shape: &BalancedShape<'_>, typed: &Typed) -> Option<Vec<Member>> {
    let StmtKind::For { lo, .. } = &shape.lanes.kind else {
        return None;
    };
    let (_, loop_ty) = typed.binding(lo);
    if !matches!(loop_ty, Scalar::U32 | Scalar::U64) {
        return None;
    }
    let mut used = names_used(shape.body(), typed);
    used.extend(names_used(shape.suffix, typed));
    let targets: Vec<&str> = crate::ir::reductions(shape.body())
        .into_iter()
        .map(|(_, _, value)| typed.target_name(value))
        .collect();
    let mut members: Vec<Member> = task
        .params
        .iter()
        .zip(typed.params())
        .map(|(p, name)| Member {
            name: name.clone(),
            ty: p.ty,
        })
        .collect();
    for s in shape.prefix {
        if let StmtKind::Let { init, .. } = &s.kind {
            let (name, ty) = typed.binding(init);
            members.push(Member {
                name: name.to_string(),
                ty,
            });
        }
    }
    members.retain(|m| used.contains(&m.name) && !targets.contains(&m.name.as_str()));
    members.push(Member {
        name: "atos_lo".into(),
        ty: loop_ty,
    });
    Some(members)
}

/// Whether `task` runs balanced under `ts` in `spec`: a warp or CTA worker fetching more than
/// one item (or one, for a loop that reduces on persistent CTA groups that share: so that its
/// item's range can be shared), the balanced shape with an unsigned loop, and slots that fit in
/// `budget` (the block's shared memory still free; what the slots take is subtracted from it).
pub fn runs_balanced(
    task: &FnIr,
    typed: &Typed,
    ts: &TaskSpec,
    spec: &KernelSpec,
    budget: &mut usize,
) -> bool {
    if !spec.balance || matches!(ts.worker, WorkerKind::Thread) {
        return false;
    }
    let Some(shape) = balanced_shape(task) else {
        return false;
    };
    // Fetch 1 gains nothing from balancing but where its item may be shared with idle groups.
    // Only a loop that reduces takes that path: one that does not (BFS, SSSP, k-core at fetch
    // 1) keeps running item by item, as measured, and `--share` keeps meaning sharing alone.
    if ts.fetch < 2 && !(shares(spec, ts) && shape.reduces()) {
        return false;
    }
    let Some(members) = frame(task, &shape, typed) else {
        return false;
    };
    let Some(slots) = reduction_slots(&shape, typed) else {
        return false;
    };
    // Each member padded to 8 bytes at most, plus the start per thread and the warp sums, and
    // a slot per thread for each reduction.
    let bytes = (members.len() * 8 + 8 + slots.len() * 8) * spec.block_size as usize + 32 * 8;
    if bytes > *budget {
        return false;
    }
    *budget -= bytes;
    true
}

/// Whether a balanced task shares its large chunks with idle groups (`atos::share_run`,
/// docs/runtime.md "Shared ranges"): persistent CTA groups, when the spec allows it.
pub fn shares(spec: &KernelSpec, ts: &TaskSpec) -> bool {
    spec.share && spec.strategy == Strategy::Persistent && ts.worker == WorkerKind::Cta
}

/// Whether `task`, balanced, shares its chunks: [`shares`] and the balanced shape. Statements
/// before the loop and a tail are fine: the owner runs them, the tail once the helpers are done
/// and their parts of the loop's reductions are combined into the owner's.
pub fn task_shares(spec: &KernelSpec, ts: &TaskSpec, task: &FnIr) -> bool {
    shares(spec, ts) && balanced_shape(task).is_some()
}

/// Whether `task`, balanced, may push before its batch's first barrier (the prefix, or a call
/// in the loop's bounds): its server then opens every kept batch with a barrier
/// (`atos::pushes_first` in worker.cuh), since a CTA group's kept batch otherwise starts
/// without one and such a push could race the last flush's read of the stage's count. Batches
/// taken from a queue already start after one.
pub fn batch_pushes_first(task: &FnIr) -> bool {
    balanced_shape(task).is_some_and(|s| prefix_may_push(&s))
}

/// The board of a task that [`shares`]: a module global of its device.
pub fn board_name(task: &FnIr) -> String {
    format!("atos_{}_board", sanitize(&task.name))
}

/// The name of the generated batch function of `task`.
pub fn batch_fn_name(task: &FnIr) -> String {
    format!("{}_batch", sanitize(&task.name))
}

/// Emits the frame struct and `<task>_batch` for a task that [`runs_balanced`]; for one that
/// [`shares`], also its board, and `<task>_batch` takes the board and, called with no items,
/// helps with a posted chunk (whether it did).
#[allow(clippy::too_many_arguments)]
pub(crate) fn emit_batch_fn(
    out: &mut String,
    task: &FnIr,
    fn_index: u32,
    typed: &Typed,
    state: &StateDesc,
    state_param: &str,
    spec: &KernelSpec,
    ts: &TaskSpec,
    inline: &InlineCalls,
) {
    let worker_type = worker_type(ts.worker);
    let held = held_per_thread(spec, ts);
    let block_size = spec.block_size;
    let shape = balanced_shape(task).expect("checked by runs_balanced");
    let members = frame(task, &shape, typed).expect("checked by runs_balanced");
    let slots = reduction_slots(&shape, typed).expect("checked by runs_balanced");
    let StmtKind::For { lo, hi, body, .. } = &shape.lanes.kind else {
        unreachable!("balanced_shape returns a lanes loop")
    };
    let frame_ty = format!("atos_{}_Frame", sanitize(&task.name));
    let _ = writeln!(out, "struct {frame_ty} {{");
    for m in &members {
        let _ = writeln!(out, "    {} {};", m.ty.cuda_name(), m.name);
    }
    out.push_str("};\n\n");
    let share = task_shares(spec, ts, task);
    // A shared chunk's reductions on its board: one member per slot, in slot types.
    let red_ty = if share && !slots.is_empty() {
        let red_ty = format!("atos_{}_Red", sanitize(&task.name));
        let _ = writeln!(out, "struct {red_ty} {{");
        for (i, r) in slots.iter().enumerate() {
            let _ = writeln!(out, "    {} r{i};  // `{}`", r.slot_ty, r.name);
        }
        let _ = writeln!(
            out,
            "    static constexpr uint32_t count = {};",
            slots.len()
        );
        let ids: Vec<String> = slots
            .iter()
            .map(|r| format!("atos::{}::identity<{}>()", r.functor, r.slot_ty))
            .collect();
        let _ = writeln!(
            out,
            "    static __device__ __forceinline__ {red_ty} identity() {{ return {red_ty}{{{}}}; }}",
            ids.join(", ")
        );
        out.push_str("};\n\n");
        red_ty
    } else {
        "atos::NoReductions".to_string()
    };
    let board_ty =
        format!("atos::ShareBoard<{frame_ty}, {block_size}, ATOS_SHARE_SLOTS, {red_ty}>");
    if share {
        let _ = writeln!(out, "__device__ {board_ty} {};\n", board_name(task));
    }
    let (var, loop_ty) = typed.binding(lo);
    let (var, loop_ty) = (var.to_string(), loop_ty.cuda_name());
    let _ = writeln!(
        out,
        "// `{}` balanced (line {}): a chunk of up to worker.size() items at a time, the items' `lanes` ranges laid end to end over the worker's threads.",
        task.name, shape.lanes.line
    );
    let (ret, board_param) = if share {
        ("bool", format!(", {board_ty}* atos_board"))
    } else {
        ("void", String::new())
    };
    let _ = writeln!(
        out,
        "__device__ __forceinline__ {ret} {}(const {} (&atos_held)[{held}], uint32_t atos_count, const {}& {state_param}, const {worker_type}& worker, atos_Out& {OUT}{board_param}) {{",
        batch_fn_name(task),
        task.item_ty().cuda_name(),
        state.name,
    );
    let mut em = Emitter::new(typed, Some(state_param));
    em.set_sites(fn_index, task.line, spec.checked);
    em.set_inline(inline);
    em.set_per_lane(true);
    // A fence the suffix ends with, before pushes only, is handled as in the task run item by
    // item (`emit::deferred_fence`, unit.rs `trailing_fence`): settled once after the batch by a
    // CTA group, or none under bsp. (A balanced task runs on warps or CTAs, so a unit that
    // defers its fence here has CTA groups: persistent thread groups run no balanced batch.)
    em.set_trailing_fence(
        crate::emit::deferred_fence(&task.body, inline),
        crate::unit::trailing_fence(spec),
    );
    em.raw(&format!(
        "__shared__ atos::BalanceSlots<{frame_ty}, {block_size}> atos_slots;"
    ));
    // A prefix (or loop bounds) that may push runs before the chunk's scan, the barrier a CTA
    // batch otherwise opens with: the server puts one before each kept batch instead
    // (`batch_pushes_first`; a batch taken from a queue starts after one).
    for (i, r) in slots.iter().enumerate() {
        em.raw(&format!(
            "__shared__ {} atos_red{i}[{block_size}];  // `{}` of each item",
            r.slot_ty, r.name
        ));
    }
    if share {
        // No items: an idle group's help, one pass with no frames of its own.
        em.raw("for (uint32_t atos_k = 0; atos_count == 0 ? atos_k == 0 : atos_k * worker.size() < atos_count; ++atos_k) {");
        em.indent_by(1);
        em.raw("uint32_t atos_n = atos_count == 0 ? 0u : min(worker.size(), atos_count - atos_k * worker.size());");
    } else {
        em.raw("for (uint32_t atos_k = 0; atos_k * worker.size() < atos_count; ++atos_k) {");
        em.indent_by(1);
        em.raw("const uint32_t atos_n = min(worker.size(), atos_count - atos_k * worker.size());");
    }
    em.raw(&format!("{frame_ty} atos_f{{}};"));
    em.raw("uint64_t atos_len = 0;");
    em.raw("if (worker.rank() < atos_n) {");
    em.indent_by(1);
    // The item's parts are `const` unless the prefix assigns one (a `mut` parameter).
    let assigned = names_assigned(shape.prefix, typed);
    let qualifier = |name: &str| {
        if assigned.iter().any(|a| a == name) {
            ""
        } else {
            "const "
        }
    };
    match item_parts(task, typed, "atos_held[atos_k]") {
        Some(parts) => {
            for (name, ty, value) in parts {
                em.raw(&format!(
                    "{}{} {name} = {value};",
                    qualifier(&name),
                    ty.cuda_name()
                ));
            }
        }
        None => em.raw(&format!(
            "{}{} {} = atos_held[atos_k];",
            qualifier(&typed.params()[0]),
            task.params[0].ty.cuda_name(),
            typed.params()[0]
        )),
    }
    em.block(shape.prefix);
    em.set_line(shape.lanes.line);
    let (lo_v, hi_v) = (em.expr(lo), em.expr(hi));
    em.raw(&format!("const {loop_ty} atos_lo = {lo_v};"));
    em.raw(&format!("const {loop_ty} atos_hi_given = {hi_v};"));
    // The body's leading `let x = s.field[var];` checked once per item's range.
    let (hi_checked, hoisted) =
        em.hoist_index_checks(&var, loop_ty, body, "atos_lo", "atos_hi_given");
    em.raw(&format!("const {loop_ty} atos_hi = {hi_checked};"));
    let names: Vec<&str> = members.iter().map(|m| m.name.as_str()).collect();
    em.raw(&format!("atos_f = {frame_ty}{{{}}};", names.join(", ")));
    em.raw("atos_len = atos_hi > atos_lo ? (uint64_t)(atos_hi - atos_lo) : 0ull;");
    for (i, r) in slots.iter().enumerate() {
        // The value before the loop, which the lanes' shares are combined into.
        em.raw(&format!(
            "atos_red{i}[threadIdx.x] = ({}){};",
            r.slot_ty, r.name
        ));
    }
    em.indent_by(-1);
    em.raw("}");
    if share {
        // The lanes over each grab of the chunk's combined range: the owner's (all of it, when
        // not shared) or, with no items, an idle helper's of a posted chunk.
        em.raw("const uint64_t atos_total = atos_count == 0 ? 0ull : atos::balance_scan(worker, atos_slots, atos_f, atos_len, atos_n);");
        em.raw("const bool atos_walk = atos::share_begin(worker, atos_board, atos_slots, atos_n, atos_total, atos_count == 0);");
        em.raw("if (atos_count == 0 && !atos_walk) return false;");
        if !slots.is_empty() {
            // A helper's slots start at the identities: it adds only its grabs' parts.
            em.raw("if (atos_count == 0) {");
            em.indent_by(1);
            for (i, r) in slots.iter().enumerate() {
                em.raw(&format!(
                    "atos_red{i}[threadIdx.x] = atos::{}::identity<{}>();",
                    r.functor, r.slot_ty
                ));
            }
            em.indent_by(-1);
            em.raw("}");
        }
        em.raw("uint64_t atos_b = 0, atos_e = atos_total;");
        em.raw("bool atos_first = !atos_walk;  // not walking: one pass over [0, total)");
        em.raw("while (atos_walk ? atos::share_next(worker, atos_board, atos_slots, atos_n, atos_b, atos_e) : atos_first) {");
        em.indent_by(1);
        em.raw("atos_first = false;");
        open_lane_shares(&mut em, &slots);
        em.raw("for (uint64_t atos_j = atos_b + worker.rank(); atos_j < atos_e; atos_j += worker.size()) {");
    } else {
        em.raw("const uint64_t atos_total = atos::balance_scan(worker, atos_slots, atos_f, atos_len, atos_n);");
        open_lane_shares(&mut em, &slots);
        em.raw(
            "for (uint64_t atos_j = worker.rank(); atos_j < atos_total; atos_j += worker.size()) {",
        );
    }
    em.indent_by(1);
    em.raw("uint64_t atos_at;");
    if slots.is_empty() {
        em.raw(&format!(
            "const {frame_ty}& atos_g = atos::balance_find(worker, atos_slots, atos_j, atos_at, atos_n);"
        ));
    } else {
        em.raw("const uint32_t atos_item = atos::balance_item(worker, atos_slots, atos_j, atos_at, atos_n);");
        em.raw("if (atos_item != atos_on) {");
        em.indent_by(1);
        emit_combine(&mut em, &slots);
        em.raw("atos_on = atos_item;");
        for r in &slots {
            em.raw(&format!(
                "{} = atos::{}::identity<{}>();",
                r.name,
                r.functor,
                r.ty.cuda_name()
            ));
        }
        em.indent_by(-1);
        em.raw("}");
        em.raw(&format!(
            "const {frame_ty}& atos_g = atos_slots.frame[threadIdx.x - worker.rank() + atos_item];"
        ));
    }
    emit_frame_reads(&mut em, &members, &names_used(body, typed), "const ");
    em.raw(&format!(
        "const {loop_ty} {var} = atos_g.atos_lo + ({loop_ty})(atos_j - atos_at);"
    ));
    em.block(body);
    em.end_checked_ranges(hoisted);
    em.indent_by(-1);
    em.raw("}");
    if !slots.is_empty() {
        emit_combine(&mut em, &slots);
        em.indent_by(-1);
        em.raw("}");
    }
    em.raw("worker.lanes_end();");
    if share {
        em.indent_by(-1);
        em.raw("}");
        let flush = format!("[&]() {{ {OUT}.flush(worker); }}");
        if slots.is_empty() {
            em.raw(&format!(
                "if (atos_walk && !atos::share_end(worker, atos_board, {flush}, [](atos::NoReductions*, bool) {{}})) return false;"
            ));
        } else {
            em.raw(&format!(
                "if (atos_walk && !atos::share_end(worker, atos_board, {flush}, [&]({red_ty}* atos_board_red, bool atos_helper) {{"
            ));
            em.indent_by(1);
            emit_board_merge(&mut em, &slots);
            em.indent_by(-1);
            em.raw("})) return false;");
        }
    }
    if !shape.suffix.is_empty() {
        // The suffix, per item on its own thread: the frame's values and the reductions'. A
        // group that shared its chunk runs it once the helpers are done (`share_end`; its
        // barrier brings what they wrote to every thread), a helper not at all.
        let mine = if share {
            em.raw("worker.lanes_end();");
            "atos_count != 0 && worker.rank() < atos_n"
        } else {
            "worker.rank() < atos_n"
        };
        em.raw(&format!("if ({mine}) {{"));
        em.indent_by(1);
        em.raw(&format!(
            "const {frame_ty}& atos_g = atos_slots.frame[threadIdx.x];"
        ));
        let used = names_used(shape.suffix, typed);
        emit_frame_reads(&mut em, &members, &used, "");
        for (i, r) in slots.iter().enumerate() {
            if used.contains(&r.name) {
                em.raw(&format!(
                    "{} {} = ({})atos_red{i}[threadIdx.x];",
                    r.ty.cuda_name(),
                    r.name,
                    r.ty.cuda_name()
                ));
            }
        }
        em.block(shape.suffix);
        em.indent_by(-1);
        em.raw("}");
    }
    em.indent_by(-1);
    em.raw("}");
    if share {
        em.raw("return true;");
    }
    out.push_str(&em.finish());
    out.push_str("}\n\n");
}

/// Declares the frame members (the loop's `lo` aside) that `used` names, read from `atos_g`:
/// `const` in the loop, plain in the tail (which may assign them).
fn emit_frame_reads(em: &mut Emitter<'_>, members: &[Member], used: &[String], qualifier: &str) {
    for m in members[..members.len() - 1]
        .iter()
        .filter(|m| used.contains(&m.name))
    {
        em.raw(&format!(
            "{qualifier}{} {} = atos_g.{};",
            m.ty.cuda_name(),
            m.name,
            m.name
        ));
    }
}

/// Opens a block in which each lane folds its share of the item it is on (`atos_on`) of each
/// reduction, combined into the item's slot when the lane moves on to another item and after
/// its last index (closed after the loop, with [`emit_combine`]). Nothing without reductions.
fn open_lane_shares(em: &mut Emitter<'_>, slots: &[ReductionSlot]) {
    if slots.is_empty() {
        return;
    }
    em.raw("{");
    em.indent_by(1);
    em.raw("uint32_t atos_on = 0xffffffffu;");
    for r in slots {
        em.raw(&format!(
            "{t} {} = atos::{}::identity<{t}>();",
            r.name,
            r.functor,
            t = r.ty.cuda_name()
        ));
    }
}

/// The body of `share_end`'s `merge` (`atos_board_red`, `atos_helper`): a helper adds its slots
/// of the chunk's items to the board's with the operation's atomic; the owner combines the
/// board's (every helper's part, counted finished) into its own slots, each thread its item's.
fn emit_board_merge(em: &mut Emitter<'_>, slots: &[ReductionSlot]) {
    em.raw("for (uint32_t atos_i = worker.rank(); atos_i < atos_n; atos_i += worker.size()) {");
    em.indent_by(1);
    em.raw("const uint32_t atos_s = threadIdx.x - worker.rank() + atos_i;");
    for (i, r) in slots.iter().enumerate() {
        em.raw(&format!(
            "if (atos_helper) atos::shared_combine(atos::{f}{{}}, &atos_board_red[atos_i].r{i}, atos_red{i}[atos_s]);",
            f = r.functor
        ));
        em.raw(&format!(
            "else atos_red{i}[atos_s] = atos::{f}::apply(atos_red{i}[atos_s], atos::share_read(&atos_board_red[atos_i].r{i}));",
            f = r.functor
        ));
    }
    em.indent_by(-1);
    em.raw("}");
}

/// Combines each reduction's share of item `atos_on` (if the lane has one) into its slot.
fn emit_combine(em: &mut Emitter<'_>, slots: &[ReductionSlot]) {
    em.raw("if (atos_on != 0xffffffffu) {");
    em.indent_by(1);
    for (i, r) in slots.iter().enumerate() {
        em.raw(&format!(
            "atos::shared_combine(atos::{}{{}}, &atos_red{i}[threadIdx.x - worker.rank() + atos_on], ({}){});",
            r.functor, r.slot_ty, r.name
        ));
    }
    em.indent_by(-1);
    em.raw("}");
}
