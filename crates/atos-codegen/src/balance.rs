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
/// flush's base and flag, a scan's warp sums).
pub const SHARED_FIXED_BYTES: usize = 2 * 1024;

/// The parts of a task body of the balanced shape.
pub struct BalancedShape<'a> {
    /// The `let` statements before the loop.
    pub prefix: &'a [Stmt],
    /// The `lanes(lo..hi)` loop statement.
    pub lanes: &'a Stmt,
}

/// The balanced shape of `task`'s body, if it has it (types are checked in [`frame`]).
pub fn balanced_shape(task: &FnIr) -> Option<BalancedShape<'_>> {
    let (last, prefix) = task.body.split_last()?;
    let StmtKind::For {
        lanes: true, body, ..
    } = &last.kind
    else {
        return None;
    };
    // A reduction's result is read after the loop; a batch that mixes items cannot give one.
    if !crate::ir::reductions(body).is_empty() {
        return None;
    }
    if !prefix
        .iter()
        .all(|s| matches!(s.kind, StmtKind::Let { .. }))
    {
        return None;
    }
    Some(BalancedShape {
        prefix,
        lanes: last,
    })
}

/// One member of a frame: its C++ name and type.
struct Member {
    name: String,
    ty: Scalar,
}

/// The frame of a balanced task: the item and the `let`s the loop body reads, and the loop's
/// `lo` (named `atos_lo`, always last); `None` when the loop variable is not an unsigned
/// integer.
fn frame(task: &FnIr, shape: &BalancedShape<'_>, typed: &Typed) -> Option<Vec<Member>> {
    let StmtKind::For { lo, .. } = &shape.lanes.kind else {
        return None;
    };
    let (_, loop_ty) = typed.binding(lo);
    if !matches!(loop_ty, Scalar::U32 | Scalar::U64) {
        return None;
    }
    // The item and the `let`s the loop body reads.
    let StmtKind::For { body, .. } = &shape.lanes.kind else {
        return None;
    };
    let mut used = Vec::new();
    visit_exprs(body, &mut |e| {
        if let ExprKind::Var(_) = e.kind {
            used.push(typed.var_name(e).to_string());
        }
    });
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
    members.retain(|m| used.contains(&m.name));
    members.push(Member {
        name: "atos_lo".into(),
        ty: loop_ty,
    });
    Some(members)
}

/// Whether `task` runs balanced under `ts` in `spec`: a warp or CTA worker fetching more than
/// one item, the balanced shape with an unsigned loop, and slots that fit in `budget` (the
/// block's shared memory still free; what the slots take is subtracted from it).
pub fn runs_balanced(
    task: &FnIr,
    typed: &Typed,
    ts: &TaskSpec,
    spec: &KernelSpec,
    budget: &mut usize,
) -> bool {
    if !spec.balance || ts.fetch < 2 || matches!(ts.worker, WorkerKind::Thread) {
        return false;
    }
    let Some(shape) = balanced_shape(task) else {
        return false;
    };
    let Some(members) = frame(task, &shape, typed) else {
        return false;
    };
    // Each member padded to 8 bytes at most, plus the start per thread and the warp sums.
    let bytes = (members.len() * 8 + 8) * spec.block_size as usize + 32 * 8;
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
    let StmtKind::For { lo, hi, body, .. } = &shape.lanes.kind else {
        unreachable!("balanced_shape returns a lanes loop")
    };
    let frame_ty = format!("atos_{}_Frame", sanitize(&task.name));
    let _ = writeln!(out, "struct {frame_ty} {{");
    for m in &members {
        let _ = writeln!(out, "    {} {};", m.ty.cuda_name(), m.name);
    }
    out.push_str("};\n\n");
    let share = shares(spec, ts);
    let board_ty = format!("atos::ShareBoard<{frame_ty}, {block_size}, ATOS_SHARE_SLOTS>");
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
    em.raw(&format!(
        "__shared__ atos::BalanceSlots<{frame_ty}, {block_size}> atos_slots;"
    ));
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
    match item_parts(task, typed, "atos_held[atos_k]") {
        Some(parts) => {
            for (name, ty, value) in parts {
                em.raw(&format!("const {} {name} = {value};", ty.cuda_name()));
            }
        }
        None => em.raw(&format!(
            "const {} {} = atos_held[atos_k];",
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
    em.indent_by(-1);
    em.raw("}");
    if share {
        // The lanes over each grab of the chunk's combined range: the owner's (all of it, when
        // not shared) or, with no items, an idle helper's of a posted chunk.
        em.raw("const uint64_t atos_total = atos_count == 0 ? 0ull : atos::balance_scan(worker, atos_slots, atos_f, atos_len, atos_n);");
        em.raw("const bool atos_walk = atos::share_begin(worker, atos_board, atos_slots, atos_n, atos_total, atos_count == 0);");
        em.raw("if (atos_count == 0 && !atos_walk) return false;");
        em.raw("uint64_t atos_b = 0, atos_e = atos_total;");
        em.raw("bool atos_first = !atos_walk;  // not walking: one pass over [0, total)");
        em.raw("while (atos_walk ? atos::share_next(worker, atos_board, atos_slots, atos_n, atos_b, atos_e) : atos_first) {");
        em.indent_by(1);
        em.raw("atos_first = false;");
        em.raw("for (uint64_t atos_j = atos_b + worker.rank(); atos_j < atos_e; atos_j += worker.size()) {");
    } else {
        em.raw("const uint64_t atos_total = atos::balance_scan(worker, atos_slots, atos_f, atos_len, atos_n);");
        em.raw(
            "for (uint64_t atos_j = worker.rank(); atos_j < atos_total; atos_j += worker.size()) {",
        );
    }
    em.indent_by(1);
    em.raw("uint64_t atos_at;");
    em.raw(&format!(
        "const {frame_ty}& atos_g = atos::balance_find(worker, atos_slots, atos_j, atos_at, atos_n);"
    ));
    for m in &members[..members.len() - 1] {
        em.raw(&format!(
            "const {} {} = atos_g.{};",
            m.ty.cuda_name(),
            m.name,
            m.name
        ));
    }
    em.raw(&format!(
        "const {loop_ty} {var} = atos_g.atos_lo + ({loop_ty})(atos_j - atos_at);"
    ));
    em.block(body);
    em.end_checked_ranges(hoisted);
    em.indent_by(-1);
    em.raw("}");
    em.raw("worker.lanes_end();");
    if share {
        em.indent_by(-1);
        em.raw("}");
        em.raw(&format!("if (atos_walk && !atos::share_end(worker, atos_board, [&]() {{ {OUT}.flush(worker); }})) return false;"));
    }
    em.indent_by(-1);
    em.raw("}");
    if share {
        em.raw("return true;");
    }
    out.push_str(&em.finish());
    out.push_str("}\n\n");
}
