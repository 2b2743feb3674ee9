//! Task and device function signatures: what a header may declare, parameters, scalar types,
//! source lines.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Error, Result};

use atos_codegen::ir::*;
use atos_codegen::item::{MAX_ITEM_BYTES, MAX_TUPLE_PARTS, tuple_layout};

pub(crate) fn check_signature_header(sig: &syn::Signature) -> Result<()> {
    if is_raw(&sig.ident) {
        return Err(Error::new(
            sig.ident.span(),
            format!(
                "tasks and device functions cannot have raw-identifier names (`{}`): the name becomes a CUDA function; name it without `r#`",
                sig.ident
            ),
        ));
    }
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

/// A task's item parameter: a scalar (`v: u32`), or a tuple, destructured (`(v, d): (u32, f32)`)
/// or named (`item: (u32, f32)`, read as `item.0`, `item.1`).
pub(crate) struct ItemParam {
    /// The scalar, or the tuple's parts in order (a named tuple's parts are `item.0`, ..).
    pub params: Vec<Param>,
    pub tuple: bool,
    /// A named tuple's name.
    pub whole: Option<String>,
}

pub(crate) fn item_param(arg: &syn::FnArg) -> Result<ItemParam> {
    let syn::FnArg::Typed(pt) = arg else {
        return Err(Error::new(
            arg.span(),
            "a task cannot take `self`; write `fn task(v: u32, s: &State)`",
        ));
    };
    let syn::Type::Tuple(tt) = plain(&pt.ty) else {
        return Ok(ItemParam {
            params: vec![Param {
                name: ident_pattern(&pt.pat)?,
                ty: scalar_type(&pt.ty)?,
            }],
            tuple: false,
            whole: None,
        });
    };
    let parts = tt
        .elems
        .iter()
        .map(scalar_type)
        .collect::<Result<Vec<Scalar>>>()?;
    match parts.len() {
        0 => {
            return Err(Error::new(
                tt.span(),
                "a task item cannot be `()`: the item is what the queue holds, e.g. `v: u32`",
            ));
        }
        1 => {
            return Err(Error::new(
                tt.span(),
                format!(
                    "a one-part tuple item is just its part: write `{}`",
                    parts[0].rust_name()
                ),
            ));
        }
        n if n > MAX_TUPLE_PARTS => {
            return Err(Error::new(
                tt.span(),
                format!(
                    "a tuple item has at most {MAX_TUPLE_PARTS} parts (this one has {n}): pack small parts into one integer, or keep what does not travel with the item in a state array"
                ),
            ));
        }
        _ => {}
    }
    let size = tuple_layout(&parts).size as usize;
    if size > MAX_ITEM_BYTES {
        return Err(Error::new(
            tt.span(),
            format!(
                "a tuple item is at most {MAX_ITEM_BYTES} bytes, and `{}` takes {size} with its padding: use narrower parts, or keep what does not travel with the item in a state array",
                ElemTy::Tuple(parts).rust_name()
            ),
        ));
    }
    match &*pt.pat {
        syn::Pat::Tuple(pat) => {
            if pat.elems.len() != parts.len() {
                return Err(Error::new(
                    pat.span(),
                    format!(
                        "the pattern names {} parts but the item type has {}",
                        pat.elems.len(),
                        parts.len()
                    ),
                ));
            }
            let params = pat
                .elems
                .iter()
                .zip(&parts)
                .enumerate()
                .map(|(k, (p, ty))| {
                    let name = match p {
                        syn::Pat::Wild(_) => format!("unused.{k}"),
                        other => ident_pattern(other)?,
                    };
                    Ok(Param { name, ty: *ty })
                })
                .collect::<Result<Vec<_>>>()?;
            Ok(ItemParam {
                params,
                tuple: true,
                whole: None,
            })
        }
        other => {
            let whole = ident_pattern(other).map_err(|_| {
                Error::new(
                    other.span(),
                    "a tuple item is taken by name (`item: (u32, f32)`) or as a tuple of names (`(v, d): (u32, f32)`)",
                )
            })?;
            let params = parts
                .iter()
                .enumerate()
                .map(|(k, ty)| Param {
                    name: format!("{whole}.{k}"),
                    ty: *ty,
                })
                .collect();
            Ok(ItemParam {
                params,
                tuple: true,
                whole: Some(whole),
            })
        }
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
    let syn::Type::Reference(r) = plain(&pt.ty) else {
        return Err(wrong());
    };
    if r.mutability.is_some() {
        return Err(Error::new(
            r.span(),
            "the state is shared by every worker at once: take it as `&State`, not `&mut State`; update arrays through `Atomics` fields",
        ));
    }
    let syn::Type::Path(p) = plain(&r.elem) else {
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

/// The type itself, through the invisible groups a `macro_rules!` `$t:ty` leaves around it and
/// through parentheses, so a task generated by a declarative macro reads as one written out.
pub fn plain(mut ty: &syn::Type) -> &syn::Type {
    loop {
        match ty {
            syn::Type::Group(g) => ty = &g.elem,
            syn::Type::Paren(p) => ty = &p.elem,
            _ => return ty,
        }
    }
}

/// Resolves a written type to a device scalar.
pub fn scalar_type(ty: &syn::Type) -> Result<Scalar> {
    if let syn::Type::Path(p) = plain(ty)
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

/// Whether `ident` is written as a raw identifier (`r#match`).
pub(crate) fn is_raw(ident: &syn::Ident) -> bool {
    ident.to_string().starts_with("r#")
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
