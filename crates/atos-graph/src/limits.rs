//! The memory limit that declared or requested sizes are checked against before anything is
//! allocated, so an absurd header or spec is an error rather than an abort.

/// A size that would not fit: what needed it, how much, and the limit.
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
#[error(
    "{what} would need {} of memory, more than the {} limit; raise the limit (`--max-memory`, `LoadOptions::max_bytes`) if this machine can hold it",
    human_bytes(*need), human_bytes(*limit)
)]
pub struct TooLarge {
    pub what: String,
    pub need: u64,
    pub limit: u64,
}

/// This machine's physical memory (from /proc/meminfo), or 16 GiB where it cannot be read.
pub fn default_memory_limit() -> u64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("MemTotal:"))?;
            let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(kib * 1024)
        })
        .unwrap_or(16 << 30)
}

/// Fails when `need` bytes exceed `limit`.
pub fn check(what: impl FnOnce() -> String, need: u128, limit: u64) -> Result<(), TooLarge> {
    if need > u128::from(limit) {
        return Err(TooLarge {
            what: what(),
            need: u64::try_from(need).unwrap_or(u64::MAX),
            limit,
        });
    }
    Ok(())
}

/// Bytes a CSR build needs at its peak: u64 offsets, and cols (plus weights) for `entries`.
pub fn csr_build_bytes(vertices: u64, entries: u64, weighted: bool) -> u128 {
    let per_entry = if weighted { 8 } else { 4 };
    // Offsets and the per-vertex cursor; edge arrays twice (edge list, then cols).
    16 * (u128::from(vertices) + 1) + 2 * per_entry * u128::from(entries)
}

/// Bytes generating a CSR needs at its peak (`generate::assemble`): per vertex, u64 offsets
/// and fill cursor, the parts' staging blocks (8) and 8 of headroom; per entry, the `(row, col)`
/// pairs (8) beside the cols they fill (4), or for a weighted graph cols and weights (given
/// after the pairs are gone) as for a file. kron:24: 6.98 GB asked, 6.85 GB resident at the
/// peak on the H100 machine.
pub fn generated_csr_bytes(vertices: u64, entries: u64, weighted: bool) -> u128 {
    let per_entry = if weighted { 16 } else { 12 };
    32 * (u128::from(vertices) + 1) + per_entry * u128::from(entries)
}

/// `1.5 GiB`, `320 MiB`, `12 KiB`, `17 B`.
pub fn human_bytes(b: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut x = b as f64;
    let mut u = 0;
    while x >= 1024.0 && u + 1 < UNITS.len() {
        x /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{b} B")
    } else {
        format!("{x:.1} {}", UNITS[u])
    }
}
