//! The register allocation ptxas gives the apps' kernels, pinned (NVRTC 13.0 for sm_90, as on
//! the GPU machines; no GPU needed). A small change in the device code can move ptxas between
//! two register counts with very different spills: the group wait for ring room took priority
//! SSSP's CTA kernel from 48 registers (5 blocks per SM) to 40 with 117 local instructions, and
//! up to 27% more time on an H100 (11-27% at cta/64), unnoticed until bench records carried the
//! kernel's resources (docs/results/2026-11-24h-push-registers-h100.md). A change here is a change to measure:
//! run the affected apps on a GPU before accepting the new snapshot.
//!
//! Units are compiled unchecked, as release builds run them.

mod common;

use atos::codegen::{KernelSpec, WorkerKind};
use atos::gpu::nvrtc;
use atos::{TaskSet, TaskSpec};

const HOPPER: (i32, i32) = (9, 0);

/// `name worker/fetch: registers, stack frame, spill stores / loads`, for every task of `P` on
/// one worker kind and fetch, persistent, block 256 (a spread unit when `spread`).
fn usage_line<P: TaskSet>(name: &str, worker: WorkerKind, fetch: u32, spread: bool) -> String {
    usage_line_shared::<P>(name, worker, fetch, spread, true)
}

/// The same, with shared ranges left at the unit's default or turned off (`KernelSpec::share`;
/// "noshare" in the line).
fn usage_line_shared<P: TaskSet>(
    name: &str,
    worker: WorkerKind,
    fetch: u32,
    spread: bool,
    share: bool,
) -> String {
    let irs = P::irs();
    let mut spec = KernelSpec::for_tasks(&irs)
        .checked(false)
        .multi_device(spread);
    if !share {
        spec.share = false;
    }
    spec.tasks = vec![TaskSpec { worker, fetch }; irs.len()];
    let label = format!(
        "{name} {}/{fetch}{}{}",
        worker.name(),
        if spread { " spread" } else { "" },
        if share { "" } else { " noshare" },
    );
    usage_of::<P>(&label, &spec)
}

/// `label: registers, stack frame, spill stores / loads` of `P`'s kernel under `spec`.
fn usage_of<P: TaskSet>(label: &str, spec: &KernelSpec) -> String {
    let source = atos::cuda_source::<P>(spec).unwrap();
    let kernel = spec.kernel_name(&P::irs()[0].name);
    let u = nvrtc::ptxas_usage(&source, HOPPER, &kernel).unwrap_or_else(|e| panic!("{label}: {e}"));
    format!(
        "{label}: {} registers, {} B stack, {} B spill stores, {} B spill loads",
        u.registers, u.stack_frame, u.spill_stores, u.spill_loads
    )
}

/// The split colouring as the meshes' row of the colouring table runs it (`--split-degree 8
/// --worker thread --fetch 4`): `assign` on threads fetching 4, `check` on CTAs fetching 64,
/// `assign_big` on CTAs fetching 1, nothing shared (no chunk of a mesh can post), with
/// `min_blocks` (0: ptxas allocates by need).
fn split_mesh_line(min_blocks: u32) -> String {
    use atos::apps::coloring::split;
    let irs = split::Tasks::irs();
    let mut spec = KernelSpec::for_tasks(&irs).checked(false);
    spec.share = false;
    spec.min_blocks = min_blocks;
    spec.tasks = vec![
        TaskSpec {
            worker: WorkerKind::Thread,
            fetch: 4,
        },
        TaskSpec {
            worker: WorkerKind::Cta,
            fetch: 64,
        },
        TaskSpec {
            worker: WorkerKind::Cta,
            fetch: 1,
        },
    ];
    usage_of::<split::Tasks>(
        &format!("coloring split thread/4 min blocks {min_blocks}"),
        &spec,
    )
}

/// kron:22's split colourings as `atos bench --split-degree 4096 --worker warp --fetch 8
/// --min-blocks 6` runs them: `assign` on warps fetching 8, `assign_big` on CTAs fetching 1,
/// and in `split` `check` on CTAs fetching 64 (shared, and with `--share off` not);
/// `split_fused` checks in its colour tasks. Sharing cost the split unit most of its spill;
/// with it off the unit ran 6.81 ms against 7.28 on an H100
/// (docs/results/2026-12-07h-fused-check-h100.md, call 1).
fn split_kron_lines() -> [String; 3] {
    use atos::apps::coloring::{split, split_fused};
    let spec = |irs: &[&atos::codegen::FnIr], tasks: &[(WorkerKind, u32)]| {
        let mut spec = KernelSpec::for_tasks(irs).checked(false);
        spec.min_blocks = 6;
        spec.tasks = tasks
            .iter()
            .map(|&(worker, fetch)| TaskSpec { worker, fetch })
            .collect();
        spec
    };
    let (warp, cta) = (WorkerKind::Warp, WorkerKind::Cta);
    [
        usage_of::<split::Tasks>(
            "coloring split warp/8 min blocks 6",
            &spec(&split::Tasks::irs(), &[(warp, 8), (cta, 64), (cta, 1)]),
        ),
        usage_of::<split::Tasks>("coloring split warp/8 min blocks 6 noshare", &{
            let mut s = spec(&split::Tasks::irs(), &[(warp, 8), (cta, 64), (cta, 1)]);
            s.share = false;
            s
        }),
        usage_of::<split_fused::Tasks>(
            "coloring split fused warp/8 min blocks 6",
            &spec(&split_fused::Tasks::irs(), &[(warp, 8), (cta, 1)]),
        ),
    ]
}

#[test]
fn the_apps_kernels_keep_their_register_allocation() {
    use atos::apps::*;
    if !common::nvrtc_or_skip() {
        return;
    }
    // The snapshot is ptxas 13.0's (scripts/nvrtc-env.sh pins the patch release): another
    // compiler, or line info, allocates differently.
    let version = nvrtc::nvrtc_version().unwrap();
    let lineinfo = nvrtc::lineinfo();
    if version != (13, 0) || lineinfo {
        assert!(
            !common::in_ci(),
            "CI must compile with NVRTC 13.0 and no line info (NVRTC {version:?}, line info {lineinfo})"
        );
        eprintln!("skipping: the snapshot is NVRTC 13.0's without line info; this is {version:?}");
        return;
    }
    let (thread, warp, cta) = (WorkerKind::Thread, WorkerKind::Warp, WorkerKind::Cta);
    let mut lines = vec![
        usage_line::<bfs::bfs::Task>("bfs", warp, 4, false),
        usage_line::<bfs::bfs::Task>("bfs", cta, 64, false),
        usage_line::<bfs::bfs::Task>("bfs", cta, 64, true),
        usage_line_shared::<bfs::bfs::Task>("bfs", cta, 64, false, false),
        usage_line_shared::<bfs::bfs::Task>("bfs", cta, 64, true, false),
        usage_line::<bfs_priority::visit::Task>("bfs-priority", warp, 4, false),
        usage_line::<bfs_priority::visit::Task>("bfs-priority", cta, 64, false),
        usage_line::<sssp::relax::Task>("sssp", warp, 4, false),
        usage_line::<sssp::relax::Task>("sssp", cta, 64, false),
        usage_line::<sssp::float::relax::Task>("sssp-f32", cta, 64, false),
        usage_line::<kcore::peel::Task>("kcore", cta, 8, false),
        usage_line::<pagerank::Tasks>("pagerank", cta, 8, false),
        usage_line::<pagerank::Tasks>("pagerank", cta, 64, true),
        usage_line::<pagerank_bsp::Tasks>("pagerank-bsp", cta, 8, false),
        usage_line::<coloring::Tasks>("coloring", cta, 64, false),
        // Persistent thread workers hold their check pushes (`HeldPusher`): publishing them in
        // one reservation took thread/8 from 40 to 64 registers (6 to 4 blocks per SM). Since
        // thread units stamp their rings by default (`stamps_by_default`), both are back at
        // 40 with 120 B of spill; the stamped grid colouring thread/64 still ran 4.44 ms
        // against 4.70-4.74 tiled in earlier calls (docs/results/2026-12-07d-stamped-default-h100.md
        // call 1; 2026-12-06h-inline-check-h100.md calls 3-5).
        usage_line::<coloring::Tasks>("coloring", thread, 8, false),
        usage_line::<coloring::Tasks>("coloring", thread, 64, false),
        // The colour word (`WAITING` in its top bit, 2026-12-07) moved this unit from 64
        // registers to 80 (4 to 3 blocks of 256 per SM, 528 to 396 blocks on an H100): the
        // meshes' colourings ran 3-10% slower at the default grid
        // (docs/results/2026-12-07f-colour-word-h100.md). At 4 blocks per SM it takes 64 with
        // less spill than before.
        split_mesh_line(0),
        split_mesh_line(4),
    ];
    lines.extend(split_kron_lines());
    insta::assert_snapshot!(lines.join("\n"));
}
