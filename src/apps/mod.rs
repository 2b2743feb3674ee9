//! The case studies, written as atos tasks. Each app module holds its state, its task(s) and
//! helpers to run them on either executor.

pub mod bfs;
pub mod bfs_owner;
pub mod bfs_priority;
pub mod coloring;
pub mod graph_check;
pub mod kcore;
pub mod pagerank;
pub mod pagerank_bsp;
pub mod sssp;
