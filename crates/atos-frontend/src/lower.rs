//! Rust subset (`syn`) -> IR, with one prescriptive, spanned error per rejected construct.
//!
//! This runs inside the proc macro, so every refusal here becomes a `compile_error!` pointing
//! at the user's code. It never panics: unknown syntax falls through to a generic error.

use std::collections::HashSet;

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Error, Result};

use crate::args::TaskArgs;
use crate::signature::{
    check_signature_header, ident_pattern, item_param, line_of, path_text, scalar_param,
    scalar_type, state_param,
};
use atos_codegen::ir::*;

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
    if !item.tuple && !item.params[0].ty.is_int() {
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
    let ret = match &sig.output {
        syn::ReturnType::Default => None,
        syn::ReturnType::Type(_, ty) => Some(scalar_type(ty)?),
    };
    // A first parameter of reference type is the state (`fn relax(s: &Sssp, ..)`).
    let takes_state = matches!(
        sig.inputs.first(),
        Some(syn::FnArg::Typed(pt)) if matches!(&*pt.ty, syn::Type::Reference(_))
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

    /// `Some(name)` when `e` names a variable declared before the enclosing `lanes(..)` loop.
    fn outer_in_lanes(&self, e: &syn::Expr) -> Option<String> {
        let syn::Expr::Path(p) = strip_parens(e) else {
            return None;
        };
        let name = p.path.get_ident()?.to_string();
        let at = self.scopes.iter().rposition(|s| s.contains(&name))?;
        (at < self.lanes_scope?).then_some(name)
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

    /// Lowers a block; `tail_returns` makes a trailing expression the function's result.
    fn block(&mut self, block: &syn::Block, tail_returns: bool) -> Result<Vec<Stmt>> {
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
        if m.args.len() != 1 {
            return Err(Error::new(m.span(), "`push` takes 1 argument"));
        }
        Ok(StmtKind::Push {
            field,
            item: self.push_item(&m.args[0])?,
        })
    }

    /// `s.field.op(index, values..)`: an entry of `ops::ATOMICS`.
    fn atomic_call(&mut self, field: String, m: &syn::ExprMethodCall) -> Result<Expr> {
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
    fn state_field(&self, e: &syn::Expr) -> Result<Option<String>> {
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

    fn expr(&mut self, e: &syn::Expr) -> Result<Expr> {
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
            E::Closure(c) => {
                return Err(Error::new(
                    c.span(),
                    "closures are not supported in device code; write a #[atos::device] fn and call it",
                ));
            }
            E::Try(t) => {
                return Err(Error::new(
                    t.question_token.span,
                    "the `?` operator is not supported in device code: there are no error values on the device; check with `if` and `return` early",
                ));
            }
            E::Macro(m) => return Err(macro_error(&m.mac)),
            E::Reference(r) => {
                return Err(Error::new(
                    r.span(),
                    "references cannot be taken in device code; pass values by copy",
                ));
            }
            E::Match(m) => {
                return Err(Error::new(
                    m.match_token.span,
                    "`match` is not supported yet in device code; use `if` / `else if`",
                ));
            }
            E::Range(r) => {
                return Err(Error::new(
                    r.span(),
                    "ranges are only allowed as the iterator of a `for` loop",
                ));
            }
            E::Tuple(t) => {
                return Err(Error::new(
                    t.span(),
                    "tuples are only task items in device code: push one (`s.queue.push((a, b))`) or read the item's parts; elsewhere use separate variables",
                ));
            }
            E::Array(a) => {
                return Err(Error::new(
                    a.span(),
                    "arrays are not supported in device code; use a state `Slice` or `Atomics` field",
                ));
            }
            E::Struct(s) => {
                return Err(Error::new(
                    s.span(),
                    "struct values are not supported in device code; use scalars",
                ));
            }
            E::Unsafe(u) => {
                return Err(Error::new(
                    u.unsafe_token.span,
                    "`unsafe` blocks are not allowed in device code",
                ));
            }
            E::Assign(a) => {
                return Err(Error::new(
                    a.span(),
                    "assignment is a statement in device code: write it on its own line",
                ));
            }
            E::Block(_) | E::Loop(_) | E::While(_) | E::ForLoop(_) => {
                return Err(Error::new(
                    e.span(),
                    "blocks and loops cannot be used as values in device code; assign to a `let mut` inside them instead",
                ));
            }
            other => {
                return Err(Error::new(
                    other.span(),
                    "this expression is not in the atos device subset (see docs/dsl.md for what is supported)",
                ));
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
            return Ok(self.atomic_call(field, m)?.kind);
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
        let full = path_text(&p.path);
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

fn strip_parens(e: &syn::Expr) -> &syn::Expr {
    match e {
        syn::Expr::Paren(p) => strip_parens(&p.expr),
        syn::Expr::Group(g) => strip_parens(&g.expr),
        other => other,
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

fn no_turbofish(m: &syn::ExprMethodCall) -> Result<()> {
    match &m.turbofish {
        Some(t) => Err(Error::new(
            t.span(),
            "generic method calls are not supported in device code",
        )),
        None => Ok(()),
    }
}

fn not_local_error(span: Span, name: &str) -> Error {
    Error::new(
        span,
        format!(
            "`{name}` is not a local variable or parameter: device code cannot read host statics or constants; pass the value through a scalar field of the state (e.g. `pub {}: u32`)",
            name.to_lowercase()
        ),
    )
}

fn macro_error(mac: &syn::Macro) -> Error {
    Error::new(
        mac.span(),
        format!(
            "macro `{}!` cannot be used in device code: macros expand to host code; use plain expressions (results go through `Atomics` fields)",
            path_text(&mac.path)
        ),
    )
}
