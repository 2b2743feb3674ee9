//! Rust subset (`syn`) -> IR, with one prescriptive, spanned error per rejected construct.
//!
//! This runs inside the proc macro, so every refusal here becomes a `compile_error!` pointing
//! at the user's code. It never panics: unknown syntax falls through to a generic error.

mod expr;
mod stmt;
mod util;

use std::collections::HashSet;

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Error, Result};

use crate::args::TaskArgs;
use crate::signature::{
    check_signature_header, item_param, line_of, plain, scalar_param, scalar_type, state_param,
};
use atos_codegen::ir::*;
use util::strip_parens;

/// Lowers `#[atos::task]` function `item` into IR.
pub fn lower_task(args: TaskArgs, item: &syn::ItemFn) -> Result<FnIr> {
    lower_task_spanned(args, item).map(|(ir, _)| ir)
}

/// [`lower_task`], with the span of each entry of `FnIr::calls` (its first call), so the macro
/// can point a call of something that is not an `#[atos::device]` function at the call.
pub fn lower_task_spanned(args: TaskArgs, item_fn: &syn::ItemFn) -> Result<(FnIr, Vec<Span>)> {
    check_signature_header(&item_fn.sig)?;
    let sig = &item_fn.sig;
    if let syn::ReturnType::Type(_, ty) = &sig.output {
        return Err(Error::new(
            ty.span(),
            "a task returns nothing: push follow-up work with `state.queue.push(..)` and write results through `Atomics` fields",
        ));
    }
    if sig.inputs.len() != 2 {
        return Err(Error::new(
            sig.inputs.span(),
            "a task takes exactly two parameters: the task item and the state, e.g. `fn bfs(v: u32, s: &Bfs)`",
        ));
    }
    let mut inputs = sig.inputs.iter();
    let item = item_param(inputs.next().unwrap())?;
    if args.source.is_idle()
        && (item.tuple || !matches!(item.params[0].ty, Scalar::U32 | Scalar::U64))
    {
        return Err(Error::new(
            sig.inputs[0].span(),
            "an idle hook's first parameter is the index it checks: `u32` or `u64`",
        ));
    }
    if !item.tuple
        && !matches!(
            item.params[0].ty,
            Scalar::U32 | Scalar::I32 | Scalar::U64 | Scalar::I64
        )
    {
        return Err(Error::new(
            sig.inputs[0].span(),
            "the task item must be an integer (u32, i32, u64, i64) or a tuple of scalars, e.g. `(v, d): (u32, f32)`: it is what the queue holds",
        ));
    }
    let (state_param, state_type) = state_param(inputs.next().unwrap())?;
    let mut lw = Lowerer::new(Some(state_param.clone()));
    for p in &item.params {
        lw.declare(&p.name);
    }
    if let Some(whole) = &item.whole {
        lw.declare(whole);
        lw.tuple_item = Some((whole.clone(), item.params.len()));
    }
    let body = lw.block(&item_fn.block, false)?;
    let spans = std::mem::take(&mut lw.call_spans);
    let ir = FnIr {
        name: sig.ident.to_string(),
        role: Role::Task(TaskAttrs {
            worker: args.worker,
            fetch: args.fetch,
            state_type,
            state_param,
            source: args.source,
            tuple_item: item.tuple,
            inline: args.inline,
        }),
        params: item.params,
        ret: None,
        body,
        line: line_of(sig.fn_token.span),
        calls: lw.calls,
        state: None,
    };
    Ok((ir, spans))
}

/// Lowers `#[atos::device]` function `item` into IR.
pub fn lower_device_fn(item: &syn::ItemFn) -> Result<FnIr> {
    lower_device_fn_spanned(item).map(|(ir, _)| ir)
}

/// [`lower_device_fn`], with the span of each entry of `FnIr::calls`.
pub fn lower_device_fn_spanned(item: &syn::ItemFn) -> Result<(FnIr, Vec<Span>)> {
    check_signature_header(&item.sig)?;
    let sig = &item.sig;
    if sig.ident == "fence" || sig.ident == "lanes" {
        return Err(Error::new(
            sig.ident.span(),
            format!(
                "`{}` is reserved in device code (`atos::{}`); give the device function another name",
                sig.ident, sig.ident
            ),
        ));
    }
    let ret = match &sig.output {
        syn::ReturnType::Default => None,
        syn::ReturnType::Type(_, ty) => Some(scalar_type(ty)?),
    };
    // A first parameter of reference type is the state (`fn relax(s: &Sssp, ..)`).
    let takes_state = matches!(
        sig.inputs.first(),
        Some(syn::FnArg::Typed(pt)) if matches!(plain(&pt.ty), syn::Type::Reference(_))
    );
    let state = if takes_state {
        let (name, ty) = state_param(&sig.inputs[0])?;
        Some(StateParam { name, ty })
    } else {
        None
    };
    let mut lw = Lowerer::new(state.as_ref().map(|s| s.name.clone()));
    lw.in_device_fn = true;
    lw.ret = ret;
    let mut params = Vec::new();
    for input in sig.inputs.iter().skip(usize::from(takes_state)) {
        let p = scalar_param(input)?;
        lw.declare(&p.name);
        params.push(p);
    }
    let body = lw.block(&item.block, ret.is_some())?;
    let spans = std::mem::take(&mut lw.call_spans);
    let ir = FnIr {
        name: sig.ident.to_string(),
        role: Role::Device,
        params,
        ret,
        body,
        line: line_of(sig.fn_token.span),
        calls: lw.calls,
        state,
    };
    Ok((ir, spans))
}

struct Lowerer {
    state_param: Option<String>,
    scopes: Vec<HashSet<String>>,
    next_id: u32,
    calls: Vec<String>,
    /// Where each of `calls` is first called.
    call_spans: Vec<Span>,
    loop_depth: u32,
    ret: Option<Scalar>,
    /// Index in `scopes` of the innermost `lanes(..)` loop body, if inside one.
    lanes_scope: Option<usize>,
    /// Whether the innermost enclosing loop is a `lanes(..)` loop (what `break` would leave).
    innermost_is_lanes: bool,
    /// Inside a `lanes(..)` loop: reads of variables declared before it, and its reductions.
    outer_reads: Vec<(String, Span)>,
    reduced: Vec<(String, ReduceOp, Span)>,
    /// Lowering an `#[atos::device]` function (which runs on one thread: no `lanes` loops).
    in_device_fn: bool,
    /// A task item taken whole as a tuple (`item: (u32, f32)`): its name and part count. Its
    /// parts are the variables `item.0`, `item.1`, ..
    tuple_item: Option<(String, usize)>,
}

impl Lowerer {
    fn new(state_param: Option<String>) -> Self {
        Lowerer {
            state_param,
            scopes: vec![HashSet::new()],
            next_id: 0,
            calls: Vec::new(),
            call_spans: Vec::new(),
            loop_depth: 0,
            ret: None,
            lanes_scope: None,
            innermost_is_lanes: false,
            outer_reads: Vec::new(),
            reduced: Vec::new(),
            in_device_fn: false,
            tuple_item: None,
        }
    }

    /// `Some(parts)` when `e` names the whole tuple item (not shadowed).
    fn whole_tuple_item(&self, e: &syn::Expr) -> Option<(String, usize)> {
        let (name, n) = self.tuple_item.as_ref()?;
        let syn::Expr::Path(p) = strip_parens(e) else {
            return None;
        };
        let id = p.path.get_ident()?;
        let at = self
            .scopes
            .iter()
            .rposition(|s| s.contains(&id.to_string()))?;
        (*id == name && at == 0).then(|| (name.clone(), *n))
    }

    /// `Some(name)` when `e` names a variable declared before the enclosing `lanes(..)` loop.
    fn outer_in_lanes(&self, e: &syn::Expr) -> Option<String> {
        let syn::Expr::Path(p) = strip_parens(e) else {
            return None;
        };
        let name = p.path.get_ident()?.to_string();
        let at = self.scopes.iter().rposition(|s| s.contains(&name))?;
        (at < self.lanes_scope?).then_some(name)
    }

    fn declare(&mut self, name: &str) {
        self.scopes.last_mut().unwrap().insert(name.to_string());
    }

    fn is_local(&self, name: &str) -> bool {
        self.scopes.iter().any(|s| s.contains(name))
    }

    fn expr_node(&mut self, kind: ExprKind) -> Expr {
        let id = self.next_id;
        self.next_id += 1;
        Expr { id, kind }
    }

    fn scoped<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        self.scopes.push(HashSet::new());
        let r = f(self);
        self.scopes.pop();
        r
    }
}
