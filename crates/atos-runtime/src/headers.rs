//! The device-side runtime: CUDA headers embedded in the crate and handed to NVRTC by name.

/// `(include name, contents)` for every header a generated unit may include.
pub const DEVICE_HEADERS: &[(&str, &str)] = &[
    ("atos/prelude.cuh", include_str!("cuda/atos/prelude.cuh")),
    ("atos/queue.cuh", include_str!("cuda/atos/queue.cuh")),
    ("atos/worker.cuh", include_str!("cuda/atos/worker.cuh")),
];

/// Byte size of `atos::QueueCounters` (8 counters, one 128-byte line each).
pub const QUEUE_COUNTERS_BYTES: usize = 8 * 128;

/// Index of each counter in `atos::QueueCounters`, in 128-byte lines.
pub mod counter {
    pub const START: usize = 0;
    pub const END: usize = 1;
    pub const END_ALLOC: usize = 2;
    pub const END_MAX: usize = 3;
    pub const END_COUNT: usize = 4;
    pub const DONE: usize = 5;
    pub const STATUS: usize = 6;
    pub const NEEDED: usize = 7;
}
