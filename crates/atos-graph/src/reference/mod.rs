//! CPU references (the answers GPU runs are checked against) and validators (which check an
//! answer against the rules of its problem, with no second answer needed).

pub mod bfs;
pub mod coloring;
pub mod components;
pub mod pagerank;
pub mod sssp;

/// The "none" value of parents, depths and labels.
pub const NONE: u32 = u32::MAX;
