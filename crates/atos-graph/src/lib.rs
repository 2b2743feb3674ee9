//! Graphs for atos: a CSR with u64 offsets and optional weights, readers and writers for
//! the common formats, deterministic generators, and CPU references with validators. No GPU
//! dependency.
//!
//! ```
//! let g = atos_graph::load("grid:64x64").unwrap();
//! let tree = atos_graph::reference::bfs::bfs(&g, 0);
//! atos_graph::reference::bfs::validate_tree(&g, 0, &tree.parent).unwrap();
//! ```

pub mod build;
pub mod csr;
pub mod format;
pub mod generate;
pub mod limits;
pub mod load;
pub mod partition;
pub mod reference;
pub mod relabel;
pub mod stats;

pub use build::{BuildOptions, BuildReport, EdgeList};
pub use csr::{Csr, WeightKind, Weights};
pub use format::{Base, Format, ReadError, ReadOptions};
pub use load::{LoadError, LoadOptions, Loaded, Origin, load, load_with};
