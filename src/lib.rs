//! # atos
//!
//! Task-parallel GPU scheduling from typed Rust. Write a task function under
//! `#[atos::task]`; atos turns it into CUDA, compiles it with NVRTC for your GPU and runs it
//! in a persistent kernel over a lock-free work queue with exact termination, or runs the
//! same function on CPU threads.
//!
//! ```ignore
//! #[atos::state]
//! pub struct Bfs<'a> {
//!     pub offsets: Slice<'a, u32>,
//!     pub cols: Slice<'a, u32>,
//!     pub depth: Atomics<'a, u32>,
//!     pub work: Queue<'a, u32>,
//! }
//!
//! #[atos::task(worker = "warp", fetch = 1)]
//! fn bfs(v: u32, s: &Bfs) {
//!     let next = s.depth.load(v) + 1;
//!     for e in lanes(s.offsets[v]..s.offsets[v + 1]) {
//!         let u = s.cols[e];
//!         if s.depth.fetch_min(u, next) > next {
//!             s.work.push(u);
//!         }
//!     }
//! }
//! ```
//! See `docs/dsl.md` for the accepted Rust subset and `docs/runtime.md` for the runtime.

extern crate self as atos;

pub use atos_macros::{device, idle, state, task};
pub use atos_runtime::*;

/// The code generator (IR types, `KernelSpec`, `generate_unit`).
pub use atos_codegen as codegen;
pub use atos_codegen::{KernelSpec, Strategy, TaskSpec, WorkerKind};

/// Everything a task file needs: `use atos::prelude::*;`.
pub mod prelude {
    pub use crate::{
        AtomicArray, Atomics, CpuExecutor, Gpu, Program, Queue, QueueMode, Seeds, Slice, Strategy,
        WorkerKind, fence, lanes,
    };
}

pub mod apps;
