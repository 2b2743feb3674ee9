//! The CUDA each example task becomes, per worker kind (reviewed snapshots; stable names,
//! no paths or hashes).

mod common;

use atos::apps::bfs::bfs;
use atos::codegen::{KernelSpec, Strategy, WorkerKind};
use atos::prelude::*;
use common::features::features;

/// Unchecked (a release build's default), so the snapshots do not depend on the test profile;
/// `checked_cuda` shows the checked mode.
fn spec(worker: WorkerKind, fetch: u32) -> KernelSpec {
    KernelSpec::single(worker, fetch, 256).checked(false)
}

/// A program's own spec, unchecked.
fn unchecked<P: atos::TaskSet>() -> KernelSpec {
    atos::spec_of::<P>().checked(false)
}

/// A spread unit that `accumulate`s (PageRank's re-scan form): one `atos_deliver` serves the
/// idle sweep, the batches' drains (`atos_Out::drain`, through `st`, set before any server
/// runs) and the kernel's end; units that combine nothing get an empty drain.
#[test]
fn spread_units_that_accumulate_drain_their_copies() {
    use atos::apps::pagerank;
    let cta = unchecked::<pagerank::Tasks>()
        .worker(WorkerKind::Cta)
        .fetch(8)
        .multi_device(true);
    let spread = atos::cuda_source::<pagerank::Tasks>(&cta).unwrap();
    assert!(spread.contains("bool atos_deliver(const PageRankState& state, atos::u64 p)"));
    assert!(spread.contains(
        "atos::drain_combined(g, items, [&](atos::u64 p) { return atos_deliver(*st, p); });"
    ));
    let st = spread.find("out.st = &state;").expect("st set");
    assert!(st < spread.find("atos::queue_server").expect("a server"));
    assert!(spread.contains("atos::deliver_rest(deliver);"));
    insta::assert_snapshot!("pagerank_rescan_cta_multi_device", spread);
    let bfs =
        atos::cuda_source::<bfs::Task>(&spec(WorkerKind::Cta, 64).multi_device(true)).unwrap();
    assert!(bfs.contains("template <class G> __device__ void drain(const G&, uint32_t) {}"));
    assert!(!bfs.contains("atos_deliver"));
}

#[test]
fn bfs_cuda_per_worker() {
    for (worker, fetch) in [
        (WorkerKind::Thread, 1),
        (WorkerKind::Warp, 1),
        (WorkerKind::Cta, 64),
    ] {
        let src = atos::cuda_source::<bfs::Task>(&spec(worker, fetch)).unwrap();
        insta::assert_snapshot!(format!("bfs_{}", worker.name()), src);
    }
}

/// The load-balanced batch (a warp and a CTA worker fetching several items) and the windowed
/// kernel entry of the discrete and bulk-synchronous strategies.
#[test]
fn bfs_cuda_balanced_and_windowed() {
    let warp = atos::cuda_source::<bfs::Task>(&spec(WorkerKind::Warp, 32)).unwrap();
    insta::assert_snapshot!("bfs_warp_balanced", warp);
    let mut windowed = spec(WorkerKind::Cta, 64);
    windowed.strategy = Strategy::Discrete;
    let src = atos::cuda_source::<bfs::Task>(&windowed).unwrap();
    insta::assert_snapshot!("bfs_cta_discrete", src);
    let mut plain = spec(WorkerKind::Cta, 64);
    plain.balance = false;
    let src = atos::cuda_source::<bfs::Task>(&plain).unwrap();
    assert!(!src.contains("bfs_batch"), "balance off: items one by one");
    assert!(src.contains("atos::each_item"));
}

/// The unit for BFS spread over several GPUs: the task body is the one-GPU body (same text),
/// while the state reaches `depth` through the placement (`atos::Spread`), pushes are routed
/// (`atos::RoutedPusher`), each device serves its receive ring too, and termination sums every
/// device's rings (`atos::MeshQueues`).
#[test]
fn bfs_cuda_multi_device() {
    let one = atos::cuda_source::<bfs::Task>(&spec(WorkerKind::Cta, 64)).unwrap();
    let spread =
        atos::cuda_source::<bfs::Task>(&spec(WorkerKind::Cta, 64).multi_device(true)).unwrap();
    let body = |src: &str| {
        let at = src.find("__device__ __forceinline__ void bfs(").unwrap();
        src[at..at + src[at..].find("\n}\n").unwrap()].to_string()
    };
    assert_eq!(body(&one), body(&spread), "the task body does not change");
    // CTA groups stage remote pushes beside local ones (one reservation per destination and
    // batch); warp groups reserve per warp, with no stage.
    assert!(spread.contains("atos::RemoteStage<uint32_t, 1024, 0>::make()"));
    let warp =
        atos::cuda_source::<bfs::Task>(&spec(WorkerKind::Warp, 64).multi_device(true)).unwrap();
    assert!(warp.contains("atos::RoutedPusher<uint32_t, atos::DirectPusher<uint32_t>>"));
    assert!(!warp.contains("RemoteStage"));
    insta::assert_snapshot!("bfs_cta_multi_device", spread);
}

/// Owner-computes BFS: `relax` is an inline task. On one device every push to `relax` runs it
/// at once (no push into the ring); spread, only an item this device owns does, the others are
/// routed. Each thread's count of inline runs reaches the queue's `inlined` word at the end.
#[test]
fn bfs_owner_inline_cuda() {
    use atos::apps::bfs_owner;
    let one = atos::cuda_source::<bfs_owner::Tasks>(&unchecked::<bfs_owner::Tasks>()).unwrap();
    assert!(one.contains("relax(atos_pushed, s, atos::ThreadWorker::make(), atos_out);"));
    assert!(
        !one.contains("atos_out.relax.push("),
        "one device: never queued"
    );
    assert!(one.contains("atos::count_inlined(state.relax.counters, out.atos_inlined_relax);"));
    let cta = unchecked::<bfs_owner::Tasks>()
        .worker(WorkerKind::Cta)
        .fetch(64)
        .multi_device(true);
    let spread = atos::cuda_source::<bfs_owner::Tasks>(&cta).unwrap();
    assert!(spread.contains("if (atos_out.relax.owns(atos_pushed))"));
    assert!(
        spread.contains("void relax__inline("),
        "a thread copy of the CTA task"
    );
    insta::assert_snapshot!("bfs_owner_cta_multi_device", spread);
    // A discrete launch runs what the last one pushed: nothing inline.
    let discrete = atos::cuda_source::<bfs_owner::Tasks>(
        &unchecked::<bfs_owner::Tasks>().strategy(Strategy::Discrete),
    )
    .unwrap();
    assert!(!discrete.contains("atos_pushed") && discrete.contains("atos_out.relax.push("));
}

/// The one-line ways to see a task's CUDA without a GPU.
#[test]
fn cuda_of_a_task_in_one_line() {
    let own = atos::cuda::<bfs::Task>().unwrap();
    assert!(
        own.contains("`bfs` (warp, fetch 1)"),
        "the task's own attributes"
    );
    let cta = atos::cuda_source::<bfs::Task>(
        &unchecked::<bfs::Task>()
            .worker(WorkerKind::Cta)
            .fetch(64)
            .strategy(Strategy::Bsp),
    )
    .unwrap();
    assert!(cta.contains("`bfs` (cta, fetch 64); block = 256, strategy = bsp"));
    assert_eq!(
        cta,
        atos::cuda_source::<bfs::Task>(&{
            let mut s = spec(WorkerKind::Cta, 64);
            s.strategy = Strategy::Bsp;
            s
        })
        .unwrap()
    );
}

#[test]
fn features_cuda_per_worker() {
    for worker in [WorkerKind::Thread, WorkerKind::Warp, WorkerKind::Cta] {
        let src = atos::cuda_source::<features::Task>(&spec(worker, 2)).unwrap();
        insta::assert_snapshot!(format!("features_{}", worker.name()), src);
    }
}

/// The feature task's loop that only reads runs its body 4 strides a trip on every worker, both
/// its indices checked in the loop without a branch; its `u8` and `u16` loops count in 32 bits
/// (a CTA's stride of 256 is 0 as a u8); checked, the loop that only reads stays plain.
#[test]
fn feature_loops_take_their_forms() {
    for worker in [WorkerKind::Thread, WorkerKind::Warp, WorkerKind::Cta] {
        let src = atos::cuda_source::<features::Task>(&spec(worker, 2)).unwrap();
        assert_eq!(src.matches("atos::index_quiet(").count(), 2, "{worker:?}");
        assert_eq!(src.matches("_body(").count(), 5, "{worker:?}");
        // The u8 and u16 loops: a 32-bit counter, stepped by the worker's size uncast.
        let narrow = src
            .lines()
            .filter(|l| {
                l.trim_start().starts_with("for (uint32_t atos_at")
                    && l.contains("+= worker.size())")
            })
            .count();
        assert_eq!(narrow, 2, "{worker:?}");
        let checked = atos::cuda_source::<features::Task>(&spec(worker, 2).checked(true)).unwrap();
        assert!(!checked.contains("index_quiet") && !checked.contains("_body("));
    }
}

/// Multi-task programs: the kernel that serves two queues (colour + conflict check, a warp
/// task and a CTA task in CTA groups) and the one with an idle hook.
#[test]
fn program_cuda() {
    use common::programs::{check, color, rescan, spread};
    let src =
        atos::cuda_source::<(color::Task, check::Task)>(&unchecked::<(color::Task, check::Task)>())
            .unwrap();
    insta::assert_snapshot!("program_colour_check", src);
    let src = atos::cuda_source::<(spread::Task, rescan::Task)>(&unchecked::<(
        spread::Task,
        rescan::Task,
    )>())
    .unwrap();
    insta::assert_snapshot!("program_residual_idle", src);
    let mut bsp = unchecked::<(spread::Task, rescan::Task)>();
    bsp.strategy = Strategy::Bsp;
    let src = atos::cuda_source::<(spread::Task, rescan::Task)>(&bsp).unwrap();
    insta::assert_snapshot!("program_residual_idle_bsp", src);
}

/// The PageRank and colouring apps: async PageRank with its idle re-scan, BSP PageRank's
/// advance and filter as the BSP kernel, and colouring's assign (a reduction in a loop) and
/// check.
#[test]
fn apps_cuda() {
    use atos::apps::{coloring, pagerank, pagerank_bsp};
    let src = atos::cuda_source::<pagerank::Tasks>(&unchecked::<pagerank::Tasks>()).unwrap();
    insta::assert_snapshot!("app_pagerank_async", src);
    let mut bsp = unchecked::<pagerank_bsp::Tasks>();
    bsp.strategy = Strategy::Bsp;
    let src = atos::cuda_source::<pagerank_bsp::Tasks>(&bsp).unwrap();
    insta::assert_snapshot!("app_pagerank_bsp", src);
    let src = atos::cuda_source::<coloring::Tasks>(&unchecked::<coloring::Tasks>()).unwrap();
    insta::assert_snapshot!("app_coloring", src);
    // On thread workers each thread holds its batch's check pushes and fences once for them.
    let thread = unchecked::<coloring::Tasks>()
        .worker(WorkerKind::Thread)
        .fetch(64);
    let src = atos::cuda_source::<coloring::Tasks>(&thread).unwrap();
    insta::assert_snapshot!("app_coloring_thread", src);
    // With `check` inline, a persistent thread holds its batch's checks and runs them when the
    // batch ends, after its one fence (`atos::InlineHold`); what they push with a fence owed is
    // settled again before the channels publish. (On threads already: no `check__inline` copy.)
    let inline = unchecked::<coloring::inline_check::Tasks>()
        .worker(WorkerKind::Thread)
        .fetch(64);
    let src = atos::cuda_source::<coloring::inline_check::Tasks>(&inline).unwrap();
    let at = src.find("void assign(").expect("assign is emitted");
    let body = &src[at..at + src[at..].find("\n}\n").expect("assign ends")];
    assert!(
        body.contains("atos_out.debt.owe()")
            && body.contains("atos_out.atos_hold_check(v)")
            && !body.contains("fence_seq_cst")
            && !body.contains("check(atos_pushed"),
        "{body}"
    );
    assert!(
        src.contains("void flush(const G& g) { settle(g); atos_run_check(); settle(g); work.flush(g); check.flush(g); }")
            && src.contains("out.st = &state;")
            && !src.contains("check__inline"),
        "{src}"
    );
    // A full hold fences before it runs what it holds.
    let hold = &src[src
        .find("void atos_Out::atos_hold_check")
        .expect("the hold is defined")..];
    let fence = hold
        .find("atos::fence_seq_cst();")
        .expect("a full hold fences");
    assert!(fence < hold.find("atos_run_check();").unwrap(), "{hold}");
    // Discrete launches queue the checks: nothing runs inline, nothing is held.
    let mut discrete = inline.clone();
    discrete.strategy = atos::codegen::Strategy::Discrete;
    let src_d = atos::cuda_source::<coloring::inline_check::Tasks>(&discrete).unwrap();
    assert!(
        !src_d.contains("InlineHold") && !src_d.contains("check(atos_pushed"),
        "discrete runs no inline task (its items stay queued)"
    );
    insta::assert_snapshot!("app_coloring_inline_check_thread", src);
    // `split`'s `assign_big` (a CTA each) passes over tied colours: on a re-colouring with a
    // cap, a pass of its own counts the tied rivals (a sum across the lanes), and the window's
    // choice skips up to `tie_skip` free colours; the other colour tasks are first fit alone.
    let split = unchecked::<coloring::split::Tasks>();
    let src = atos::cuda_source::<coloring::split::Tasks>(&split).unwrap();
    let function = |name: &str| {
        let at = src.find(&format!("void {name}(")).expect("emitted");
        &src[at..at + src[at..].find("\n}\n").expect("ends") + 3]
    };
    assert!(!function("assign").contains("tie_skip"));
    insta::assert_snapshot!("app_coloring_split_assign_big", function("assign_big"));
    // `split_fused`'s warp `assign`: the store, then (a vertex with edges) the leader's fence
    // and the warp's barrier before the check's loop reads colours; no check queue.
    // So does its CTA `assign_big` (a block barrier), and so do discrete and bulk-synchronous
    // units: reads follow the fence, so no strategy defers or elides it.
    let fused = unchecked::<coloring::split_fused::Tasks>();
    for strategy in [Strategy::Persistent, Strategy::Discrete, Strategy::Bsp] {
        let spec = fused.clone().strategy(strategy);
        let src = atos::cuda_source::<coloring::split_fused::Tasks>(&spec).unwrap();
        assert!(!src.contains("atos_out.check"), "{strategy:?}");
        for name in ["assign", "assign_big"] {
            let at = src.find(&format!("void {name}(")).expect("emitted");
            let f = &src[at..at + src[at..].find("\n}\n").expect("ends") + 3];
            let fence = f
                .find("atos::fence_seq_cst(); });")
                .expect("fenced per task");
            let sync = f[fence..].find("worker.sync();").expect("joined") + fence;
            assert!(
                sync < f.find("fetch_or").unwrap(),
                "{strategy:?} {name}: {f}"
            );
            assert!(
                !f.contains("debt.owe") && !f.contains("elided"),
                "{strategy:?} {f}"
            );
            if name == "assign" && strategy == Strategy::Persistent {
                insta::assert_snapshot!("app_coloring_split_fused_assign", f);
            }
        }
    }
}

/// `hub_windows`' `assign_big` (CTA, fetch 1, a loop that ORs into `taken`) runs balanced and
/// shares its chunk although its loop reduces: a helper starts its slots at the identity and
/// adds them to the board's `red` before it counts its grabs finished; the owner takes them
/// into its own slots in `share_end` before its tail reads `taken`. Without sharing (bsp) the
/// same loop reduces in the block alone.
#[test]
fn shared_reduction_batch() {
    use atos::apps::coloring::hub_windows;
    let spec = unchecked::<hub_windows::Tasks>();
    let src = atos::cuda_source::<hub_windows::Tasks>(&spec).unwrap();
    assert!(src.contains("struct atos_assign_big_Red {"));
    assert!(src.contains(
        "__device__ atos::ShareBoard<atos_assign_big_Frame, 256, ATOS_SHARE_SLOTS, atos_assign_big_Red> atos_assign_big_board;"
    ));
    // `check` shares too, and reduces nothing.
    assert!(src.contains("ATOS_SHARE_SLOTS, atos::NoReductions> atos_check_board;"));
    let at = src
        .find("bool assign_big_batch(")
        .expect("balanced and shared");
    let batch = &src[at..at + src[at..].find("\n}\n").expect("ends") + 3];
    let helper_init = batch
        .find("if (atos_count == 0) {")
        .expect("helper slots start");
    let walk = batch.find("while (atos_walk").unwrap();
    assert!(helper_init < walk);
    assert!(batch.contains("atos::shared_combine(atos::ReduceOr{}, &atos_board_red[atos_i].r0"));
    assert!(batch.contains("atos::share_read(&atos_board_red[atos_i].r0)"));
    insta::assert_snapshot!("app_coloring_hub_windows_assign_big_batch", batch);
    let mut bsp = spec.clone();
    bsp.strategy = Strategy::Bsp;
    let src = atos::cuda_source::<hub_windows::Tasks>(&bsp).unwrap();
    assert!(!src.contains("atos_assign_big_Red") && !src.contains("ShareBoard"));
}

/// Colouring's `assign` ends `store; fence; push`, and each strategy handles that fence its own
/// way (atos-codegen `TrailingFence`): persistent warp groups fence where it is written, CTA
/// groups and persistent thread groups owe it and fence once per batch, discrete thread groups
/// fence per task, and bulk-synchronous units emit none (the check runs in the next level).
#[test]
fn colouring_fence_per_strategy() {
    use atos::apps::coloring;
    use atos::codegen::Strategy;
    // The `assign` function's text, and whether the unit carries a fence debt.
    let assign = |worker: WorkerKind, strategy: Strategy| {
        let mut spec = unchecked::<coloring::Tasks>().worker(worker).fetch(8);
        spec.strategy = strategy;
        let src = atos::cuda_source::<coloring::Tasks>(&spec).unwrap();
        let at = src.find("void assign(").expect("assign is emitted");
        let end = at + src[at..].find("\n}\n").expect("assign ends");
        (src[at..end].to_string(), src.contains("FenceDebt debt;"))
    };
    let in_place = "worker.leader_only([&]() { atos::fence_seq_cst(); });";
    let owed = "atos_out.debt.owe()";
    for worker in [WorkerKind::Thread, WorkerKind::Warp, WorkerKind::Cta] {
        let (body, debt) = assign(worker, Strategy::Bsp);
        assert!(
            !body.contains("fence_seq_cst") && !body.contains(owed) && !debt,
            "{worker:?} bsp still fences:\n{body}"
        );
        assert!(body.contains("atos::fence() elided"), "{body}");
        assert!(body.contains("atos_out.check.push(v)"), "{body}");
    }
    let (body, debt) = assign(WorkerKind::Warp, Strategy::Persistent);
    assert!(body.contains(in_place) && !debt, "{body}");
    let (body, debt) = assign(WorkerKind::Thread, Strategy::Discrete);
    assert!(body.contains(in_place) && !debt, "{body}");
    for worker in [WorkerKind::Thread, WorkerKind::Cta] {
        let (body, debt) = assign(worker, Strategy::Persistent);
        assert!(
            body.contains(owed) && body.contains("push_fenced") && debt,
            "{body}"
        );
    }
    let (body, _) = assign(WorkerKind::Cta, Strategy::Discrete);
    assert!(body.contains(owed), "{body}");
}

/// A balanced task (a `lanes` loop that reduces, then a tail) whose tail ends `store; fence;
/// push`: its batch function (`atos_codegen::balance`) handles the fence as the task run item
/// by item does. Code generation only: each item pushes another forever.
mod fenced_sum {
    use atos::prelude::*;

    #[atos::state]
    pub struct Sums<'a> {
        pub offsets: Slice<'a, u32>,
        pub vals: Slice<'a, i32>,
        pub out: Atomics<'a, i64>,
        pub work: Queue<'a, u32>,
    }

    #[atos::task(worker = "cta", fetch = 8)]
    pub fn sum(v: u32, s: &Sums) {
        let lo = s.offsets[v];
        let hi = s.offsets[v + 1];
        let mut total = 0i64;
        for e in lanes(lo..hi) {
            total += s.vals[e] as i64;
        }
        s.out.store(v, total);
        atos::fence();
        s.work.push(v / 2);
    }
}

#[test]
fn balanced_batches_handle_the_trailing_fence_per_strategy() {
    use fenced_sum::sum;
    let batch = |worker: WorkerKind, strategy: Strategy| {
        let mut spec = spec(worker, 8);
        spec.strategy = strategy;
        let src = atos::cuda_source::<sum::Task>(&spec).unwrap();
        let at = src.find("sum_batch(").expect("the task runs balanced");
        let end = at + src[at..].find("\n}\n").expect("the batch function ends");
        src[at..end].to_string()
    };
    for worker in [WorkerKind::Warp, WorkerKind::Cta] {
        let body = batch(worker, Strategy::Bsp);
        assert!(
            body.contains("atos::fence() elided")
                && !body.contains("fence_seq_cst")
                && !body.contains("debt.owe()")
                && body.contains("atos_out.work.push("),
            "{worker:?} bsp:\n{body}"
        );
    }
    let body = batch(WorkerKind::Cta, Strategy::Persistent);
    assert!(
        body.contains("debt.owe()") && body.contains("atos_out.work.push_fenced("),
        "cta persistent:\n{body}"
    );
    let body = batch(WorkerKind::Warp, Strategy::Discrete);
    assert!(
        body.contains("fence_seq_cst") && !body.contains("elided"),
        "warp discrete:\n{body}"
    );
}

/// Both PageRank vertex tasks and SSSP's relax keep the balanced shape: a CTA worker fetching 64 vertices lays
/// their edges over all its threads (what degree-4 grids need), not one vertex after another.
#[test]
fn app_vertex_tasks_are_balanced() {
    use atos::apps::{pagerank, pagerank_bsp};
    let mut spec = unchecked::<pagerank::Tasks>();
    spec.tasks[0].worker = WorkerKind::Cta;
    spec.tasks[0].fetch = 64;
    let src = atos::cuda_source::<pagerank::Tasks>(&spec).unwrap();
    assert!(src.contains("push_rank_batch"), "push_rank is not balanced");
    let mut spec = unchecked::<pagerank_bsp::Tasks>();
    spec.tasks[0].worker = WorkerKind::Cta;
    spec.tasks[0].fetch = 64;
    let src = atos::cuda_source::<pagerank_bsp::Tasks>(&spec).unwrap();
    assert!(src.contains("advance_batch"), "advance is not balanced");
    use atos::apps::sssp::relax;
    let src =
        atos::cuda_source::<relax::Task>(&KernelSpec::single(WorkerKind::Cta, 64, 256)).unwrap();
    assert!(src.contains("relax_batch"), "SSSP's relax is not balanced");
}

/// The extended balanced shape in an app: k-core's `peel` (statements before its `lanes` loop,
/// among them an `if` that pushes) runs balanced on a CTA fetching 8, its prefix per item on
/// the item's thread; its loop reduces nothing, so a persistent CTA group shares its long
/// chunks, and `peel` has no tail to run after them (a loop that reduces does not share:
/// `tests/balanced_reductions.rs`).
#[test]
fn app_kcore_balanced_with_statements_before_the_loop() {
    use atos::apps::kcore;
    let spec = unchecked::<kcore::peel::Task>()
        .worker(WorkerKind::Cta)
        .fetch(8);
    let src = atos::cuda_source::<kcore::peel::Task>(&spec).unwrap();
    assert!(src.contains("peel_batch"), "peel is not balanced");
    assert!(src.contains("atos_peel_board"), "peel shares its chunks");
    insta::assert_snapshot!("app_kcore_cta8", src);
}

/// Tuple items: the generated struct, a destructured item in the balanced batch (N-Queens on a
/// warp fetching 4) and a whole item read by index and pushed whole (two queues of one tuple
/// type: one struct).
#[test]
fn tuple_item_cuda() {
    use common::tuples::{count_down, echo, place};
    let src = atos::cuda_source::<place::Task>(&unchecked::<place::Task>()).unwrap();
    assert!(
        src.contains("place_batch"),
        "the balanced shape with a tuple item"
    );
    insta::assert_snapshot!("tuple_queens_warp_balanced", src);
    let src = atos::cuda_source::<(count_down::Task, echo::Task)>(&unchecked::<(
        count_down::Task,
        echo::Task,
    )>())
    .unwrap();
    assert_eq!(src.matches("struct alignas(8) atos_tuple_").count(), 1);
    insta::assert_snapshot!("tuple_mixed_whole_item", src);
}

/// Checked mode: overflow-checked arithmetic, bounds-checked indices, each with its site (the
/// function's number, the Rust line, the fault); division faults in both modes.
#[test]
fn checked_cuda() {
    use atos::codegen::faults::{Fault, decode, fault_functions, site};
    use common::faults::{faulty, line_of};
    let checked =
        atos::cuda_source::<faulty::Task>(&unchecked::<faulty::Task>().checked(true)).unwrap();
    insta::assert_snapshot!("faulty_checked", checked);
    let irs = <faulty::Task as atos::TaskSet>::irs();
    let names = fault_functions(&irs, &[]);
    // Sites hold the line as an offset from the `fn` line.
    let offset = |marker| line_of(marker) - names[0].line;
    for (marker, fault) in [
        ("mul", Fault::MulOverflow),
        ("index", Fault::IndexOutOfBounds),
        ("div", Fault::DivByZero),
    ] {
        let word = site(0, offset(marker), fault);
        assert!(checked.contains(&format!("{word}ull")), "{marker}");
        assert_eq!(decode(word, &names).unwrap().line, line_of(marker));
    }
    let plain = atos::cuda_source::<faulty::Task>(&unchecked::<faulty::Task>()).unwrap();
    assert!(!plain.contains("checked_") && !plain.contains("atos::at("));
    let div = site(0, offset("div"), Fault::DivByZero);
    assert!(
        plain.contains(&format!("{div}ull")),
        "division is checked in both modes"
    );
    // Unchecked, the two `lanes` loops that only read (modes 8 and 9) run as bodies 4 strides a
    // trip, mode 9's index checked without a branch and reported after the loop; checked, their
    // arithmetic faults, so they stay plain loops.
    let quiet = site(0, offset("quiet"), Fault::IndexOutOfBounds);
    assert!(plain.contains(&format!(
        "index_quiet((v + ((uint32_t)(e_1 & 1u))), s.vals_len, {quiet}ull, atos_lanes"
    )));
    assert_eq!(
        plain.matches("_body(").count(),
        2 * 5,
        "two loops, each body run 5 times"
    );
    assert_eq!(plain.matches("atos::index_quiet(").count(), 1);
    assert!(!checked.contains("index_quiet") && !checked.contains("_body("));
}

/// A `lanes` loop that pushes or runs an atomic other than `load` keeps the plain loop (the
/// faults of its effects are reported where they happen): BFS's relaxations, PageRank's adds.
#[test]
fn loops_with_effects_stay_plain() {
    use atos::apps::{bfs::bfs, pagerank};
    for src in [
        atos::cuda_source::<bfs::Task>(&unchecked::<bfs::Task>()).unwrap(),
        atos::cuda_source::<pagerank::Tasks>(&unchecked::<pagerank::Tasks>()).unwrap(),
    ] {
        assert!(src.contains("for (") && !src.contains("index_quiet") && !src.contains("_body("));
    }
}

/// A priority queue (SSSP): the keys struct, a state field of three rings, a channel choosing
/// between them, the pass over the far ring and, persistent, one server for the three rings
/// (the near ring's server runs the next ring's open items) and the advance; windowed, the pass server sits
/// at the far ring's queue index (1) and the next ring (2), never pushed to, has none. Persistent
/// CTA groups park a batch (64 items) of their next-ring pushes; warp groups, `keep(false)` and
/// `park(false)` do not.
#[test]
fn priority_queue_cuda() {
    use atos::apps::sssp::relax;
    let spec = KernelSpec::single(WorkerKind::Cta, 64, 256).checked(false);
    let src = atos::cuda_source::<relax::Task>(&spec).unwrap();
    for needle in [
        "struct atos_keys_work {",
        "atos::PriorityRef<atos_keys_work> work;",
        "atos::PriorityPusher<atos_keys_work,",
        "atos::split_batch(state.work, out.work)",
        "atos::priority_server(state.work, serve0, pass0, &out.work.park)",
        "atos::Park<atos_tuple_u32_u32, 64, 2>::make()",
        "atos::QueueSet<3> queues = {{state.work.near.counters, state.work.far.counters, state.work.next.counters}}",
    ] {
        assert!(src.contains(needle), "missing `{needle}`");
    }
    insta::assert_snapshot!("sssp_priority_cta", src);
    for unparked in [
        KernelSpec {
            keep: false,
            ..spec.clone()
        },
        KernelSpec {
            park: false,
            ..spec.clone()
        },
        KernelSpec::single(WorkerKind::Warp, 64, 256),
    ] {
        let src = atos::cuda_source::<relax::Task>(&unparked).unwrap();
        assert!(
            src.contains(
                "atos::priority_server(state.work, serve0, pass0, (const atos::NoPark*)nullptr)"
            ) && !src.contains("atos::Park<"),
            "{src}"
        );
    }
    let src = atos::cuda_source::<relax::Task>(&spec.strategy(Strategy::Bsp)).unwrap();
    assert!(
        src.contains("atos::run_window(group, out, window, idle, serve0, pass0, no_server)"),
        "{src}"
    );
}

#[atos::state]
pub struct Ranged<'a> {
    pub vals: Slice<'a, u32>,
    pub out: Atomics<'a, u32>,
    pub work: Queue<'a, u32>,
}

/// Three lanes loops over `vals`: only the first, whose body starts with `let a =
/// s.vals[e];`, has its index checked once for the range.
#[atos::task(worker = "warp")]
pub fn ranged(v: u32, s: &Ranged) {
    for e in lanes(0..v) {
        let a = s.vals[e];
        s.out.store(e, a);
    }
    // Conditional: Rust would not index when the branch is not taken.
    for e in lanes(0..v) {
        if e > 2 {
            let b = s.vals[e];
            s.out.store(e, b);
        }
    }
    // After a statement that can fault first (a division by zero when v wraps).
    for e in lanes(0..v) {
        let c = 10 / (e + 1);
        let d = s.vals[e];
        s.out.store(e, c + d);
    }
    // A renamed loop variable (`e_3` in C++), and a shadowing `e` in the body: the leading
    // index is checked once, the shadowed one per element.
    for e in lanes(1..v) {
        let f = s.vals[e];
        let e = f % 4;
        s.out.store(e, s.vals[e]);
    }
}

/// A lanes loop's leading `let x = s.field[var];` is checked once per range
/// (`atos::index_range`); an index under a branch, or after a statement that may fault
/// first, keeps its per-element check, so the GPU never faults where Rust would not.
#[test]
fn leading_lanes_indices_are_checked_once_per_range() {
    let src = atos::cuda_source::<ranged::Task>(&spec(WorkerKind::Warp, 1)).unwrap();
    assert_eq!(src.matches("atos::index_range(").count(), 2, "{src}");
    assert!(
        src.contains("s.vals[e];") && src.contains("s.vals[e_3];"),
        "{src}"
    );
    // The branch's, the one after the division, and the shadowing `e`'s.
    assert_eq!(src.matches("s.vals[atos::index(e_").count(), 3, "{src}");
}

/// Spread units without an idle hook count `done` once per `SPREAD_DONE_BATCHES` batches; units
/// with a hook, and one-device units, count every batch (the header's default).
#[test]
fn spread_units_without_an_idle_hook_batch_their_done_counts() {
    use atos::apps::{bfs::bfs, pagerank};
    let define = format!(
        "#define ATOS_DONE_BATCHES {}u",
        atos::codegen::unit::SPREAD_DONE_BATCHES
    );
    let spread = |mut spec: KernelSpec| {
        spec.multi_device = true;
        spec
    };
    let bfs_spread = atos::cuda_source::<bfs::Task>(&spread(unchecked::<bfs::Task>())).unwrap();
    assert!(bfs_spread.contains(&define), "{bfs_spread}");
    let bfs_one = atos::cuda_source::<bfs::Task>(&unchecked::<bfs::Task>()).unwrap();
    assert!(!bfs_one.contains("ATOS_DONE_BATCHES"), "{bfs_one}");
    let pr = atos::cuda_source::<pagerank::Tasks>(&spread(unchecked::<pagerank::Tasks>())).unwrap();
    assert!(
        !pr.contains("ATOS_DONE_BATCHES"),
        "PageRank has an idle hook:\n{pr}"
    );
}

/// Shared ranges (docs/runtime.md): a persistent CTA unit of the balanced shape gets its
/// task's board and the share walk, one copy of the task body, and a batch function that helps
/// when called with no items; warp workers and windowed strategies do not; a program with an
/// idle hook (PageRank's re-scan) has it off by default, and `share(false)` takes it out.
#[test]
fn persistent_cta_units_share_large_chunks() {
    use atos::apps::pagerank;
    let cta = atos::cuda_source::<bfs::Task>(&spec(WorkerKind::Cta, 64)).unwrap();
    assert!(cta.contains(
        "__device__ atos::ShareBoard<atos_bfs_Frame, 256, ATOS_SHARE_SLOTS, atos::NoReductions> atos_bfs_board;"
    ));
    assert!(cta.contains("atos::share_begin(worker, atos_board"));
    assert!(cta.contains("return bfs_batch(held, count, state, worker0, out, &atos_bfs_board);"));
    assert!(cta.contains("__launch_bounds__(256, 8)"));
    assert_eq!(
        cta.matches("atos::atomic_lower(").count(),
        2,
        "the plain task and one copy in the batch"
    );
    for other in [
        spec(WorkerKind::Warp, 64),
        spec(WorkerKind::Cta, 64).strategy(Strategy::Discrete),
        KernelSpec {
            share: false,
            ..spec(WorkerKind::Cta, 64)
        },
    ] {
        let src = atos::cuda_source::<bfs::Task>(&other).unwrap();
        assert!(!src.contains("ShareBoard"), "{other:?}");
    }
    assert!(atos::spec_of::<bfs::Task>().share);
    assert!(!atos::spec_of::<pagerank::Tasks>().share);
}

/// One task, one `lanes` loop per form: only the loop whose body only reads, over `u32`
/// indices, takes the 4-stride form (`emit.rs`, `reads_only`); a division, a remainder, a call,
/// `continue`, a store, an atomic other than `load`, an inner loop or `i32` indices keep the
/// plain loop.
mod loop_forms {
    use atos::prelude::*;

    #[atos::state]
    pub struct LoopForms<'a> {
        pub vals: Slice<'a, u32>,
        pub out: Atomics<'a, u32>,
        pub work: Queue<'a, u32>,
    }

    #[atos::device]
    fn twice(x: u32) -> u32 {
        x * 2
    }

    #[atos::task(worker = "warp")]
    pub fn forms(v: u32, s: &LoopForms) {
        let mut a = 0u32;
        for i in lanes(0..v) {
            a += s.vals[i & 7];
        }
        let mut b = 0u32;
        for i in lanes(0..v) {
            b += s.vals[i & 7] / 3;
        }
        let mut c = 0u32;
        for i in lanes(0..v) {
            c += s.vals[i % 8];
        }
        let mut d = 0u32;
        for i in lanes(0..v) {
            d += twice(s.vals[i & 7]);
        }
        let mut e = 0u32;
        for i in lanes(0..v) {
            if i == 3 {
                continue;
            }
            e += s.vals[i & 7];
        }
        for i in lanes(0..v) {
            s.out.store(i & 7, 1);
        }
        let mut f = 0u32;
        for i in lanes(0..v) {
            f += s.out.fetch_add(i & 7, 0);
        }
        let mut g = 0u32;
        for i in lanes(0..v) {
            for j in 0..2u32 {
                g += s.vals[(i + j) & 7];
            }
        }
        let mut h = 0u32;
        for i in lanes(0..v as i32) {
            h += s.vals[(i & 7) as u32];
        }
        s.out.store(v & 7, a + b + c + d + e + f + g + h);
    }
}

#[test]
fn only_loops_that_only_read_take_the_four_stride_form() {
    for worker in [WorkerKind::Thread, WorkerKind::Warp, WorkerKind::Cta] {
        let src = atos::cuda_source::<loop_forms::forms::Task>(&spec(worker, 1)).unwrap();
        assert_eq!(
            src.matches("_body(").count(),
            5,
            "{worker:?}: one loop, 5 calls"
        );
        assert_eq!(src.matches("atos::index_quiet(").count(), 1, "{worker:?}");
        common::compile_clean(&src);
    }
}

/// `gpu_suite`'s store-buffering control cuts a persistent thread unit's fences by replacing
/// `debt.settle(g);` and `atos::fence_seq_cst();` in the generated unit: each occurs once (the
/// thread's owed fence, the full hold's fence), at every fetch the section runs, checked or
/// not, and the unit holds its inline reads. Then the control's patch leaves no fence behind.
#[test]
fn the_store_buffering_controls_fences_are_the_units_only_ones() {
    use common::programs::StoreBufferTasks;
    for fetch in [64, 8, 1] {
        for checked in [false, true] {
            let spec = unchecked::<StoreBufferTasks>()
                .fetch(fetch)
                .checked(checked);
            let src = atos::cuda_source::<StoreBufferTasks>(&spec).unwrap();
            for cut in ["debt.settle(g);", "atos::fence_seq_cst();"] {
                assert_eq!(src.matches(cut).count(), 1, "fetch {fetch}: {cut}\n{src}");
            }
            assert!(
                src.contains("atos::InlineHold<"),
                "fetch {fetch}: reads held"
            );
        }
    }
}
