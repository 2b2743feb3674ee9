//! The extended balanced shape (`atos_codegen::balance`): statements, a `lanes` loop that
//! reduces, and a tail that reads the reductions. On the CPU executor the program must give
//! what its items give one by one (`common::reducing::reference`); its CUDA must run balanced
//! where a warp or CTA worker fetches several items, never share its chunks, and compile with
//! NVRTC under every strategy. `examples/gpu_suite.rs` runs the same program on a GPU.

mod common;

use atos::codegen::{KernelSpec, Strategy};
use atos::{CpuExecutor, WorkerKind};
use common::reducing::{self, fold};

/// A `mut` item the prefix assigns (the balanced batch declares it mutable, not `const`).
mod halving {
    use atos::prelude::*;

    #[atos::state]
    pub struct Halves<'a> {
        pub offsets: Slice<'a, u32>,
        pub vals: Slice<'a, i32>,
        pub out: Atomics<'a, i64>,
        pub work: Queue<'a, u32>,
    }

    /// Adds the values of vertex `v / 2` into its total: each vertex gets its sum twice.
    #[atos::task(worker = "cta", fetch = 8)]
    pub fn halve(mut v: u32, s: &Halves) {
        v /= 2;
        let lo = s.offsets[v];
        let hi = s.offsets[v + 1];
        let mut total = 0i64;
        for e in lanes(lo..hi) {
            total += s.vals[e] as i64;
        }
        s.out.fetch_add(v, total);
    }
}

#[test]
fn the_cpu_executor_gives_the_reference() {
    for strategy in [Strategy::Persistent, Strategy::Bsp] {
        for threads in [1, 4] {
            let stats = reducing::check(600, 3, |s, seeds| {
                CpuExecutor::new()
                    .threads(threads)
                    .strategy(strategy)
                    .run(fold::Task, s, seeds)
            })
            .unwrap_or_else(|e| panic!("{strategy:?} x{threads}: {e}"));
            assert_eq!(stats.popped, 1800);
        }
    }
}

#[test]
fn a_tail_reads_what_the_loop_wrote_on_the_cpu() {
    for strategy in [Strategy::Persistent, Strategy::Bsp] {
        let (misses, stats) = reducing::marks_check(400, |s, seeds| {
            CpuExecutor::new()
                .threads(4)
                .strategy(strategy)
                .run(reducing::mark::Task, s, seeds)
        })
        .unwrap_or_else(|e| panic!("{strategy:?}: {e}"));
        assert_eq!(misses, 0, "{strategy:?}");
        // The CPU executor shares no ranges (only persistent CTA groups on a GPU do), and the
        // stats line names helpers only where some ran.
        assert_eq!(stats.queue("work").unwrap().helped, 0, "{strategy:?}");
        assert!(!stats.to_string().contains("helpers"), "{stats}");
        let mut shared = stats.clone();
        shared.queues[0].helped = 7;
        assert!(
            shared
                .to_string()
                .contains(", 7 shared indices run by helpers"),
            "{shared}"
        );
    }
}

/// A persistent CTA unit shares `mark`'s chunks (no reduction) and runs its tail after the
/// walk, behind a barrier, on the owner only.
#[test]
fn a_tail_runs_after_a_shared_chunk_on_its_owner() {
    let src =
        atos::cuda_source::<reducing::mark::Task>(&KernelSpec::single(WorkerKind::Cta, 8, 256))
            .unwrap();
    let end = src.find("atos::share_end(").expect("mark shares");
    let tail = src
        .find("if (atos_count != 0 && worker.rank() < atos_n) {")
        .expect("the tail");
    assert!(end < tail, "the tail comes after the walk");
    assert!(
        src[end..tail].contains("worker.lanes_end();"),
        "a barrier before the tail"
    );
}

#[test]
fn a_mut_item_assigned_before_the_loop() {
    let (offsets, vals) = reducing::input(300);
    let out = atos::AtomicArray::<i64>::filled(300, 0);
    let state = halving::Halves {
        offsets: atos::Slice::new(&offsets),
        vals: atos::Slice::new(&vals),
        out: out.view(),
        work: atos::Queue::with_capacity(301),
    };
    let seeds: Vec<u32> = (0..300).collect();
    CpuExecutor::new()
        .threads(4)
        .run(halving::halve::Task, &state, &seeds)
        .unwrap();
    let out = out.to_vec();
    for v in 0..300usize {
        let sum: i64 = vals[offsets[v] as usize..offsets[v + 1] as usize]
            .iter()
            .map(|&x| x as i64)
            .sum();
        assert_eq!(out[v], if v < 150 { 2 * sum } else { 0 }, "vertex {v}");
    }
    let src =
        atos::cuda_source::<halving::halve::Task>(&KernelSpec::single(WorkerKind::Cta, 8, 256))
            .unwrap();
    assert!(src.contains("halve_batch"), "halve is balanced");
    assert!(
        src.contains("uint32_t v = atos_held[atos_k];")
            && !src.contains("const uint32_t v = atos_held")
    );
    if common::nvrtc_or_skip() {
        common::compile_clean(&src);
    }
}

/// A loop bound computed by a device function that pushes (it runs before the chunk's scan too).
mod bound_pushes {
    use atos::prelude::*;

    #[atos::state]
    pub struct Bounds<'a> {
        pub offsets: Slice<'a, u32>,
        pub hits: Atomics<'a, u32>,
        pub work: Queue<'a, u32>,
    }

    /// The end of `v`'s range; an even `v` below 100 also queues `v + 1`.
    #[atos::device]
    pub fn end_of(s: &Bounds, v: u32) -> u32 {
        if v % 2 == 0 && v < 100 {
            s.work.push(v + 1);
        }
        s.offsets[v + 1]
    }

    #[atos::task(worker = "cta", fetch = 8)]
    pub fn visit(v: u32, s: &Bounds) {
        let lo = s.offsets[v];
        for e in lanes(lo..end_of(s, v)) {
            s.hits.fetch_add(e, 1);
        }
    }
}

/// A batch that may push before the chunk's scan (in its prefix, or in its loop's bounds)
/// is marked `atos::pushes_first`, so its server opens each kept batch with a barrier: a CTA
/// group's kept batch otherwise starts without one (worker.cuh, `CtaWorker::BLOCK_BARRIER`),
/// and such a push could race the last flush. Batches taken from a queue need none of their
/// own (the take's barrier comes first), so the batch function has none.
#[test]
fn a_prefix_that_pushes_opens_the_batch_with_a_barrier() {
    let barrier = "atos::pushes_first([&]";
    let spec = KernelSpec::single(WorkerKind::Cta, 8, 256);
    let peel = atos::cuda_source::<atos::apps::kcore::peel::Task>(&spec).unwrap();
    assert!(
        peel.contains(barrier),
        "k-core's peel pushes before its loop"
    );
    let fold = atos::cuda_source::<fold::Task>(&spec).unwrap();
    assert!(!fold.contains(barrier), "fold's prefix pushes nothing");
    let visit = atos::cuda_source::<bound_pushes::visit::Task>(&spec).unwrap();
    assert!(visit.contains("visit_batch"), "visit is balanced");
    assert!(visit.contains(barrier), "visit's loop bound pushes");
    for src in [&peel, &visit] {
        assert!(!src.contains("worker.sync();  // before the prefix's pushes"));
    }
    if common::nvrtc_or_skip() {
        common::compile_clean(&visit);
    }
}

/// Which specializations run the task balanced, and which share: persistent CTA groups, at
/// any fetch (fetch 1 is balanced only there, where its one item may be shared, and only for a
/// loop that reduces: `mark`'s runs item by item), with the reductions on the board; warps and
/// other strategies never share.
#[test]
fn it_runs_balanced_on_warps_and_ctas_fetching_several() {
    for (worker, fetch, strategy, balanced, shared) in [
        (WorkerKind::Thread, 8, Strategy::Persistent, false, false),
        (WorkerKind::Warp, 1, Strategy::Persistent, false, false),
        (WorkerKind::Warp, 4, Strategy::Persistent, true, false),
        (WorkerKind::Cta, 1, Strategy::Persistent, true, true),
        (WorkerKind::Cta, 1, Strategy::Discrete, false, false),
        (WorkerKind::Cta, 8, Strategy::Persistent, true, true),
        (WorkerKind::Cta, 64, Strategy::Persistent, true, true),
        (WorkerKind::Cta, 64, Strategy::Bsp, true, false),
    ] {
        let mut spec = KernelSpec::single(worker, fetch, 256);
        spec.strategy = strategy;
        let src = atos::cuda_source::<fold::Task>(&spec).unwrap();
        let what = format!("{worker:?}/{fetch} {strategy:?}");
        assert_eq!(src.contains("fold_batch"), balanced, "{what}");
        assert_eq!(src.contains("atos_fold_board"), shared, "{what}");
        assert_eq!(src.contains("struct atos_fold_Red {"), shared, "{what}");
        if balanced {
            // One shared slot per reduction, combined with the operation's atomic.
            assert_eq!(
                src.matches("__shared__ uint").count() + src.matches("__shared__ int").count(),
                8,
                "{what}"
            );
            assert!(src.contains("__shared__ uint32_t atos_red4[256];  // `odd` of each item"));
        }
        if shared {
            // The board holds each reduction in its slot type, and a helper adds its parts.
            assert!(src.contains("    uint32_t r4;  // `odd`"), "{what}");
            assert!(
                src.contains("atos::shared_combine(atos::ReduceXor{}, &atos_board_red[atos_i].r4"),
                "{what}"
            );
        }
    }
    let cta1 = KernelSpec::single(WorkerKind::Cta, 1, 256);
    let mark = atos::cuda_source::<reducing::mark::Task>(&cta1).unwrap();
    assert!(
        !mark.contains("mark_batch"),
        "a loop that reduces nothing, fetching 1"
    );
    let mark8 = KernelSpec::single(WorkerKind::Cta, 8, 256);
    let mark8 = atos::cuda_source::<reducing::mark::Task>(&mark8).unwrap();
    assert!(mark8.contains("atos_mark_board"), "shared at fetch 8");
}

/// Every operation with every integer type (`common::reducing`'s per-type folds): the CPU
/// executor gives the reference, persistent and bulk-synchronous, on one and four threads.
#[test]
fn every_operation_on_every_type_gives_the_reference_on_the_cpu() {
    type Reference = fn(&[u32], &[i32]) -> Vec<i64>;
    fn each<T>(name: &str, reference: Reference)
    where
        T: for<'a> atos::TaskSet<State<'a> = reducing::Typed<'a>> + Default,
        T::First: atos::Task<Item = u32>,
    {
        for strategy in [Strategy::Persistent, Strategy::Bsp] {
            for threads in [1, 4] {
                let stats = reducing::typed_check(400, reference, |s, seeds| {
                    CpuExecutor::new().threads(threads).strategy(strategy).run(
                        T::default(),
                        s,
                        seeds,
                    )
                })
                .unwrap_or_else(|e| panic!("{name} {strategy:?} x{threads}: {e}"));
                assert_eq!(stats.popped, 400, "{name}");
            }
        }
    }
    each::<reducing::fold_u32::Task>("u32", reducing::reference_u32);
    each::<reducing::fold_i32::Task>("i32", reducing::reference_i32);
    each::<reducing::fold_u64::Task>("u64", reducing::reference_u64);
    each::<reducing::fold_i64::Task>("i64", reducing::reference_i64);
}

#[test]
fn every_strategy_compiles_with_nvrtc() {
    if !common::nvrtc_or_skip() {
        return;
    }
    for strategy in [Strategy::Persistent, Strategy::Discrete, Strategy::Bsp] {
        for (worker, fetch) in [(WorkerKind::Warp, 4), (WorkerKind::Cta, 64)] {
            let mut spec = KernelSpec::single(worker, fetch, 256);
            spec.strategy = strategy;
            let src = atos::cuda_source::<fold::Task>(&spec).unwrap();
            common::compile_clean(&src);
            let src = atos::cuda_source::<reducing::mark::Task>(&spec).unwrap();
            common::compile_clean(&src);
        }
    }
    // The per-type folds where a batch merges on the board (persistent CTA, shared) and in
    // shared memory alone (bulk-synchronous warps): every `shared_combine` instantiation.
    for (strategy, worker, fetch) in [
        (Strategy::Persistent, WorkerKind::Cta, 8),
        (Strategy::Bsp, WorkerKind::Warp, 4),
    ] {
        let mut spec = KernelSpec::single(worker, fetch, 256);
        spec.strategy = strategy;
        for src in [
            atos::cuda_source::<reducing::fold_u32::Task>(&spec),
            atos::cuda_source::<reducing::fold_i32::Task>(&spec),
            atos::cuda_source::<reducing::fold_u64::Task>(&spec),
            atos::cuda_source::<reducing::fold_i64::Task>(&spec),
        ] {
            common::compile_clean(&src.unwrap());
        }
    }
}
