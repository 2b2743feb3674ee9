//! CPU references (the answers GPU runs are checked against) and validators (which check an
//! answer against the rules of its problem, with no second answer needed).

pub mod bfs;
pub mod coloring;
pub mod components;
pub mod kcore;
pub mod pagerank;
pub mod sssp;

/// The "none" value of parents, depths and labels.
pub const NONE: u32 = u32::MAX;

/// How many different values `xs` holds (colours, component labels).
pub(crate) fn distinct_count(xs: &[u32]) -> u64 {
    let mut sorted = xs.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    sorted.len() as u64
}
