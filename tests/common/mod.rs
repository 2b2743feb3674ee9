//! Shared by the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

use atos_graph::reference::pagerank::{PageRankOptions, pagerank_power};

/// `../shared/data` beside the project, where the real-world test graphs live.
pub fn shared_data() -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data");
    if p.is_dir() { Some(p) } else { None }
}

/// Whether tests run in CI, where nothing that should run may be skipped.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// Whether NVRTC can be loaded; without it the caller skips, except under `CI=true`, where a
/// missing NVRTC fails the test (`scripts/test.sh` installs it from PyPI).
pub fn nvrtc_or_skip() -> bool {
    if atos::gpu::nvrtc::nvrtc_available() {
        return true;
    }
    assert!(
        !in_ci(),
        "NVRTC is missing under CI=true: run the tests through scripts/test.sh, which installs it"
    );
    eprintln!("skipping: NVRTC not found (run scripts/test.sh to install it from PyPI)");
    false
}

/// Compiles `source` for sm_90 with NVRTC: no warning, a CUBIN of some size.
pub fn compile_clean(source: &str) {
    use atos::gpu::nvrtc;
    let compiled = nvrtc::compile_cubin(source, (9, 0)).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        compiled.log.is_empty(),
        "NVRTC warned:\n{}\n{}",
        compiled.log,
        nvrtc::numbered(source)
    );
    assert!(compiled.cubin.len() > 1000, "suspiciously small CUBIN");
}

/// Runs `f` on its own thread and waits at most `secs` seconds for it: `Err` says whether it
/// hung (still running) or panicked, so a stress loop tells the two apart.
pub fn within<T: Send + 'static>(
    secs: u64,
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, &'static str> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(std::time::Duration::from_secs(secs)) {
        Ok(v) => Ok(v),
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => Err("hung"),
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => Err("panicked"),
    }
}

/// PageRank's options at `damping` and `epsilon`, and the exact ranks a run is checked against
/// (`check_converged`): power iteration to 1e-12.
pub fn pagerank_exact(
    g: &atos_graph::Csr,
    damping: f32,
    epsilon: f32,
) -> (PageRankOptions, Vec<f64>) {
    let opts = PageRankOptions {
        damping: f64::from(damping),
        tolerance: f64::from(epsilon),
        ..PageRankOptions::default()
    };
    let exact = pagerank_power(
        g,
        PageRankOptions {
            tolerance: 1e-12,
            max_iterations: 10_000,
            ..opts
        },
    );
    (opts, exact.rank)
}

pub mod atomics;
pub mod faults;
pub mod features;
pub mod fixed_leaves;
pub mod programs;
pub mod reducing;
pub mod tuples;
