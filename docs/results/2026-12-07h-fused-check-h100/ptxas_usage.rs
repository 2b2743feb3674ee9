// The CPU-side ptxas numbers of docs/results/2026-12-07h-fused-check-h100.md (NVRTC 13.0,
// sm_90, unchecked units; no GPU). Run from the repository root at commit 1229175 or later by
// copying this file to tests/ptxas_usage.rs, then:
//   export LD_LIBRARY_PATH=$(scripts/nvrtc-env.sh) ATOS_CACHE_DIR=off
//   cargo test --release --test ptxas_usage -- --nocapture | grep USAGE
// (tests/kernel_resources.rs pins the min-blocks-6 lines with shared ranges on.)
mod common;
use atos::codegen::{KernelSpec, WorkerKind};
use atos::gpu::nvrtc;
use atos::{TaskSet, TaskSpec};
fn usage<P: TaskSet>(label: &str, tasks: &[(WorkerKind, u32)], mb: u32, share: bool) {
    let irs = P::irs();
    let mut spec = KernelSpec::for_tasks(&irs).checked(false);
    spec.min_blocks = mb;
    if !share {
        spec.share = false;
    }
    spec.tasks = tasks.iter().map(|&(worker, fetch)| TaskSpec { worker, fetch }).collect();
    let source = atos::cuda_source::<P>(&spec).unwrap();
    let kernel = spec.kernel_name(&P::irs()[0].name);
    let u = nvrtc::ptxas_usage(&source, (9, 0), &kernel).unwrap();
    println!(
        "USAGE {label} min blocks {mb} share {share}: {} regs, {} B stack, {} B spill stores, {} B spill loads",
        u.registers, u.stack_frame, u.spill_stores, u.spill_loads
    );
}
#[test]
fn ptxas_usage() {
    use atos::apps::coloring::{split, split_fused};
    let (w, c) = (WorkerKind::Warp, WorkerKind::Cta);
    for mb in [0, 5, 6, 8] {
        usage::<split::Tasks>("split warp/8", &[(w, 8), (c, 64), (c, 1)], mb, true);
        usage::<split_fused::Tasks>("fused warp/8", &[(w, 8), (c, 1)], mb, true);
    }
    usage::<split::Tasks>("split warp/8", &[(w, 8), (c, 64), (c, 1)], 6, false);
}
