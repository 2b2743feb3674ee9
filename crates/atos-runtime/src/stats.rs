use std::fmt;
use std::time::Duration;

/// What a run did.
#[derive(Clone, Debug)]
pub struct Stats {
    /// Where it ran ("NVIDIA H100 80GB HBM3", "CPU (8 threads)").
    pub device: String,
    /// Kernel time from CUDA events on the GPU; wall time on the CPU.
    pub time: Duration,
    pub time_is_gpu_events: bool,
    /// Tasks given to the run.
    pub seeded: u64,
    /// Tasks processed (popped and run).
    pub popped: u64,
    /// Tasks pushed by tasks.
    pub pushed: u64,
    /// Queue slots used: the capacity this run needed.
    pub queue_peak: u64,
    /// Worker groups (GPU: threads, warps or CTAs; CPU: threads).
    pub workers: u64,
    /// GPU launch shape (blocks, threads per block).
    pub grid: Option<(u32, u32)>,
}

impl fmt::Display for Stats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:.3} ms on {} ({}), {} tasks popped, {} pushed, queue peak {}",
            self.time.as_secs_f64() * 1e3,
            self.device,
            if self.time_is_gpu_events {
                "CUDA events"
            } else {
                "wall clock"
            },
            self.popped,
            self.pushed,
            self.queue_peak
        )
    }
}
