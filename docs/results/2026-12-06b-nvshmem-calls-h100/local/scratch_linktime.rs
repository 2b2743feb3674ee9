mod common;
use atos::codegen::{KernelSpec, WorkerKind};
use atos::gpu::nvrtc;
use atos::gpu::nvshmem::{Install, remote_calls_source};
use nvshmem_sys::DeviceLinker;
use std::time::Instant;

#[test]
fn time_link() {
    let install = Install::locate().unwrap();
    let irs = <atos::apps::bfs::bfs::Task as atos::TaskSet>::irs();
    let mut spec = KernelSpec::for_tasks(&irs).multi_device(true).checked(false);
    spec.tasks = vec![atos::TaskSpec { worker: WorkerKind::Cta, fetch: 64 }; irs.len()];
    let source = atos::cuda_source::<atos::apps::bfs::bfs::Task>(&spec).unwrap();
    let t = Instant::now();
    let _ = nvrtc::compile_cubin_with(&source, (9, 0), None).unwrap();
    eprintln!("plain spread cubin {:?}", t.elapsed());
    let calls = remote_calls_source(&source);
    let t = Instant::now();
    let (ltoir, _) = nvrtc::compile_ltoir(&calls, (9, 0), &install.nvrtc_options()).unwrap();
    eprintln!("ltoir {:?} ({} bytes)", t.elapsed(), ltoir.len());
    let t = Instant::now();
    let cubin = DeviceLinker::load().unwrap().link(&install, &ltoir, 90, &nvrtc::link_options()).unwrap();
    eprintln!("link {:?} ({} bytes)", t.elapsed(), cubin.len());
}

#[test]
fn time_rdc() {
    let install = Install::locate().unwrap();
    let irs = <atos::apps::bfs::bfs::Task as atos::TaskSet>::irs();
    let mut spec = KernelSpec::for_tasks(&irs).multi_device(true).checked(false);
    spec.tasks = vec![atos::TaskSpec { worker: WorkerKind::Cta, fetch: 64 }; irs.len()];
    let source = atos::cuda_source::<atos::apps::bfs::bfs::Task>(&spec).unwrap();
    let calls = remote_calls_source(&source);
    let t = Instant::now();
    let (cubin, _) = nvrtc::zz_compile_rdc_cubin(&calls, (9, 0), &install.nvrtc_options()).unwrap();
    eprintln!("rdc cubin {:?} ({} bytes)", t.elapsed(), cubin.len());
    let t = Instant::now();
    let linked = DeviceLinker::load().unwrap().zz_link_cubin(&install, &cubin, 90).unwrap();
    eprintln!("cubin link {:?} ({} bytes)", t.elapsed(), linked.len());
    std::fs::write("/tmp/rdc_linked.cubin", &linked).unwrap();
}
