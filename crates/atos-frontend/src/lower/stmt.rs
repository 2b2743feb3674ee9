//! Statement lowering: blocks, `let`, assignments, loops, `lanes(..)` reductions, push/store.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Error, Result};

use super::Lowerer;
use super::util::{macro_error, no_turbofish, not_local_error, strip_parens};
use crate::signature::{ident_pattern, line_of, path_text, scalar_type};
use atos_codegen::ir::*;

impl Lowerer {
    /// Lowers a block; `tail_returns` makes a trailing expression the function's result.
    pub(super) fn block(&mut self, block: &syn::Block, tail_returns: bool) -> Result<Vec<Stmt>> {
        self.scoped(|lw| lw.stmts(&block.stmts, tail_returns))
    }

    fn stmts(&mut self, stmts: &[syn::Stmt], tail_returns: bool) -> Result<Vec<Stmt>> {
        let mut out = Vec::new();
        let mut errors: Option<Error> = None;
        for (i, stmt) in stmts.iter().enumerate() {
            let is_tail = i + 1 == stmts.len();
            match self.stmt(stmt, tail_returns && is_tail) {
                Ok(s) => out.extend(s),
                Err(e) => match &mut errors {
                    Some(all) => all.combine(e),
                    None => errors = Some(e),
                },
            }
        }
        match errors {
            Some(e) => Err(e),
            None => Ok(out),
        }
    }

    fn stmt(&mut self, stmt: &syn::Stmt, tail_returns: bool) -> Result<Option<Stmt>> {
        let line = line_of(stmt.span());
        let kind = match stmt {
            syn::Stmt::Local(local) => self.local(local)?,
            syn::Stmt::Item(item) => {
                return Err(Error::new(
                    item.span(),
                    "items (fn, struct, use, const, static) cannot be declared inside device code; declare them at module level (helpers as #[atos::device] fn)",
                ));
            }
            syn::Stmt::Macro(m) => return Err(macro_error(&m.mac)),
            syn::Stmt::Expr(e, semi) => {
                if semi.is_none() && tail_returns && !is_statement_like(e) {
                    let value = self.expr(e)?;
                    StmtKind::Return(Some(value))
                } else {
                    self.expr_stmt(e)?
                }
            }
        };
        Ok(Some(Stmt { line, kind }))
    }

    fn local(&mut self, local: &syn::Local) -> Result<StmtKind> {
        let (pat, ty) = match &local.pat {
            syn::Pat::Type(pt) => (&*pt.pat, Some(scalar_type(&pt.ty)?)),
            p => (p, None),
        };
        let name = ident_pattern(pat)?;
        let init = local.init.as_ref().ok_or_else(|| {
            Error::new(local.span(), format!("`let {name}` needs an initial value in device code, e.g. `let {name}: u32 = 0;`"))
        })?;
        if let Some((else_tok, _)) = &init.diverge {
            return Err(Error::new(
                else_tok.span,
                "`let ... else` is not supported in device code; use `if` and `return`",
            ));
        }
        // Declare the name even when the initializer is rejected, so later uses do not
        // produce a second, misleading error.
        let init = self.expr(&init.expr);
        self.declare(&name);
        Ok(StmtKind::Let {
            name,
            ty,
            init: init?,
        })
    }

    fn expr_stmt(&mut self, e: &syn::Expr) -> Result<StmtKind> {
        use syn::Expr as E;
        Ok(match e {
            E::Assign(a) if self.outer_in_lanes(&a.left).is_some() => {
                let target = self.outer_in_lanes(&a.left).unwrap();
                self.reduction(target, a.span(), None, &a.right)?
            }
            E::Binary(b)
                if compound_op(&b.op).is_some() && self.outer_in_lanes(&b.left).is_some() =>
            {
                let target = self.outer_in_lanes(&b.left).unwrap();
                self.reduction(target, b.span(), Some(&b.op), &b.right)?
            }
            E::Assign(a) => {
                let target = self.assign_target(&a.left)?;
                StmtKind::Assign {
                    target,
                    op: None,
                    value: self.expr(&a.right)?,
                }
            }
            E::Binary(b) if compound_op(&b.op).is_some() => {
                let target = self.assign_target(&b.left)?;
                StmtKind::Assign {
                    target,
                    op: compound_op(&b.op),
                    value: self.expr(&b.right)?,
                }
            }
            E::If(i) => self.if_stmt(i)?,
            E::While(w) => {
                no_label(&w.label)?;
                if let E::Let(l) = &*w.cond {
                    return Err(Error::new(
                        l.span(),
                        "`while let` is not supported in device code; use `while` with a condition",
                    ));
                }
                let cond = self.expr(&w.cond)?;
                let body = self.loop_body(&w.body)?;
                StmtKind::While { cond, body }
            }
            E::Loop(l) => {
                no_label(&l.label)?;
                StmtKind::Loop {
                    body: self.loop_body(&l.body)?,
                }
            }
            E::ForLoop(f) => self.for_loop(f)?,
            E::Break(b) => {
                if let Some(l) = &b.label {
                    return Err(Error::new(
                        l.span(),
                        "loop labels are not supported in device code; restructure with a flag variable",
                    ));
                }
                if let Some(v) = &b.expr {
                    return Err(Error::new(
                        v.span(),
                        "`break` with a value is not supported; assign to a `let mut` before breaking",
                    ));
                }
                self.require_loop(b.span(), "break")?;
                if self.innermost_is_lanes {
                    return Err(Error::new(
                        b.span(),
                        "`break` cannot leave a `lanes(..)` loop: on the GPU it would stop only the lane that reached it while the others run on; use `continue` to skip an index, or a plain `for` loop (run by every lane) when the loop must stop early",
                    ));
                }
                StmtKind::Break
            }
            E::Continue(c) => {
                if let Some(l) = &c.label {
                    return Err(Error::new(
                        l.span(),
                        "loop labels are not supported in device code; restructure with a flag variable",
                    ));
                }
                self.require_loop(c.span(), "continue")?;
                StmtKind::Continue
            }
            E::Return(r) if self.lanes_scope.is_some() => {
                return Err(Error::new(
                    r.span(),
                    "`return` inside a `lanes(..)` loop would stop only one lane on the GPU; use `continue` to skip an index and return after the loop",
                ));
            }
            E::Return(r) => match (&r.expr, self.state_param.is_some(), self.ret) {
                (Some(v), true, _) => {
                    return Err(Error::new(
                        v.span(),
                        "a task returns nothing: write results through `Atomics` fields and push follow-up tasks; use a bare `return;`",
                    ));
                }
                (Some(v), false, _) => StmtKind::Return(Some(self.expr(v)?)),
                (None, _, Some(_)) => {
                    return Err(Error::new(
                        r.span(),
                        "this device function returns a value: write `return value;`",
                    ));
                }
                (None, _, None) => StmtKind::Return(None),
            },
            E::Block(b) => {
                if let Some(l) = &b.label {
                    return Err(Error::new(
                        l.span(),
                        "block labels are not supported in device code",
                    ));
                }
                StmtKind::Block(self.block(&b.block, false)?)
            }
            E::MethodCall(m) if m.method == "push" || m.method == "store" => self.effect_call(m)?,
            E::Call(c) if is_fence(&c.func) => {
                if !c.args.is_empty() {
                    return Err(Error::new(
                        c.span(),
                        "`fence` takes no arguments: `atos::fence()` orders all of this task's memory operations",
                    ));
                }
                StmtKind::Fence
            }
            _ => StmtKind::Expr(self.expr(e)?),
        })
    }

    fn require_loop(&self, span: Span, what: &str) -> Result<()> {
        if self.loop_depth == 0 {
            return Err(Error::new(span, format!("`{what}` outside of a loop")));
        }
        Ok(())
    }

    fn loop_body(&mut self, body: &syn::Block) -> Result<Vec<Stmt>> {
        self.loop_depth += 1;
        let was = std::mem::replace(&mut self.innermost_is_lanes, false);
        let r = self.block(body, false);
        self.innermost_is_lanes = was;
        self.loop_depth -= 1;
        r
    }

    fn if_stmt(&mut self, i: &syn::ExprIf) -> Result<StmtKind> {
        if let syn::Expr::Let(l) = &*i.cond {
            return Err(Error::new(
                l.span(),
                "`if let` is not supported in device code; compare values with `if`",
            ));
        }
        let cond = self.expr(&i.cond)?;
        let then = self.block(&i.then_branch, false)?;
        let els = match &i.else_branch {
            None => None,
            Some((_, e)) => Some(match &**e {
                syn::Expr::Block(b) => self.block(&b.block, false)?,
                syn::Expr::If(nested) => {
                    let line = line_of(nested.span());
                    vec![Stmt {
                        line,
                        kind: self.if_stmt(nested)?,
                    }]
                }
                other => return Err(Error::new(other.span(), "expected a block after `else`")),
            }),
        };
        Ok(StmtKind::If { cond, then, els })
    }

    fn for_loop(&mut self, f: &syn::ExprForLoop) -> Result<StmtKind> {
        no_label(&f.label)?;
        if let syn::Pat::Ident(pi) = &*f.pat
            && let Some(m) = &pi.mutability
        {
            // Rust's `for mut e` assigns a copy: the next index is unchanged. The generated
            // loop steps the variable itself, and an index checked once per range
            // (hoist_index_checks) relies on it staying the index.
            return Err(Error::new(
                m.span(),
                "a device loop variable cannot be `mut`: on the GPU, assigning it would change the loop's next index (Rust's loop would not); copy it first: `let mut x = e;`",
            ));
        }
        let var = ident_pattern(&f.pat)?;
        let (range, lanes) = match &*f.expr {
            syn::Expr::Call(c) if callee_name(&c.func).as_deref() == Some("lanes") => {
                if c.args.len() != 1 {
                    return Err(Error::new(
                        c.span(),
                        "`lanes` takes one range: `lanes(lo..hi)`",
                    ));
                }
                (&c.args[0], true)
            }
            other => (other, false),
        };
        // `(lo..hi).rev()` and `(lo..hi).step_by(k)` on a plain loop.
        let mut rev = false;
        let mut step_expr: Option<&syn::Expr> = None;
        let mut range = strip_parens(range);
        if let syn::Expr::MethodCall(m) = range {
            let ok = match m.method.to_string().as_str() {
                "rev" if m.args.is_empty() => {
                    rev = true;
                    true
                }
                "step_by" if m.args.len() == 1 => {
                    step_expr = Some(&m.args[0]);
                    true
                }
                _ => false,
            };
            if !ok || lanes {
                return Err(Error::new(
                    m.span(),
                    if lanes {
                        "`lanes(..)` takes a plain range `lo..hi`: its lanes already stride over it"
                    } else {
                        "device `for` loops iterate over `lo..hi`, `(lo..hi).rev()` or `(lo..hi).step_by(k)` (one of them)"
                    },
                ));
            }
            range = strip_parens(&m.receiver);
        }
        let syn::Expr::Range(r) = range else {
            return Err(Error::new(
                f.expr.span(),
                "device `for` loops iterate over `lo..hi`, `(lo..hi).rev()`, `(lo..hi).step_by(k)` or `lanes(lo..hi)`; iterators and collections are host-only",
            ));
        };
        if let syn::RangeLimits::Closed(t) = r.limits {
            return Err(Error::new(
                t.span(),
                "inclusive ranges are not supported in device loops; write `lo..hi + 1`",
            ));
        }
        let (Some(lo), Some(hi)) = (&r.start, &r.end) else {
            return Err(Error::new(
                r.span(),
                "device loops need both bounds: `lo..hi`",
            ));
        };
        let lo = self.expr(lo)?;
        let hi = self.expr(hi)?;
        let step = step_expr.map(|e| self.expr(e)).transpose()?.map(Box::new);
        if lanes && self.in_device_fn {
            return Err(Error::new(
                f.expr.span(),
                "`lanes(..)` loops belong in a task body: a device function runs on one thread; write the `lanes` loop in the task and call the function inside it",
            ));
        }
        if lanes && self.lanes_scope.is_some() {
            return Err(Error::new(
                f.expr.span(),
                "`lanes(..)` loops cannot be nested: the worker's lanes are already spread over the outer loop; use a plain `for` inside",
            ));
        }
        self.loop_depth += 1;
        let outer_lanes = self.lanes_scope;
        if lanes {
            self.lanes_scope = Some(self.scopes.len());
        }
        let was = std::mem::replace(&mut self.innermost_is_lanes, lanes);
        let body = self.scoped(|lw| {
            lw.declare(&var);
            lw.stmts(&f.body.stmts, false)
        });
        self.innermost_is_lanes = was;
        self.lanes_scope = outer_lanes;
        self.loop_depth -= 1;
        if lanes {
            self.check_reductions()?;
        }
        Ok(StmtKind::For {
            var,
            lo,
            hi,
            lanes,
            body: body?,
            rev,
            step,
        })
    }

    /// An assignment inside a `lanes(..)` loop to `target`, declared before it: a reduction
    /// (`ops::REDUCTIONS`) or an error that lists them.
    fn reduction(
        &mut self,
        target: String,
        span: Span,
        op: Option<&syn::BinOp>,
        rhs: &syn::Expr,
    ) -> Result<StmtKind> {
        let is_target = |e: &syn::Expr| matches!(strip_parens(e), syn::Expr::Path(p) if p.path.get_ident().is_some_and(|i| *i == target));
        let found: Option<(ReduceOp, &syn::Expr)> = match (op, strip_parens(rhs)) {
            (Some(syn::BinOp::AddAssign(_)), e) => Some((ReduceOp::Add, e)),
            (Some(syn::BinOp::BitAndAssign(_)), e) => Some((ReduceOp::BitAnd, e)),
            (Some(syn::BinOp::BitOrAssign(_)), e) => Some((ReduceOp::BitOr, e)),
            (Some(syn::BinOp::BitXorAssign(_)), e) => Some((ReduceOp::BitXor, e)),
            (Some(_), _) => None,
            // `x = x.min(e)` / `x = e.min(x)`.
            (None, syn::Expr::MethodCall(m))
                if (m.method == "min" || m.method == "max") && m.args.len() == 1 =>
            {
                let op = if m.method == "min" {
                    ReduceOp::Min
                } else {
                    ReduceOp::Max
                };
                if is_target(&m.receiver) {
                    Some((op, &m.args[0]))
                } else if is_target(&m.args[0]) {
                    Some((op, &*m.receiver))
                } else {
                    None
                }
            }
            // `x = cmp::min(x, e)` / `x = cmp::min(e, x)`.
            (None, syn::Expr::Call(c)) if c.args.len() == 2 => {
                let path = match strip_parens(&c.func) {
                    syn::Expr::Path(p) => path_text(&p.path),
                    _ => String::new(),
                };
                let op = if path.ends_with("cmp::min") {
                    Some(ReduceOp::Min)
                } else if path.ends_with("cmp::max") {
                    Some(ReduceOp::Max)
                } else {
                    None
                };
                match op {
                    Some(op) if is_target(&c.args[0]) => Some((op, &c.args[1])),
                    Some(op) if is_target(&c.args[1]) => Some((op, &c.args[0])),
                    _ => None,
                }
            }
            _ => None,
        };
        let Some((op, value)) = found else {
            let hint = match strip_parens(rhs) {
                syn::Expr::Binary(b) if matches!(b.op, syn::BinOp::Or(_)) => {
                    format!(
                        "; for \"any\" write `{target} |= e` (it evaluates `e` for every index, as each lane does)"
                    )
                }
                syn::Expr::Binary(b) if matches!(b.op, syn::BinOp::And(_)) => {
                    format!(
                        "; for \"all\" write `{target} &= e` (it evaluates `e` for every index, as each lane does)"
                    )
                }
                _ => String::new(),
            };
            return Err(Error::new(
                span,
                format!(
                    "`{target}` is declared outside this `lanes(..)` loop, where each lane holds its own share of it: inside the loop it can only be reduced, with one of {} (`x` the variable, `e` the lane's value), and it holds the combined value after the loop; for other updates use an `Atomics` field{hint}",
                    atos_codegen::ops::reduction_forms()
                ),
            ));
        };
        self.reduced.push((target.clone(), op, span));
        Ok(StmtKind::Reduce {
            target,
            op,
            value: self.expr(value)?,
        })
    }

    /// After a `lanes(..)` loop: its reduced variables are not read inside it (a lane would see
    /// only its share) and each is reduced with one operation.
    fn check_reductions(&mut self) -> Result<()> {
        let reads = std::mem::take(&mut self.outer_reads);
        let reduced = std::mem::take(&mut self.reduced);
        for (name, op, _) in &reduced {
            if let Some((_, read)) = reads.iter().find(|(n, _)| n == name) {
                return Err(Error::new(
                    *read,
                    format!(
                        "`{name}` is reduced across lanes in this `lanes(..)` loop, so inside it each lane holds only its share: read it after the loop, where it holds the combined value"
                    ),
                ));
            }
            if let Some((_, other, at)) = reduced.iter().find(|(n, o, _)| n == name && o != op) {
                return Err(Error::new(
                    *at,
                    format!(
                        "`{name}` is reduced with two operations ({} and {}) in one `lanes(..)` loop: use one, or a second variable",
                        atos_codegen::ops::reduction(*op).rust,
                        atos_codegen::ops::reduction(*other).rust
                    ),
                ));
            }
        }
        Ok(())
    }

    fn assign_target(&mut self, e: &syn::Expr) -> Result<String> {
        match strip_parens(e) {
            syn::Expr::Path(p) if p.path.get_ident().is_some() => {
                let name = p.path.get_ident().unwrap().to_string();
                let declared_at = self.scopes.iter().rposition(|s| s.contains(&name));
                if let (Some(at), Some(lanes)) = (declared_at, self.lanes_scope)
                    && at < lanes
                {
                    return Err(Error::new(
                        p.span(),
                        format!(
                            "`{name}` is declared outside this `lanes(..)` loop and cannot be assigned inside it: on the GPU each lane has its own copy; accumulate through an `Atomics` field instead"
                        ),
                    ));
                }
                if declared_at.is_some() {
                    Ok(name)
                } else {
                    Err(not_local_error(p.span(), &name))
                }
            }
            syn::Expr::Index(i) => Err(Error::new(
                i.span(),
                "`Slice` fields are read-only on the device; to write an array, declare it as `Atomics<'a, T>` and call `.store(index, value)`",
            )),
            syn::Expr::Field(f) => Err(Error::new(
                f.span(),
                "state fields cannot be assigned inside a task: the state is shared by every worker; use an `Atomics` field",
            )),
            other => Err(Error::new(
                other.span(),
                "only local variables can be assigned in device code",
            )),
        }
    }

    /// `s.field.push(x)` and `s.field.store(i, x)`: calls that return nothing.
    fn effect_call(&mut self, m: &syn::ExprMethodCall) -> Result<StmtKind> {
        let field = self.state_field(&m.receiver)?.ok_or_else(|| {
            Error::new(
                m.receiver.span(),
                format!(
                    "`.{}(..)` is only available on state fields, e.g. `s.queue.push(v)`",
                    m.method
                ),
            )
        })?;
        no_turbofish(m)?;
        let name = m.method.to_string();
        if name == "store" {
            return Ok(StmtKind::Expr(self.atomic_call(field, m)?));
        }
        match m.args.len() {
            1 => Ok(StmtKind::Push {
                field,
                item: self.push_item(&m.args[0])?,
                key: None,
            }),
            2 => Ok(StmtKind::Push {
                field,
                item: self.push_item(&m.args[0])?,
                key: Some(self.expr(&m.args[1])?),
            }),
            _ => Err(Error::new(
                m.span(),
                "`push` takes the item (a queue) or the item and its key (a priority queue): `s.work.push(v)` or `s.work.push(v, key)`",
            )),
        }
    }

    /// A push's argument: a tuple of values or the whole tuple item become `ExprKind::Tuple`.
    fn push_item(&mut self, e: &syn::Expr) -> Result<Expr> {
        if let syn::Expr::Tuple(t) = strip_parens(e) {
            let parts = t
                .elems
                .iter()
                .map(|p| self.expr(p))
                .collect::<Result<_>>()?;
            return Ok(self.expr_node(ExprKind::Tuple(parts)));
        }
        if let Some((name, n)) = self.whole_tuple_item(e) {
            let parts = (0..n)
                .map(|k| self.expr_node(ExprKind::Var(format!("{name}.{k}"))))
                .collect();
            return Ok(self.expr_node(ExprKind::Tuple(parts)));
        }
        self.expr(e)
    }
}

fn compound_op(op: &syn::BinOp) -> Option<BinOp> {
    use syn::BinOp as B;
    Some(match op {
        B::AddAssign(_) => BinOp::Add,
        B::SubAssign(_) => BinOp::Sub,
        B::MulAssign(_) => BinOp::Mul,
        B::DivAssign(_) => BinOp::Div,
        B::RemAssign(_) => BinOp::Rem,
        B::BitAndAssign(_) => BinOp::BitAnd,
        B::BitOrAssign(_) => BinOp::BitOr,
        B::BitXorAssign(_) => BinOp::BitXor,
        B::ShlAssign(_) => BinOp::Shl,
        B::ShrAssign(_) => BinOp::Shr,
        _ => return None,
    })
}

fn is_statement_like(e: &syn::Expr) -> bool {
    use syn::Expr as E;
    match e {
        E::If(i) => i.else_branch.is_none() || !if_is_value(i),
        E::While(_)
        | E::Loop(_)
        | E::ForLoop(_)
        | E::Block(_)
        | E::Assign(_)
        | E::Return(_)
        | E::Break(_)
        | E::Continue(_) => true,
        E::Binary(b) => compound_op(&b.op).is_some(),
        E::MethodCall(m) => m.method == "push" || m.method == "store",
        _ => false,
    }
}

fn if_is_value(i: &syn::ExprIf) -> bool {
    matches!(i.then_branch.stmts.as_slice(), [syn::Stmt::Expr(_, None)])
}

/// `fence` or `atos::fence` (the name is reserved: a device function may not take it).
fn is_fence(e: &syn::Expr) -> bool {
    match strip_parens(e) {
        syn::Expr::Path(p) => matches!(path_text(&p.path).as_str(), "fence" | "atos::fence"),
        _ => false,
    }
}

fn callee_name(e: &syn::Expr) -> Option<String> {
    match strip_parens(e) {
        syn::Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
        _ => None,
    }
}

fn no_label(label: &Option<syn::Label>) -> Result<()> {
    match label {
        Some(l) => Err(Error::new(
            l.span(),
            "loop labels are not supported in device code; restructure with a flag variable",
        )),
        None => Ok(()),
    }
}
