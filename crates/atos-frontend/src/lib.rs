//! atos-frontend: Rust source (`syn`) -> the IR of `atos-codegen`, with one prescriptive,
//! spanned error per rejected construct.
//!
//! The proc macro calls [`lower_task`] / [`lower_device_fn`] at build time; nothing a user's
//! binary links depends on this crate, so no Rust parser is compiled into it.

pub mod args;
pub mod lower;
pub mod signature;

use atos_codegen::FnIr;

pub use args::{TaskArgs, parse_idle_args, parse_task_args};
pub use lower::{lower_device_fn, lower_device_fn_spanned, lower_task, lower_task_spanned};
pub use signature::plain;

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
