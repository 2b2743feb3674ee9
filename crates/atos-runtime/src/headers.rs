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
        ]
    })
}
