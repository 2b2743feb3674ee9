//! The CUDA each example task becomes, per worker kind (reviewed snapshots; stable names,
//! no paths or hashes).

mod common;

use atos::apps::bfs::bfs;
use atos::codegen::{KernelSpec, WorkerKind};
use common::features::features;

fn spec(worker: WorkerKind, fetch: u32) -> KernelSpec {
    KernelSpec::single(worker, fetch, 256)
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

#[test]
fn features_cuda_per_worker() {
    for worker in [WorkerKind::Thread, WorkerKind::Warp, WorkerKind::Cta] {
        let src = atos::cuda_source::<features::Task>(&spec(worker, 2)).unwrap();
        insta::assert_snapshot!(format!("features_{}", worker.name()), src);
    }
}
