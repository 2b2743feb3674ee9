//! The extended balanced shape (`atos_codegen::balance`): statements, a `lanes` loop that
//! reduces, and a tail that reads the reductions. On the CPU executor the program must give
//! what its items give one by one (`common::reducing::reference`); its CUDA must run balanced
//! where a warp or CTA worker fetches several items, never share its chunks, and compile with
//! NVRTC under every strategy. `examples/gpu_suite.rs` runs the same program on a GPU.

mod common;

use atos::codegen::{KernelSpec, Strategy};
use atos::{CpuExecutor, WorkerKind};
use common::reducing::{self, fold};

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
        let misses = reducing::marks_check(400, |s, seeds| {
            CpuExecutor::new()
                .threads(4)
                .strategy(strategy)
                .run(reducing::mark::Task, s, seeds)
        })
        .unwrap_or_else(|e| panic!("{strategy:?}: {e}"));
        assert_eq!(misses, 0, "{strategy:?}");
    }
}

/// A persistent CTA unit shares `mark`'s chunks (no reduction) and runs its tail after the
/// walk, behind a barrier, on the owner only; `fold`'s chunks (reductions) are never shared.
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

/// Which specializations run the task balanced, and that none of them shares.
#[test]
fn it_runs_balanced_on_warps_and_ctas_fetching_several() {
    for (worker, fetch, balanced) in [
        (WorkerKind::Thread, 8, false),
        (WorkerKind::Warp, 1, false),
        (WorkerKind::Warp, 4, true),
        (WorkerKind::Cta, 8, true),
        (WorkerKind::Cta, 64, true),
    ] {
        let src = atos::cuda_source::<fold::Task>(&KernelSpec::single(worker, fetch, 256)).unwrap();
        assert_eq!(src.contains("fold_batch"), balanced, "{worker:?}/{fetch}");
        assert!(!src.contains("atos_fold_board"), "{worker:?}/{fetch}");
        if balanced {
            // One shared slot per reduction, combined with the operation's atomic.
            assert_eq!(
                src.matches("__shared__ ").count() - 1,
                8,
                "{worker:?}/{fetch}"
            );
            assert!(src.contains("__shared__ uint32_t atos_red4[256];  // `odd` of each item"));
        }
    }
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
}
