//! The device-side runtime: CUDA headers embedded in the crate (and `atos/layout.cuh`,
//! generated from `atos_codegen::layout`), handed to NVRTC by name.

use std::sync::OnceLock;

/// `(include name, contents)` for every header a generated unit may include.
pub fn device_headers() -> &'static [(&'static str, String)] {
    static HEADERS: OnceLock<Vec<(&'static str, String)>> = OnceLock::new();
    HEADERS.get_or_init(|| {
        vec![
            (
                "atos/prelude.cuh",
                include_str!("cuda/atos/prelude.cuh").into(),
            ),
            ("atos/layout.cuh", atos_codegen::layout::layout_header()),
            ("atos/queue.cuh", include_str!("cuda/atos/queue.cuh").into()),
            (
                "atos/worker.cuh",
                include_str!("cuda/atos/worker.cuh").into(),
            ),
            ("atos/mesh.cuh", include_str!("cuda/atos/mesh.cuh").into()),
            (
                "atos/remote.cuh",
                include_str!("cuda/atos/remote.cuh").into(),
            ),
        ]
    })
}

#[cfg(test)]
mod tests {
    use super::device_headers;

    /// Warp aggregation takes its lanes from `converged_lanes` (prelude.cuh) only: a mask read
    /// from `__activemask()` and used as a sync mask after a branch is what lost items of
    /// thread workers in windowed launches (docs/results/2026-11-23-activemask-h100.md).
    #[test]
    fn activemask_is_read_only_by_converged_lanes() {
        let mut uses = Vec::new();
        for (name, text) in device_headers() {
            for (i, line) in text.lines().enumerate() {
                let code = line.split("//").next().unwrap_or("");
                if code.contains("__activemask()") {
                    uses.push(format!("{name}:{}: {}", i + 1, line.trim()));
                }
            }
        }
        assert_eq!(uses.len(), 1, "{uses:#?}");
        assert!(
            uses[0].contains("__match_any_sync(__activemask(), key)"),
            "{uses:#?}"
        );
    }
}
