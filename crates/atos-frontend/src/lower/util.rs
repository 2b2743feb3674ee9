//! Helpers shared by statement and expression lowering: paren stripping, common errors.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Error, Result};

use crate::signature::path_text;

pub(super) fn strip_parens(e: &syn::Expr) -> &syn::Expr {
    match e {
        syn::Expr::Paren(p) => strip_parens(&p.expr),
        syn::Expr::Group(g) => strip_parens(&g.expr),
        other => other,
    }
}

pub(super) fn no_turbofish(m: &syn::ExprMethodCall) -> Result<()> {
    match &m.turbofish {
        Some(t) => Err(Error::new(
            t.span(),
            "generic method calls are not supported in device code",
        )),
        None => Ok(()),
    }
}

pub(super) fn not_local_error(span: Span, name: &str) -> Error {
    Error::new(
        span,
        format!(
            "`{name}` is not a local variable or parameter: device code cannot read host statics or constants; pass the value through a scalar field of the state (e.g. `pub {}: u32`)",
            name.to_lowercase()
        ),
    )
}

pub(super) fn macro_error(mac: &syn::Macro) -> Error {
    Error::new(
        mac.span(),
        format!(
            "macro `{}!` cannot be used in device code: macros expand to host code; use plain expressions (results go through `Atomics` fields)",
            path_text(&mac.path)
        ),
    )
}
