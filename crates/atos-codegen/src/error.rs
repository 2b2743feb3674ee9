use thiserror::Error;

/// Errors raised when a lowered function is specialized into CUDA.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum CodegenError {
    #[error("in `{function}` (line {line}): {message}")]
    Type {
        function: String,
        line: u32,
        message: String,
    },
    #[error(
        "task `{task}` reads state `{expected}`, but the program was built with state `{found}`"
    )]
    StateMismatch {
        task: String,
        expected: String,
        found: String,
    },
    #[error(
        "state `{state}` has no `Queue` field: a task needs a queue to pop from; add e.g. `pub work: Queue<'a, u32>`"
    )]
    NoQueue { state: String },
    #[error(
        "task `{task}` takes items of type {item}, but queue `{queue}` holds {elem}: make them the same type"
    )]
    ItemMismatch {
        task: String,
        item: String,
        queue: String,
        elem: String,
    },
    #[error(
        "device function `{name}` is called but its definition was not provided (is it annotated with #[atos::device]?)"
    )]
    MissingDeviceFn { name: String },
    #[error("invalid specialization: {0}")]
    Spec(String),
    #[error("invalid program: {0}")]
    Program(String),
}
