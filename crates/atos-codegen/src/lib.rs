//! atos-codegen: the Rust task subset -> a closed IR -> CUDA C++.
//!
//! No GPU dependency. The proc macro calls [`lower_task`] / [`lower_device_fn`] at build time
//! (errors are spanned `syn::Error`s); the runtime calls [`generate_unit`] once the state
//! layout and the specialization ([`KernelSpec`]) are known. The accepted subset is documented
//! in `docs/dsl.md`.

pub mod balance;
mod emit;
pub mod error;
pub mod ir;
pub mod layout;
pub mod lower;
pub mod names;
pub mod plan;
pub mod typeck;
pub mod unit;

pub use error::CodegenError;
pub use ir::*;
pub use lower::{TaskArgs, lower_device_fn, lower_task, parse_idle_args, parse_task_args};
pub use plan::{Plan, PlannedTask, Source, plan_program};
pub use unit::{KernelSpec, Strategy, TaskSpec, field_size, generate_unit, state_size};

/// Lowers Rust source text of a task function (with its attribute arguments) to IR. Used by
/// tests and tools that have the source as a string instead of a token stream.
pub fn lower_task_source(attr: &str, source: &str) -> syn::Result<FnIr> {
    lower_source_with(attr, source, parse_task_args)
}

/// Lowers Rust source text of an idle hook (with its `#[atos::idle]` arguments) to IR.
pub fn lower_idle_source(attr: &str, source: &str) -> syn::Result<FnIr> {
    lower_source_with(attr, source, parse_idle_args)
}

fn lower_source_with(
    attr: &str,
    source: &str,
    parse: fn(proc_macro2::TokenStream) -> syn::Result<TaskArgs>,
) -> syn::Result<FnIr> {
    let args = parse(
        attr.parse()
            .map_err(|e| syn::Error::new(proc_macro2::Span::call_site(), format!("{e}")))?,
    )?;
    let item: syn::ItemFn = syn::parse_str(source)?;
    lower_task(args, &item)
}

/// Lowers Rust source text of a device function to IR.
pub fn lower_device_source(source: &str) -> syn::Result<FnIr> {
    let item: syn::ItemFn = syn::parse_str(source)?;
    lower_device_fn(&item)
}
