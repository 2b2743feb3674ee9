//! Expression lowering: literals, paths, operators, state fields, `Atomics` and other calls.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Error, Result};

use super::Lowerer;
use super::util::{macro_error, no_turbofish, not_local_error, strip_parens};
use crate::signature::{is_raw, path_text, scalar_type};
use atos_codegen::ir::*;

impl Lowerer {
    /// `s.field.op(index, values..)`: an entry of `ops::ATOMICS`.
    pub(super) fn atomic_call(&mut self, field: String, m: &syn::ExprMethodCall) -> Result<Expr> {
        let method = m.method.to_string();
        let decl = atos_codegen::ops::atomic(&method).ok_or_else(|| {
            let hint = if method.starts_with("compare_exchange") {
                format!(
                    "; write `s.{field}.compare_and_swap(i, current, new)`, which returns the previous value: the exchange happened when it equals `current`"
                )
            } else {
                String::new()
            };
            Error::new(
                m.method.span(),
                format!(
                    "`{method}` is not an `Atomics` method in device code; supported: {}, `len`, and `push` on queues{hint}",
                    atos_codegen::ops::atomic_names()
                ),
            )
        })?;
        let want = 1 + decl.values;
        if m.args.len() != want {
            return Err(Error::new(
                m.span(),
                format!(
                    "`{method}` takes {want} argument(s): the index, then {} value(s)",
                    decl.values
                ),
            ));
        }
        let args = m.args.iter().map(|a| self.expr(a)).collect::<Result<_>>()?;
        Ok(self.expr_node(ExprKind::Atomic {
            field,
            op: method,
            args,
        }))
    }

    /// `Some(field)` when `e` is `state.field`.
    pub(super) fn state_field(&self, e: &syn::Expr) -> Result<Option<String>> {
        let syn::Expr::Field(f) = strip_parens(e) else {
            return Ok(None);
        };
        let syn::Expr::Path(base) = strip_parens(&f.base) else {
            return Ok(None);
        };
        let Some(base) = base.path.get_ident() else {
            return Ok(None);
        };
        let Some(state) = &self.state_param else {
            return Err(Error::new(
                f.span(),
                "this device function does not take the state: give it the state as its first parameter (`fn f(s: &State, ..)`, called as `f(s, ..)`), or pass the values it needs as arguments",
            ));
        };
        if base != state {
            return Ok(None);
        }
        match &f.member {
            syn::Member::Named(id) => Ok(Some(id.to_string())),
            syn::Member::Unnamed(i) => Err(Error::new(
                i.span(),
                "state fields are named; tuple fields are not supported",
            )),
        }
    }

    pub(super) fn expr(&mut self, e: &syn::Expr) -> Result<Expr> {
        use syn::Expr as E;
        let kind = match e {
            E::Paren(p) => return self.expr(&p.expr),
            E::Group(g) => return self.expr(&g.expr),
            E::Lit(l) => literal(&l.lit)?,
            E::Path(p) => self.path_expr(p)?,
            E::Unary(u) => {
                let op = match u.op {
                    syn::UnOp::Neg(_) => UnOp::Neg,
                    syn::UnOp::Not(_) => UnOp::Not,
                    _ => {
                        return Err(Error::new(
                            u.op.span(),
                            "dereferencing is not supported in device code: values are plain scalars",
                        ));
                    }
                };
                ExprKind::Unary(op, Box::new(self.expr(&u.expr)?))
            }
            E::Binary(b) => {
                let Some(op) = binary_op(&b.op) else {
                    return Err(Error::new(
                        b.op.span(),
                        "compound assignment is a statement in device code: write it on its own line, e.g. `x += 1;`",
                    ));
                };
                ExprKind::Binary(
                    op,
                    Box::new(self.expr(&b.left)?),
                    Box::new(self.expr(&b.right)?),
                )
            }
            E::Cast(c) => ExprKind::Cast(Box::new(self.expr(&c.expr)?), scalar_type(&c.ty)?),
            E::Index(i) => {
                let field = self.state_field(&i.expr)?.ok_or_else(|| {
                    Error::new(
                        i.expr.span(),
                        "only state `Slice` fields can be indexed in device code, e.g. `s.cols[e]`",
                    )
                })?;
                ExprKind::Index {
                    field,
                    index: Box::new(self.expr(&i.index)?),
                }
            }
            E::Field(f) if self.whole_tuple_item(&f.base).is_some() => {
                let (name, n) = self
                    .whole_tuple_item(&f.base)
                    .expect("checked by the guard");
                match &f.member {
                    syn::Member::Unnamed(k) if (k.index as usize) < n => {
                        ExprKind::Var(format!("{name}.{}", k.index))
                    }
                    other => {
                        return Err(Error::new(
                            other.span(),
                            format!(
                                "`{name}` is a tuple of {n} parts: read them as `{name}.0` to `{name}.{}`",
                                n - 1
                            ),
                        ));
                    }
                }
            }
            E::Field(f) => {
                let field = self.state_field(e)?.ok_or_else(|| {
                    Error::new(
                        f.span(),
                        "field access is only supported on the task state, e.g. `s.depth`",
                    )
                })?;
                ExprKind::Field { field }
            }
            E::MethodCall(m) => self.method_call(m)?,
            E::Call(c) => self.call(c)?,
            E::If(i) => self.if_expr(i)?,
            E::Macro(m) => return Err(macro_error(&m.mac)),
            other => {
                let (span, message) = refusal(other);
                return Err(Error::new(span, message));
            }
        };
        Ok(self.expr_node(kind))
    }

    fn path_expr(&mut self, p: &syn::ExprPath) -> Result<ExprKind> {
        if p.qself.is_some() {
            return Err(Error::new(
                p.span(),
                "qualified paths are not supported in device code",
            ));
        }
        if let Some(id) = p.path.get_ident() {
            let name = id.to_string();
            if let Some((_, n)) = self.whole_tuple_item(&syn::Expr::Path(p.clone())) {
                return Err(Error::new(
                    id.span(),
                    format!(
                        "`{name}` is the task's tuple item: read its parts as `{name}.0` to `{name}.{}`, or push it whole (`s.queue.push({name})`)",
                        n - 1
                    ),
                ));
            }
            if self.is_local(&name) {
                let at = self.scopes.iter().rposition(|s| s.contains(&name));
                if let (Some(at), Some(lanes)) = (at, self.lanes_scope)
                    && at < lanes
                {
                    self.outer_reads.push((name.clone(), id.span()));
                }
                return Ok(ExprKind::Var(name));
            }
            if self.state_param.as_deref() == Some(name.as_str()) {
                return Err(Error::new(
                    id.span(),
                    "the state can only be used through its fields, e.g. `s.depth`",
                ));
            }
            return Err(not_local_error(id.span(), &name));
        }
        // `u32::MAX` and friends.
        let segs: Vec<String> = p
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        if segs.len() == 2
            && let Some(ty) = Scalar::from_rust_name(&segs[0])
            && ty.is_int()
            && (segs[1] == "MAX" || segs[1] == "MIN")
        {
            return Ok(int_limit(ty, segs[1] == "MAX", self));
        }
        if segs.len() == 2
            && let Some(ty) = Scalar::from_rust_name(&segs[0])
            && ty.is_float()
            && atos_codegen::ops::float_const(&segs[1]).is_some()
        {
            return Ok(ExprKind::FloatConst {
                name: segs[1].clone(),
                ty,
            });
        }
        Err(Error::new(
            p.span(),
            format!(
                "`{}` cannot be used in device code: only locals, parameters, state fields, integer `T::MAX`/`T::MIN` and the float constants {} can be named; pass host values through a scalar state field",
                segs.join("::"),
                atos_codegen::ops::FLOAT_CONSTS
                    .iter()
                    .map(|c| format!("`{}`", c.name))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ))
    }

    fn method_call(&mut self, m: &syn::ExprMethodCall) -> Result<ExprKind> {
        no_turbofish(m)?;
        let method = m.method.to_string();
        if let Some(field) = self.state_field(&m.receiver)? {
            if method == "len" {
                if !m.args.is_empty() {
                    return Err(Error::new(m.span(), "`len` takes no arguments"));
                }
                return Ok(ExprKind::Len { field });
            }
            if method == "push" || method == "store" {
                return Err(Error::new(
                    m.method.span(),
                    format!(
                        "`{method}` returns nothing: call it as a statement, e.g. `s.{field}.{method}(..);`"
                    ),
                ));
            }
            // A scalar method on a field (`s.window.max(1)` on a scalar field) is the method
            // on the field's value; the type checker refuses it on any other kind of field.
            let scalar_method = atos_codegen::ops::atomic(&method).is_none()
                && atos_codegen::ops::method(&method).is_some();
            if !scalar_method {
                return Ok(self.atomic_call(field, m)?.kind);
            }
        }
        if let Some(decl) = atos_codegen::ops::method(&method) {
            if m.args.len() != decl.args {
                return Err(Error::new(
                    m.span(),
                    format!("`{method}` takes {} argument(s)", decl.args),
                ));
            }
            let mut args = vec![self.expr(&m.receiver)?];
            for a in &m.args {
                args.push(self.expr(a)?);
            }
            return Ok(ExprKind::Method { name: method, args });
        }
        // The receiver's own refusal (`s.f.compare_exchange(..)` under `.is_ok()`) names the
        // construct to change; report it first.
        self.expr(&m.receiver)?;
        Err(Error::new(
            m.method.span(),
            format!(
                "method `{method}` is not supported in device code; scalar methods: {}, operators and `as` casts",
                atos_codegen::ops::method_names()
            ),
        ))
    }

    fn call(&mut self, c: &syn::ExprCall) -> Result<ExprKind> {
        let syn::Expr::Path(p) = strip_parens(&c.func) else {
            return Err(Error::new(
                c.func.span(),
                "only #[atos::device] functions can be called in device code",
            ));
        };
        if p.qself.is_some() || p.path.segments.iter().any(|s| !s.arguments.is_none()) {
            return Err(Error::new(
                p.span(),
                "device function calls cannot use generics or qualified paths",
            ));
        }
        let name = p
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        let segs: Vec<String> = p
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        // `std::cmp::min(a, b)` / `cmp::max(a, b)`: the same as `a.min(b)` / `a.max(b)`.
        if segs.len() >= 2 && segs[segs.len() - 2] == "cmp" && (name == "min" || name == "max") {
            if c.args.len() != 2 {
                return Err(Error::new(
                    c.span(),
                    format!("`cmp::{name}` takes 2 arguments"),
                ));
            }
            return Ok(ExprKind::Method {
                name,
                args: vec![self.expr(&c.args[0])?, self.expr(&c.args[1])?],
            });
        }
        // `u64::from(x)`: rustc admits only lossless conversions, which a cast computes.
        if segs.len() == 2 && name == "from" {
            let Some(to) = Scalar::from_rust_name(&segs[0]) else {
                return Err(Error::new(
                    p.span(),
                    format!(
                        "`{}::from` is not supported in device code; `from` converts between scalar types (`u64::from(x)`), or use an `as` cast",
                        segs[0]
                    ),
                ));
            };
            if c.args.len() != 1 {
                return Err(Error::new(
                    c.span(),
                    format!("`{}::from` takes 1 argument", segs[0]),
                ));
            }
            return Ok(ExprKind::Cast(Box::new(self.expr(&c.args[0])?), to));
        }
        if name == "lanes" && p.path.segments.len() == 1 {
            return Err(Error::new(
                c.span(),
                "`lanes(lo..hi)` can only be the iterator of a `for` loop",
            ));
        }
        if let Some(raw) = p.path.segments.iter().find(|s| is_raw(&s.ident)) {
            return Err(Error::new(
                raw.ident.span(),
                format!(
                    "device functions cannot be called by raw-identifier names (`{}`): a device function's name cannot be one; name it without `r#`",
                    raw.ident
                ),
            ));
        }
        let full = path_text(&p.path);
        if full == "fence" || full == "atos::fence" {
            return Err(Error::new(
                c.span(),
                "`atos::fence()` is a statement of its own: write `atos::fence();` on its own line",
            ));
        }
        if !self.calls.contains(&full) {
            self.calls.push(full);
            self.call_spans.push(p.span());
        }
        let args = c
            .args
            .iter()
            .map(|a| match (strip_parens(a), &self.state_param) {
                // The state, passed on to a device function that takes it.
                (syn::Expr::Path(p), Some(state))
                    if p.path.get_ident().is_some_and(|i| i == state) =>
                {
                    Ok(self.expr_node(ExprKind::StateRef))
                }
                _ => self.expr(a),
            })
            .collect::<Result<_>>()?;
        Ok(ExprKind::Call { func: name, args })
    }

    fn if_expr(&mut self, i: &syn::ExprIf) -> Result<ExprKind> {
        let single = |b: &syn::Block| -> Result<syn::Expr> {
            match b.stmts.as_slice() {
                [syn::Stmt::Expr(e, None)] => Ok(e.clone()),
                _ => Err(Error::new(
                    b.span(),
                    "an `if` used as a value must have a single expression in each branch; otherwise declare a `let mut` and assign it in each branch",
                )),
            }
        };
        let Some((_, els)) = &i.else_branch else {
            return Err(Error::new(
                i.span(),
                "an `if` used as a value needs an `else` branch",
            ));
        };
        let cond = self.expr(&i.cond)?;
        let then = self.expr(&single(&i.then_branch)?)?;
        let els = match &**els {
            syn::Expr::Block(b) => self.expr(&single(&b.block)?)?,
            other => self.expr(other)?,
        };
        Ok(ExprKind::If {
            cond: Box::new(cond),
            then: Box::new(then),
            els: Box::new(els),
        })
    }
}

fn int_limit(ty: Scalar, max: bool, lw: &mut Lowerer) -> ExprKind {
    let bits = ty.size_bytes() * 8;
    match (ty.is_signed_int(), max) {
        (false, true) => ExprKind::Int {
            value: (1u128 << bits) - 1,
            suffix: Some(ty),
        },
        (false, false) => ExprKind::Int {
            value: 0,
            suffix: Some(ty),
        },
        (true, true) => ExprKind::Int {
            value: (1u128 << (bits - 1)) - 1,
            suffix: Some(ty),
        },
        (true, false) => {
            let magnitude = lw.expr_node(ExprKind::Int {
                value: 1u128 << (bits - 1),
                suffix: Some(ty),
            });
            ExprKind::Unary(UnOp::Neg, Box::new(magnitude))
        }
    }
}

fn literal(lit: &syn::Lit) -> Result<ExprKind> {
    let suffix_of = |suffix: &str, span: Span| -> Result<Option<Scalar>> {
        if suffix.is_empty() {
            return Ok(None);
        }
        Scalar::from_rust_name(suffix).map(Some).ok_or_else(|| {
            Error::new(
                span,
                format!(
                    "literal suffix `{suffix}` is not supported; use one of: {}",
                    Scalar::ALL_RUST_NAMES
                ),
            )
        })
    };
    match lit {
        syn::Lit::Int(i) => {
            let value = i.base10_parse::<u128>()?;
            Ok(ExprKind::Int {
                value,
                suffix: suffix_of(i.suffix(), i.span())?,
            })
        }
        syn::Lit::Float(f) => Ok(ExprKind::Float {
            digits: f.base10_digits().to_string(),
            suffix: suffix_of(f.suffix(), f.span())?,
        }),
        syn::Lit::Bool(b) => Ok(ExprKind::Bool(b.value)),
        other => Err(Error::new(
            other.span(),
            "only integer, float and bool literals are supported in device code",
        )),
    }
}

fn binary_op(op: &syn::BinOp) -> Option<BinOp> {
    use syn::BinOp as B;
    Some(match op {
        B::Add(_) => BinOp::Add,
        B::Sub(_) => BinOp::Sub,
        B::Mul(_) => BinOp::Mul,
        B::Div(_) => BinOp::Div,
        B::Rem(_) => BinOp::Rem,
        B::BitAnd(_) => BinOp::BitAnd,
        B::BitOr(_) => BinOp::BitOr,
        B::BitXor(_) => BinOp::BitXor,
        B::Shl(_) => BinOp::Shl,
        B::Shr(_) => BinOp::Shr,
        B::Eq(_) => BinOp::Eq,
        B::Ne(_) => BinOp::Ne,
        B::Lt(_) => BinOp::Lt,
        B::Le(_) => BinOp::Le,
        B::Gt(_) => BinOp::Gt,
        B::Ge(_) => BinOp::Ge,
        B::And(_) => BinOp::And,
        B::Or(_) => BinOp::Or,
        _ => return None,
    })
}

/// Why an expression outside the subset is refused, and what to write instead.
fn refusal(e: &syn::Expr) -> (Span, &'static str) {
    use syn::Expr as E;
    match e {
        E::Closure(c) => (
            c.span(),
            "closures are not supported in device code; write a #[atos::device] fn and call it",
        ),
        E::Try(t) => (
            t.question_token.span,
            "the `?` operator is not supported in device code: there are no error values on the device; check with `if` and `return` early",
        ),
        E::Reference(r) => (
            r.span(),
            "references cannot be taken in device code; pass values by copy",
        ),
        E::Match(m) => (
            m.match_token.span,
            "`match` is not supported yet in device code; use `if` / `else if`",
        ),
        E::Range(r) => (
            r.span(),
            "ranges are only allowed as the iterator of a `for` loop",
        ),
        E::Tuple(t) => (
            t.span(),
            "tuples are only task items in device code: push one (`s.queue.push((a, b))`) or read the item's parts; elsewhere use separate variables",
        ),
        E::Array(a) => (
            a.span(),
            "arrays are not supported in device code; use a state `Slice` or `Atomics` field",
        ),
        E::Struct(s) => (
            s.span(),
            "struct values are not supported in device code; use scalars",
        ),
        E::Unsafe(u) => (
            u.unsafe_token.span,
            "`unsafe` blocks are not allowed in device code",
        ),
        E::Assign(a) => (
            a.span(),
            "assignment is a statement in device code: write it on its own line",
        ),
        E::Block(_) | E::Loop(_) | E::While(_) | E::ForLoop(_) => (
            e.span(),
            "blocks and loops cannot be used as values in device code; assign to a `let mut` inside them instead",
        ),
        other => (
            other.span(),
            "this expression is not in the atos device subset (see docs/dsl.md for what is supported)",
        ),
    }
}
