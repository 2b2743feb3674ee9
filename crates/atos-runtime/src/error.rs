use thiserror::Error;

/// Why a run did not complete.
#[derive(Debug, Error)]
pub enum RunError {
    #[error(
        "queue overflow: capacity {capacity} is too small, the run needed at least {needed} slots; create the queue with `Queue::with_capacity({needed})` or more (the queue holds every task a run enqueues)"
    )]
    QueueOverflow { capacity: u64, needed: u64 },
    #[error("state `{state}` has no Queue field; add one, e.g. `pub work: Queue<'a, u32>`")]
    NoQueue { state: String },
    #[error(
        "this state's queue is already in use by another run; run one executor at a time per state"
    )]
    AlreadyRunning,
    #[error("a task panicked: {message}")]
    TaskPanicked { message: String },
    #[error(transparent)]
    Gpu(#[from] crate::gpu::GpuError),
}
