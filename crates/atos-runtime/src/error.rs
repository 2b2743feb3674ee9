use thiserror::Error;

/// Why a run did not complete.
#[derive(Debug, Error)]
pub enum RunError {
    #[error(
        "queue `{queue}` overflowed: {needed} tasks were alive at once (pushed, not yet taken by a worker) but its capacity is {capacity}; create it with `Queue::with_capacity({suggest})` or more. The run stopped there, so more may be needed; nothing was overwritten"
    )]
    QueueOverflow {
        queue: String,
        capacity: u64,
        needed: u64,
        suggest: u64,
    },
    #[error("{0}")]
    Program(#[from] atos_codegen::CodegenError),
    #[error("seeds: {0}")]
    Seeds(String),
    /// The input a library app was given is not one it can run on (a malformed CSR, a source
    /// that is not a vertex): said before any run.
    #[error("input: {0}")]
    Input(String),
    #[error("{0}")]
    IdleRange(String),
    #[error(
        "this state's queue `{queue}` is already in use by another run; run one executor at a time per state"
    )]
    AlreadyRunning { queue: String },
    #[error("{0}")]
    Unsupported(String),
    #[error("priority queue `{queue}`: {message}")]
    Priority { queue: String, message: String },
    #[error("{message} in `{function}` at line {line} (on the GPU; the run stopped there). {hint}")]
    Fault {
        function: String,
        line: u32,
        message: String,
        /// What to do: how the CPU executor behaves there, and the fix.
        hint: String,
    },
    #[error("a task panicked: {message}")]
    TaskPanicked { message: String },
    #[error(
        "the run passed its time limit of {limit:?} on the CPU executor and was stopped (the state holds what it had done); raise the limit (CpuExecutor::timeout, bench --timeout) or check that the program ends"
    )]
    TimedOut { limit: std::time::Duration },
    #[error(transparent)]
    Gpu(#[from] crate::gpu::GpuError),
}

impl RunError {
    /// The error for a device `fault` word (`atos_codegen::faults`).
    pub(crate) fn fault(word: u64, functions: &[atos_codegen::faults::FaultFunction]) -> RunError {
        match atos_codegen::faults::decode(word, functions) {
            Some(site) => RunError::Fault {
                function: site.function,
                line: site.line,
                message: site.fault.message().to_string(),
                hint: if site.fault.is_overflow() {
                    "A debug build of the task panics there on the CPU executor too: fix the task, or write `wrapping_*` where wrapping is meant".into()
                } else {
                    "Rust panics there in every build, on the CPU executor too: fix the task".into()
                },
            },
            None => RunError::Fault {
                function: "an unknown function".into(),
                line: 0,
                message: format!("a fault with site word {word:#x}"),
                hint: "this program could not have written it: please report it".into(),
            },
        }
    }

    pub(crate) fn overflow(queue: &str, capacity: u64, needed: u64) -> RunError {
        RunError::QueueOverflow {
            queue: queue.to_string(),
            capacity,
            needed,
            suggest: needed.max(capacity.saturating_add(1)).saturating_mul(2),
        }
    }
}
