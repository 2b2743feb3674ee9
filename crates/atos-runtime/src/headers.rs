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

/// A fingerprint of the runtime's device headers, which every unit includes: the first 16 hex
/// digits of a SHA-256 over each header's name and contents, in order. `atos --version`, bench
/// records (`device_code`) and `gpu_suite` print it, so a measurement names the runtime device
/// code it ran, and a binary with other headers shows another fingerprint. It does not cover
/// the CUDA that atos-codegen generates for each task: a change only there keeps it.
pub fn device_code_id() -> &'static str {
    static ID: OnceLock<String> = OnceLock::new();
    ID.get_or_init(|| fingerprint(device_headers()))
}

/// The first 16 hex digits of a SHA-256 over each `(name, contents)`, each length-prefixed.
fn fingerprint(headers: &[(&str, String)]) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    for (name, text) in headers {
        for part in [name.as_bytes(), text.as_bytes()] {
            h.update((part.len() as u64).to_le_bytes());
            h.update(part);
        }
    }
    h.finalize()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{device_code_id, device_headers, fingerprint};

    #[test]
    fn the_device_code_id_changes_with_any_byte_of_any_header() {
        let id = device_code_id();
        assert_eq!(id.len(), 16);
        assert!(id.bytes().all(|b| b.is_ascii_hexdigit()), "{id}");
        let headers = device_headers().to_vec();
        assert_eq!(fingerprint(&headers), id);
        let mut edited = headers.clone();
        edited[2].1.push(' ');
        assert_ne!(fingerprint(&edited), id, "a trailing space");
        // A byte moved from one header to the next is another device code.
        let mut moved = headers.clone();
        let last = moved[0].1.pop().unwrap();
        moved[1].1.insert(0, last);
        assert_ne!(fingerprint(&moved), id);
    }

    /// `header:line: text` of every header line whose code (before a `//` comment) `hit`s.
    fn code_lines(hit: impl Fn(&str) -> bool) -> Vec<String> {
        let mut found = Vec::new();
        for (name, text) in device_headers() {
            for (i, line) in text.lines().enumerate() {
                if hit(line.split("//").next().unwrap_or("")) {
                    found.push(format!("{name}:{}: {}", i + 1, line.trim()));
                }
            }
        }
        found
    }

    /// Warp aggregation takes its lanes from `converged_lanes` (prelude.cuh) only: a mask read
    /// from `__activemask()` and used as a sync mask after a branch is what lost items of
    /// thread workers in windowed launches (docs/results/2026-11-23-activemask-h100.md).
    #[test]
    fn activemask_is_read_only_by_converged_lanes() {
        let uses = code_lines(|code| code.contains("__activemask()"));
        assert_eq!(uses.len(), 1, "{uses:#?}");
        assert!(
            uses[0].contains("__match_any_sync(__activemask(), key)"),
            "{uses:#?}"
        );
    }

    /// A thread waits alone for ring room (`make_room`) only where the rest of its block waits
    /// at a block barrier: a CTA's staged flush (worker.cuh) and a CTA's routed flush
    /// (mesh.cuh). Lanes of a warp wait together (`push_lanes`, `wait_for_room_group`): a leader
    /// waiting alone while its lanes sat in a shuffle hung warp workers
    /// (docs/results/2026-11-24g-overflow-hang-h100.md).
    #[test]
    fn only_block_barriers_wait_on_a_lone_make_room() {
        let calls = code_lines(|code| code.contains(" make_room(") && !code.contains("__device__"));
        assert_eq!(calls.len(), 2, "{calls:#?}");
        for call in &calls {
            assert!(
                call.contains("ok_shared = make_room(") || call.contains("ok[d] = make_room("),
                "a lone make_room outside a block barrier's flush: {calls:#?}"
            );
        }
    }
}
