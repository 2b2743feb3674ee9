//! Shared by the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

/// `../shared/data` beside the project, where the real-world test graphs live.
pub fn shared_data() -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data");
    if p.is_dir() { Some(p) } else { None }
}

/// Whether tests run in CI, where nothing that should run may be skipped.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

pub mod features;
pub mod programs;
