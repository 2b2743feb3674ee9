//! The arguments of `#[atos::task(..)]` and `#[atos::idle(..)]`: parsed and validated.

use syn::spanned::Spanned;
use syn::{Error, Result};

use crate::signature::path_text;

use atos_codegen::ir::*;
use atos_codegen::unit::MAX_FETCH;

/// Arguments of `#[atos::task(...)]` or `#[atos::idle(...)]`, already validated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskArgs {
    pub worker: WorkerKind,
    pub fetch: u32,
    pub source: ItemSource,
    /// `inline`: pushes of items this device owns may run the task at once (tasks only).
    pub inline: bool,
}

impl Default for TaskArgs {
    fn default() -> Self {
        TaskArgs {
            worker: WorkerKind::Warp,
            fetch: 1,
            source: ItemSource::Queue(None),
            inline: false,
        }
    }
}

/// Parses `#[atos::task(worker = "warp", fetch = 64, queue = "near")]` arguments.
pub fn parse_task_args(attr: proc_macro2::TokenStream) -> Result<TaskArgs> {
    parse_args(attr, false)
}

/// Parses `#[atos::idle(range = "n", worker = "warp", fetch = 32)]` arguments.
pub fn parse_idle_args(attr: proc_macro2::TokenStream) -> Result<TaskArgs> {
    let span = attr.span();
    let args = parse_args(attr, true)?;
    if !args.source.is_idle() {
        return Err(Error::new(
            span,
            "an idle hook needs `range = \"field\"`: the state field whose value (u32/u64 scalar) or length (array) gives the indices `0..n` the hook sweeps",
        ));
    }
    Ok(args)
}

fn parse_args(attr: proc_macro2::TokenStream, idle: bool) -> Result<TaskArgs> {
    let mut args = TaskArgs::default();
    let parser = syn::meta::parser(|meta| {
        if meta.path.is_ident("worker") {
            let lit: syn::LitStr = meta.value()?.parse()?;
            args.worker = WorkerKind::parse(&lit.value()).ok_or_else(|| {
                Error::new(
                    lit.span(),
                    format!(
                        "unknown worker `{}`: use worker = \"thread\", \"warp\" or \"cta\"",
                        lit.value()
                    ),
                )
            })?;
            Ok(())
        } else if meta.path.is_ident("fetch") {
            let lit: syn::LitInt = meta.value()?.parse()?;
            let fetch: u32 = lit.base10_parse().map_err(|_| {
                Error::new(
                    lit.span(),
                    format!("fetch must be an integer from 1 to {MAX_FETCH}"),
                )
            })?;
            if fetch == 0 || fetch > MAX_FETCH {
                return Err(Error::new(
                    lit.span(),
                    format!(
                        "fetch = {fetch} is out of range: a worker grabs from 1 to {MAX_FETCH} tasks at a time"
                    ),
                ));
            }
            args.fetch = fetch;
            Ok(())
        } else if !idle && meta.path.is_ident("inline") {
            if !meta.input.is_empty() && !meta.input.peek(syn::Token![,]) {
                return Err(meta.error(
                    "`inline` takes no value: write #[atos::task(queue = \"...\", inline)]",
                ));
            }
            args.inline = true;
            Ok(())
        } else if !idle && meta.path.is_ident("queue") {
            let lit: syn::LitStr = meta.value()?.parse()?;
            args.source = ItemSource::Queue(Some(field_name(&lit)?));
            Ok(())
        } else if idle && meta.path.is_ident("range") {
            let lit: syn::LitStr = meta.value()?.parse()?;
            args.source = ItemSource::Idle {
                range: field_name(&lit)?,
            };
            Ok(())
        } else if idle {
            Err(meta.error(format!(
                "unknown idle-hook argument `{}`: expected `range = \"field\"`, `worker = \"thread\"|\"warp\"|\"cta\"` or `fetch = N`",
                path_text(&meta.path)
            )))
        } else {
            Err(meta.error(format!(
                "unknown task argument `{}`: expected `queue = \"field\"`, `worker = \"thread\"|\"warp\"|\"cta\"`, `fetch = N` or `inline`",
                path_text(&meta.path)
            )))
        }
    });
    syn::parse::Parser::parse2(parser, attr)?;
    Ok(args)
}

fn field_name(lit: &syn::LitStr) -> Result<String> {
    let v = lit.value();
    let ok = !v.is_empty()
        && v.chars().all(|c| c == '_' || c.is_ascii_alphanumeric())
        && !v.starts_with(|c: char| c.is_ascii_digit());
    if ok {
        Ok(v)
    } else {
        Err(Error::new(
            lit.span(),
            format!("`{v}` is not a field name: name a field of the state struct, e.g. \"work\""),
        ))
    }
}
