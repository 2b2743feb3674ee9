//! NVSHMEM device code links without a GPU: the check kernel (`atos nvshmem-check`), the fetch
//! kernel (`World::fetch`), and units for NVSHMEM calls (`ATOS_REMOTE_CALLS`,
//! `atos/remote.cuh`): the BFS, PageRank and owner-computes BFS spread units and every
//! `Atomics` entry for every element type compile with NVRTC and device-link with NVSHMEM's
//! device library. Compile and link only: what runs on a GPU is in docs/results. Under CI=true
//! a missing NVRTC, nvJitLink or NVSHMEM fails instead of skipping (scripts/nvrtc-env.sh
//! installs them from PyPI).

mod common;

use atos::codegen::{KernelSpec, WorkerKind};
use atos::gpu::nvrtc;
use atos::gpu::nvshmem::{
    CHECK_SOURCE, FETCH_SOURCE, Install, device_link, remote_calls_cubin, remote_calls_source,
};
use nvshmem_sys::DeviceLinker;

const HOPPER: (i32, i32) = (9, 0);

fn install_or_skip() -> Option<Install> {
    match (Install::locate(), nvrtc::nvrtc_available()) {
        (Ok(i), true) => Some(i),
        (found, nvrtc) => {
            let why = found
                .err()
                .map(|e| e.to_string())
                .unwrap_or_else(|| format!("NVRTC available: {nvrtc}"));
            assert!(
                !common::in_ci(),
                "the NVSHMEM device link cannot run under CI=true: {why}"
            );
            eprintln!("skipping: {why}");
            None
        }
    }
}

/// Links `source` for NVSHMEM calls and checks the CUBIN holds `kernel` and NVSHMEM's device
/// code (a spread unit alone is far smaller). Returns the CUBIN.
fn links(install: &Install, source: &str, kernel: &str) -> Vec<u8> {
    let cubin = remote_calls_cubin(install, source, HOPPER)
        .unwrap_or_else(|e| panic!("{e}\n{}", nvrtc::numbered(&remote_calls_source(source))));
    assert_eq!(&cubin[..4], b"\x7fELF");
    assert!(
        cubin.windows(kernel.len()).any(|w| w == kernel.as_bytes()),
        "{kernel} is in the CUBIN"
    );
    assert!(cubin.len() > 100_000, "CUBIN of {} bytes", cubin.len());
    cubin
}

fn spread_unit<P: atos::TaskSet>(worker: WorkerKind, fetch: u32) -> (String, String) {
    let irs = P::irs();
    let mut spec = KernelSpec::for_tasks(&irs)
        .multi_device(true)
        .checked(false);
    spec.tasks = vec![atos::TaskSpec { worker, fetch }; irs.len()];
    let source = atos::cuda_source::<P>(&spec).unwrap();
    (source, spec.kernel_name(&irs[0].name))
}

/// The kernel a rank reads other ranks' counters and results with under NVSHMEM calls
/// (`World::fetch`).
#[test]
fn the_fetch_kernel_links() {
    let Some(install) = install_or_skip() else {
        return;
    };
    let cubin = device_link(&install, FETCH_SOURCE, HOPPER).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(&cubin[..4], b"\x7fELF");
    assert!(cubin.windows(10).any(|w| w == b"atos_fetch"));
}

#[test]
fn spread_units_link_for_nvshmem_calls() {
    let Some(install) = install_or_skip() else {
        return;
    };
    let (source, kernel) = spread_unit::<atos::apps::bfs::bfs::Task>(WorkerKind::Cta, 64);
    let bfs = links(&install, &source, &kernel);
    // NVSHMEM's calls stay functions of their own (remote.cuh): inlined at every access, this
    // unit's CUBIN was 2.7 MB and its link 2.3x slower; called, 1.7 MB. Each wrapper this unit
    // uses keeps its symbol (one inlined alone would not cross the size bound: `quiet` inlined
    // gave 1.76 MB).
    for called in [
        "_ZN4atos6remote8nv_fetch",
        "_ZN4atos6remote7nv_swap",
        "_ZN4atos6remote6nv_cas",
        "_ZN4atos6remote6nv_add",
        "_ZN4atos6remote6nv_set",
        "_ZN4atos6remote5quietEv",
    ] {
        assert!(
            bfs.windows(called.len()).any(|w| w == called.as_bytes()),
            "{called} is a function of the linked CUBIN (a remote.cuh wrapper inlined?)"
        );
    }
    assert!(
        bfs.len() < 2_000_000,
        "the BFS spread unit for NVSHMEM calls links to {} bytes: were NVSHMEM's calls inlined?",
        bfs.len()
    );
    // Colouring on persistent thread workers holds its check pushes (`atos::HeldPusher`) and
    // owes its fence per thread (`atos::ThreadFenceDebt`), whose `owe` fences at once under
    // NVSHMEM calls: the only unit that compiles that branch.
    let held = spread_unit::<atos::apps::coloring::Tasks>(WorkerKind::Thread, 64);
    assert!(
        held.0.contains("atos::HeldPusher") && held.0.contains("atos::ThreadFenceDebt debt;"),
        "{}",
        held.0
    );
    for (source, kernel) in [
        spread_unit::<atos::apps::pagerank::Tasks>(WorkerKind::Warp, 8),
        spread_unit::<atos::apps::bfs_owner::Tasks>(WorkerKind::Thread, 1),
        held,
    ] {
        links(&install, &source, &kernel);
    }
}

/// Every `Atomics` entry on every element type it admits, on a plain pointer (which may hold a
/// tagged address) and through `atos::Spread`, in a unit for NVSHMEM calls (the same unit
/// `tests/nvrtc_compile.rs` compiles at system scope).
#[test]
fn every_atomic_entry_links_for_nvshmem_calls() {
    let Some(install) = install_or_skip() else {
        return;
    };
    let (mut src, calls) = common::atomics::every_atomic_source(true);
    assert!(calls > 100, "{calls} calls");
    // The counter primitives of queue.cuh on a possibly tagged word.
    src.push_str(
        "extern \"C\" __global__ void counters(unsigned long long* p) {\n    atos::u64 a = atos::ld_relaxed(p);\n    atos::st_release(p + 1, a);\n    a += atos::add_release(p + 2, 1ull) + atos::add_acq_rel(p + 3, 1ull) + atos::max_release(p + 4, a);\n    atos::fence_release();\n    atos::fence_acq_rel();\n    atos::store_item(p + 5, a);\n    p[6] = atos::load_item(p + 7);\n}\n",
    );
    links(&install, &src, "every_atomic_0");
}

/// A kernel calling NVSHMEM's device API together with atos's device headers compiles to LTO
/// IR and device-links into a CUBIN; without the device library the link fails with
/// nvJitLink's log, not a panic.
#[test]
fn an_nvshmem_kernel_compiles_and_device_links_without_a_gpu() {
    let Some(install) = install_or_skip() else {
        return;
    };
    let (ltoir, log) = nvrtc::compile_ltoir(CHECK_SOURCE, (9, 0), &install.nvrtc_options())
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(log.is_empty(), "NVRTC warned:\n{log}");
    assert!(ltoir.len() > 1000, "LTO IR of {} bytes", ltoir.len());
    let linker = DeviceLinker::load().unwrap_or_else(|e| panic!("{e}"));
    let cubin = linker
        .link(&install, &ltoir, 90, &[])
        .unwrap_or_else(|e| panic!("{e}"));
    // An ELF image holding the kernel and NVSHMEM's device code it pulled in.
    assert_eq!(&cubin[..4], b"\x7fELF");
    assert!(
        cubin.windows(8).any(|w| w == b"ring_put"),
        "the kernel's symbol is in the CUBIN"
    );
    assert!(cubin.len() > 100_000, "CUBIN of {} bytes", cubin.len());
    // Without the device library the link fails with nvJitLink's log, not a panic.
    let mut broken = install.clone();
    broken.device_lib = "/nonexistent/libnvshmem_device.a".into();
    let err = linker
        .link(&broken, &ltoir, 90, &[])
        .unwrap_err()
        .to_string();
    assert!(err.contains("device link"), "{err}");
}

/// The link optimizes the unit again and takes its own floating-point settings: with
/// nvJitLink's default (`-fma=true`) it fuses `a * b + c` that NVRTC was told to keep apart,
/// and the GPU's results differ from the CPU executor's in the last bit (found on an H100 with
/// the feature task under NVSHMEM calls). atos's link options keep it apart; an explicit
/// `mul_add` stays fused.
#[test]
fn the_device_link_keeps_multiply_and_add_apart() {
    let Some(install) = install_or_skip() else {
        return;
    };
    let src = "#include <atos/prelude.cuh>\n\
        extern \"C\" __global__ void unfused(double* p, float* q) {\n\
            p[0] = p[1] * p[2] + p[3];\n\
            q[0] = q[1] * q[2] - q[3];\n\
        }\n\
        extern \"C\" __global__ void fused(double* p) { p[0] = fma(p[1], p[2], p[3]); }\n";
    let (ltoir, _) = nvrtc::compile_ltoir(src, HOPPER, &install.nvrtc_options())
        .unwrap_or_else(|e| panic!("{e}"));
    let linker = DeviceLinker::load().unwrap_or_else(|e| panic!("{e}"));
    // The version goes into the linked CUBINs' cache key: CI pins nvJitLink 13.0.
    let (major, _) = linker.version().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(major, 13);
    let body = |ptx: &str, kernel: &str| -> String {
        let start = ptx
            .find(&format!(".entry {kernel}("))
            .unwrap_or_else(|| panic!("{kernel} in the linked PTX:\n{ptx}"));
        let end = ptx[start..].find("\n}").expect("the entry's end") + start;
        ptx[start..end].to_string()
    };
    let ours = linker
        .link_ptx(&ltoir, 90, &nvrtc::link_options())
        .unwrap_or_else(|e| panic!("{e}"));
    let unfused = body(&ours, "unfused");
    assert!(
        !unfused.contains("fma."),
        "fused under atos's options:\n{unfused}"
    );
    assert!(
        unfused.contains("mul.rn.f64") && unfused.contains("mul.rn.f32"),
        "{unfused}"
    );
    assert!(
        body(&ours, "fused").contains("fma.rn.f64"),
        "mul_add stays fused"
    );
    // The check can fail: nvJitLink's default fuses.
    let default = linker
        .link_ptx(&ltoir, 90, &[])
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        body(&default, "unfused").contains("fma.rn"),
        "nvJitLink's default no longer fuses: the test above proves nothing"
    );
}
