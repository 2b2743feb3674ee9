//! atos-runtime: the device code (embedded CUDA headers), the GPU executor (NVRTC + cudarc)
//! and the CPU executor, behind one set of state and task types.

pub mod aggregation;
pub mod arrays;
pub mod cpu;
pub mod elem;
pub mod error;
pub mod gpu;
pub mod headers;
pub mod placement;
pub mod program;
pub mod seconds;
pub mod state;
pub mod stats;
pub mod task;

pub use aggregation::Aggregation;
pub use arrays::{AtomicArray, Atomics, PriorityQueue, Queue, QueueMode, Slice, fence, lanes};
pub use cpu::CpuExecutor;
pub use elem::{
    AtomicBits, AtomicElem, AtomicNum, Elem, IndexArg, ItemBits, PriorityKey, QueueItem,
};
pub use error::RunError;
pub use gpu::program::{cuda, cuda_source, share_can_post, spec_of};
pub use gpu::{
    DeviceState, Gpu, GpuError, Gpus, KernelResources, MeshProgram, MeshState, Program,
    ProgramBuilder,
};
pub use placement::{Placement, PlacementError};
pub use program::Seeds;
pub use state::{FieldInfo, FieldRef, State, StateField, check};
pub use stats::{DeviceStats, PhaseTimes, PriorityStats, QueueStats, Stats};
pub use task::{DeviceFn, Task, TaskSet, parse_embedded_ir};
