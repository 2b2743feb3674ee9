//! Task and device function signatures: what a header may declare, parameters, scalar types,
//! source lines.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Error, Result};

use atos_codegen::ir::*;

pub(crate) fn check_signature_header(sig: &syn::Signature) -> Result<()> {
    if let Some(t) = &sig.constness {
        return Err(Error::new(
            t.span,
            "tasks and device functions cannot be `const fn`; remove `const`",
        ));
    }
    if let Some(t) = &sig.asyncness {
        return Err(Error::new(
            t.span,
            "tasks and device functions cannot be `async`; remove `async`",
        ));
    }
    if let Some(t) = &sig.unsafety {
        return Err(Error::new(
            t.span,
            "tasks and device functions cannot be `unsafe fn`; remove `unsafe`",
        ));
    }
    if let Some(abi) = &sig.abi {
        return Err(Error::new(
            abi.span(),
            "tasks and device functions cannot declare an ABI; remove `extern`",
        ));
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        return Err(Error::new(
            sig.generics.span(),
            "tasks and device functions cannot be generic: the CUDA they become is specialized per type at run time; write one function per type",
        ));
    }
    if let Some(v) = &sig.variadic {
        return Err(Error::new(
            v.span(),
            "tasks and device functions cannot be variadic",
        ));
    }
    Ok(())
}

pub(crate) fn scalar_param(arg: &syn::FnArg) -> Result<Param> {
    match arg {
        syn::FnArg::Receiver(r) => Err(Error::new(
            r.span(),
            "device functions cannot take `self`; write a free function",
        )),
        syn::FnArg::Typed(pt) => Ok(Param {
            name: ident_pattern(&pt.pat)?,
            ty: scalar_type(&pt.ty)?,
        }),
    }
}

pub(crate) fn state_param(arg: &syn::FnArg) -> Result<(String, String)> {
    let pt = match arg {
        syn::FnArg::Typed(pt) => pt,
        syn::FnArg::Receiver(r) => {
            return Err(Error::new(
                r.span(),
                "a task cannot take `self`; write `fn task(v: u32, s: &State)`",
            ));
        }
    };
    let name = ident_pattern(&pt.pat)?;
    let wrong = || {
        Error::new(
            pt.ty.span(),
            "the state parameter (a task's second, a device function's first) must be a shared reference to an #[atos::state] struct, e.g. `s: &Bfs`",
        )
    };
    let syn::Type::Reference(r) = &*pt.ty else {
        return Err(wrong());
    };
    if r.mutability.is_some() {
        return Err(Error::new(
            r.span(),
            "the state is shared by every worker at once: take it as `&State`, not `&mut State`; update arrays through `Atomics` fields",
        ));
    }
    let syn::Type::Path(p) = &*r.elem else {
        return Err(wrong());
    };
    if p.qself.is_some() {
        return Err(wrong());
    }
    let last = p.path.segments.last().ok_or_else(wrong)?;
    Ok((name, last.ident.to_string()))
}

pub(crate) fn ident_pattern(pat: &syn::Pat) -> Result<String> {
    match pat {
        syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
            Ok(pi.ident.to_string())
        }
        _ => Err(Error::new(
            pat.span(),
            "only plain names are supported here (no tuple, struct or `ref` patterns)",
        )),
    }
}

/// Resolves a written type to a device scalar.
pub fn scalar_type(ty: &syn::Type) -> Result<Scalar> {
    if let syn::Type::Path(p) = ty
        && p.qself.is_none()
        && let Some(id) = p.path.get_ident()
        && let Some(s) = Scalar::from_rust_name(&id.to_string())
    {
        return Ok(s);
    }
    Err(Error::new(
        ty.span(),
        format!(
            "type `{}` is not supported in device code; use one of: {}",
            quote::quote!(#ty).to_string().replace(' ', ""),
            Scalar::ALL_RUST_NAMES
        ),
    ))
}

pub(crate) fn path_text(p: &syn::Path) -> String {
    p.segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect::<Vec<_>>()
        .join("::")
}

/// 1-based line of a span; 0 where the compiler does not expose locations.
pub fn line_of(span: Span) -> u32 {
    span.start().line as u32
}
