//! atos-codegen: the closed IR of the atos task subset -> type checking -> CUDA C++.
//!
//! No GPU dependency and no Rust parser: the syn front end that lowers Rust source to this IR
//! is the `atos-frontend` crate, used by the proc macro at build time; the runtime links only
//! this crate and calls [`generate_unit`] once the state layout and the specialization
//! ([`KernelSpec`]) are known. The accepted subset is documented in `docs/dsl.md`.

pub mod balance;
mod emit;
pub mod error;
pub mod faults;
pub mod ir;
pub mod item;
pub mod keys;
pub mod layout;
pub mod names;
pub mod ops;
pub mod plan;
pub mod typeck;
pub mod unit;

pub use error::CodegenError;
pub use ir::*;
pub use plan::{
    Plan, PlannedTask, PriorityPlan, QueueRings, Source, far_name, next_name, plan_program,
    queue_rings,
};
pub use unit::{
    BoundTraits, CHECKED_BY_DEFAULT, IDLE_NAP_MAX_DOUBLINGS, IDLE_NAP_NS, KernelSpec, MAX_FETCH,
    MIN_BLOCKS, PRIORITY_THREADS_PER_SM, Strategy, TaskSpec, field_size, generate_unit, state_size,
};
