//! Recovers Rust's types for a lowered function, with Rust's literal rules.
//!
//! rustc has already type-checked the function as Rust; what this pass adds is the knowledge
//! the macro could not have: the element types of the state's fields. Integer and float
//! literals get the type Rust would give them (from their use, else `i32` / `f64`), which is
//! what keeps the CUDA from silently computing in another width.

use std::collections::HashMap;

use crate::error::CodegenError;
use crate::ir::*;
use crate::names::NameTable;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Any,
    Num,
    Int,
    Float,
    /// An integer or `bool` (bitwise operations).
    Bits,
    Known(Scalar),
}

/// The result of type checking: a type per expression and a C++ name + type per binding.
#[derive(Debug, Default)]
pub struct Typed {
    expr_types: HashMap<u32, Scalar>,
    /// Binding introduced by a `let` (keyed by its init expr id) or `for` (keyed by `lo`'s id).
    bindings: HashMap<u32, (String, Scalar)>,
    /// Variable reference, keyed by the `Var` expr id.
    uses: HashMap<u32, String>,
    /// Assignment target, keyed by the assigned value's expr id.
    targets: HashMap<u32, String>,
    /// The C++ name of each parameter, in order.
    params: Vec<String>,
}

impl Typed {
    /// The C++ names of the function's parameters, in order.
    pub fn params(&self) -> &[String] {
        &self.params
    }

    pub fn ty(&self, e: &Expr) -> Scalar {
        self.expr_types.get(&e.id).copied().unwrap_or(Scalar::I32)
    }

    pub fn binding(&self, key: &Expr) -> (&str, Scalar) {
        let (n, t) = &self.bindings[&key.id];
        (n, *t)
    }

    pub fn var_name(&self, key: &Expr) -> &str {
        &self.uses[&key.id]
    }

    /// The C++ name of the variable an assignment of `value` writes.
    pub fn target_name(&self, value: &Expr) -> &str {
        &self.targets[&value.id]
    }
}

/// The signature of a device function as seen by its callers.
#[derive(Clone, Debug)]
pub struct Signature {
    pub params: Vec<Scalar>,
    pub ret: Option<Scalar>,
    /// The state type's name, when the function takes the state first.
    pub state: Option<String>,
}

pub struct Checker<'a> {
    func: &'a FnIr,
    state: Option<&'a StateDesc>,
    sigs: &'a HashMap<String, Signature>,
    parent: Vec<usize>,
    kind: Vec<Kind>,
    expr_var: HashMap<u32, usize>,
    scopes: Vec<HashMap<String, (usize, String)>>,
    names: NameTable,
    bindings: HashMap<u32, (String, usize)>,
    uses: HashMap<u32, String>,
    targets: HashMap<u32, String>,
    line: u32,
}

impl<'a> Checker<'a> {
    pub fn check(
        func: &'a FnIr,
        state: Option<&'a StateDesc>,
        sigs: &'a HashMap<String, Signature>,
        names: NameTable,
    ) -> Result<Typed, CodegenError> {
        let mut c = Checker {
            func,
            state,
            sigs,
            parent: Vec::new(),
            kind: Vec::new(),
            expr_var: HashMap::new(),
            scopes: vec![HashMap::new()],
            names,
            bindings: HashMap::new(),
            uses: HashMap::new(),
            targets: HashMap::new(),
            line: func.line,
        };
        let mut params = Vec::new();
        for p in &func.params {
            let v = c.fresh(Kind::Known(p.ty));
            let cname = c.names.bind(&p.name);
            params.push(cname.clone());
            c.scopes[0].insert(p.name.clone(), (v, cname));
        }
        c.block(&func.body)?;
        let mut typed = c.finish();
        typed.params = params;
        Ok(typed)
    }

    fn finish(mut self) -> Typed {
        let mut t = Typed {
            uses: std::mem::take(&mut self.uses),
            targets: std::mem::take(&mut self.targets),
            ..Default::default()
        };
        let ids: Vec<(u32, usize)> = self.expr_var.iter().map(|(k, v)| (*k, *v)).collect();
        for (id, v) in ids {
            t.expr_types.insert(id, self.resolve(v));
        }
        let binds: Vec<(u32, (String, usize))> = self.bindings.drain().collect();
        for (id, (name, v)) in binds {
            t.bindings.insert(id, (name, self.resolve(v)));
        }
        t
    }

    fn resolve(&mut self, v: usize) -> Scalar {
        let r = self.find(v);
        match self.kind[r] {
            Kind::Known(s) => s,
            Kind::Float => Scalar::F64,
            Kind::Int | Kind::Num | Kind::Bits | Kind::Any => Scalar::I32,
        }
    }

    fn err(&self, msg: impl Into<String>) -> CodegenError {
        CodegenError::Type {
            function: self.func.name.clone(),
            line: self.line,
            message: msg.into(),
        }
    }

    fn fresh(&mut self, k: Kind) -> usize {
        self.parent.push(self.parent.len());
        self.kind.push(k);
        self.parent.len() - 1
    }

    fn find(&mut self, v: usize) -> usize {
        let p = self.parent[v];
        if p == v {
            return v;
        }
        let r = self.find(p);
        self.parent[v] = r;
        r
    }

    fn unify(&mut self, a: usize, b: usize) -> Result<(), CodegenError> {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra == rb {
            return Ok(());
        }
        let merged = merge(self.kind[ra], self.kind[rb]).ok_or_else(|| {
            self.err(format!(
                "type mismatch: {} vs {}",
                show(self.kind[ra]),
                show(self.kind[rb])
            ))
        })?;
        self.parent[ra] = rb;
        self.kind[rb] = merged;
        Ok(())
    }

    fn constrain(&mut self, v: usize, k: Kind) -> Result<(), CodegenError> {
        let c = self.fresh(k);
        self.unify(v, c)
    }

    fn known(&mut self, s: Scalar) -> usize {
        self.fresh(Kind::Known(s))
    }

    fn field(&self, name: &str, want: &[FieldKind]) -> Result<&'a FieldDesc, CodegenError> {
        let state = self
            .state
            .ok_or_else(|| self.err("device functions have no state"))?;
        let f = state
            .field(name)
            .ok_or_else(|| self.err(format!("state `{}` has no field `{name}`", state.name)))?;
        if !want.contains(&f.kind) {
            return Err(self.err(format!(
                "field `{name}` is a {:?} field; this use needs {}",
                f.kind,
                want.iter()
                    .map(|k| format!("{k:?}"))
                    .collect::<Vec<_>>()
                    .join(" or ")
            )));
        }
        Ok(f)
    }

    /// The element type of a `Slice`, `Atomics` or scalar field (only queues hold tuples).
    fn scalar_field(&self, name: &str, want: &[FieldKind]) -> Result<Scalar, CodegenError> {
        let f = self.field(name, want)?;
        f.elem.scalar().ok_or_else(|| {
            self.err(format!(
                "field `{name}` holds tuples `{}`: only queues hold tuple items",
                f.elem.rust_name()
            ))
        })
    }

    fn lookup(&self, name: &str) -> Result<(usize, String), CodegenError> {
        self.scopes
            .iter()
            .rev()
            .find_map(|s| s.get(name).cloned())
            .ok_or_else(|| self.err(format!("unknown variable `{name}`")))
    }

    fn block(&mut self, stmts: &[Stmt]) -> Result<(), CodegenError> {
        self.scopes.push(HashMap::new());
        let r = stmts.iter().try_for_each(|s| self.stmt(s));
        self.scopes.pop();
        r
    }

    fn stmt(&mut self, s: &Stmt) -> Result<(), CodegenError> {
        self.line = s.line;
        match &s.kind {
            StmtKind::Let { name, ty, init } => {
                let v = self.expr(init)?;
                if let Some(t) = ty {
                    self.constrain(v, Kind::Known(*t))?;
                }
                let cname = self.names.bind(name);
                self.bindings.insert(init.id, (cname.clone(), v));
                self.scopes
                    .last_mut()
                    .unwrap()
                    .insert(name.clone(), (v, cname));
            }
            StmtKind::Assign { target, op, value } => {
                let (tv, cname) = self.lookup(target)?;
                let vv = self.expr(value)?;
                match op {
                    Some(op) if op.is_shift() => {
                        self.constrain(tv, Kind::Int)?;
                        self.constrain(vv, Kind::Int)?;
                    }
                    _ => self.unify(tv, vv)?,
                }
                self.targets.insert(value.id, cname);
            }
            StmtKind::Reduce { target, op, value } => {
                let (tv, cname) = self.lookup(target)?;
                let vv = self.expr(value)?;
                self.unify(tv, vv)?;
                let decl = crate::ops::reduction(*op);
                self.constrain(tv, receivers_kind(decl.receivers))?;
                self.targets.insert(value.id, cname);
            }
            StmtKind::Expr(e) => {
                self.expr(e)?;
            }
            StmtKind::Block(b) => self.block(b)?,
            StmtKind::If { cond, then, els } => {
                let c = self.expr(cond)?;
                self.constrain(c, Kind::Known(Scalar::Bool))?;
                self.block(then)?;
                if let Some(e) = els {
                    self.block(e)?;
                }
            }
            StmtKind::While { cond, body } => {
                let c = self.expr(cond)?;
                self.constrain(c, Kind::Known(Scalar::Bool))?;
                self.block(body)?;
            }
            StmtKind::Loop { body } => self.block(body)?,
            StmtKind::For {
                var,
                lo,
                hi,
                body,
                step,
                ..
            } => {
                let l = self.expr(lo)?;
                let h = self.expr(hi)?;
                self.unify(l, h)?;
                self.constrain(l, Kind::Int)?;
                if let Some(st) = step {
                    let sv = self.expr(st)?;
                    self.constrain(sv, Kind::Known(Scalar::U64))?;
                }
                self.scopes.push(HashMap::new());
                let cname = self.names.bind(var);
                self.bindings.insert(lo.id, (cname.clone(), l));
                self.scopes
                    .last_mut()
                    .unwrap()
                    .insert(var.clone(), (l, cname));
                let r = self.block(body);
                self.scopes.pop();
                r?;
            }
            StmtKind::Break | StmtKind::Continue | StmtKind::Fence => {}
            StmtKind::Return(v) => match (v, self.func.ret) {
                (Some(e), Some(t)) => {
                    let v = self.expr(e)?;
                    self.constrain(v, Kind::Known(t))?;
                }
                (None, None) => {}
                _ => return Err(self.err("return value does not match the function's signature")),
            },
            StmtKind::Push { field, item, key } => {
                let f = match self.state.and_then(|st| st.field(field)) {
                    Some(f) if f.kind.is_queue() => f,
                    _ => self.field(field, &[FieldKind::Queue])?,
                };
                match (f.kind.key(), key) {
                    (Some(k), Some(e)) => {
                        let v = self.expr(e)?;
                        self.constrain(v, Kind::Known(k))?;
                    }
                    (Some(k), None) => {
                        return Err(self.err(format!(
                            "`{field}` is a priority queue: a push gives the item's key too, e.g. `s.{field}.push(item, key)` with a `{}` key",
                            k.rust_name()
                        )));
                    }
                    (None, Some(_)) => {
                        return Err(self.err(format!(
                            "`{field}` is a plain `Queue`: its push takes only the item; to schedule items by key, declare it `PriorityQueue<'a, {}, u32>` (or `f32` keys)",
                            f.elem.rust_name()
                        )));
                    }
                    (None, None) => {}
                }
                match (&f.elem, &item.kind) {
                    (ElemTy::Scalar(s), _) => {
                        let v = self.expr(item)?;
                        self.constrain(v, Kind::Known(*s))?;
                    }
                    (ElemTy::Tuple(parts), ExprKind::Tuple(values))
                        if parts.len() == values.len() =>
                    {
                        for (p, e) in parts.iter().zip(values) {
                            let v = self.expr(e)?;
                            self.constrain(v, Kind::Known(*p))?;
                        }
                    }
                    (t, _) => {
                        return Err(self.err(format!(
                            "queue `{field}` holds `{}` items: push a tuple of {} values, e.g. `s.{field}.push(({}))`",
                            t.rust_name(),
                            t.parts().len(),
                            (0..t.parts().len()).map(|k| format!("x{k}")).collect::<Vec<_>>().join(", ")
                        )));
                    }
                }
            }
        }
        Ok(())
    }

    fn expr(&mut self, e: &Expr) -> Result<usize, CodegenError> {
        let v = self.expr_inner(e)?;
        self.expr_var.insert(e.id, v);
        Ok(v)
    }

    fn expr_inner(&mut self, e: &Expr) -> Result<usize, CodegenError> {
        Ok(match &e.kind {
            ExprKind::Int { suffix, .. } => match suffix {
                Some(s) => self.known(*s),
                None => self.fresh(Kind::Int),
            },
            ExprKind::Float { suffix, .. } => match suffix {
                Some(s) => self.known(*s),
                None => self.fresh(Kind::Float),
            },
            ExprKind::Bool(_) => self.known(Scalar::Bool),
            ExprKind::Var(name) => {
                let (v, cname) = self.lookup(name)?;
                self.uses.insert(e.id, cname);
                v
            }
            ExprKind::Unary(op, a) => {
                let v = self.expr(a)?;
                if *op == UnOp::Neg {
                    self.constrain(v, Kind::Num)?;
                }
                v
            }
            ExprKind::Binary(op, a, b) => {
                let (va, vb) = (self.expr(a)?, self.expr(b)?);
                if op.is_comparison() {
                    self.unify(va, vb)?;
                    self.known(Scalar::Bool)
                } else if op.is_logic() {
                    self.constrain(va, Kind::Known(Scalar::Bool))?;
                    self.constrain(vb, Kind::Known(Scalar::Bool))?;
                    va
                } else if op.is_shift() {
                    self.constrain(va, Kind::Int)?;
                    self.constrain(vb, Kind::Int)?;
                    va
                } else {
                    self.unify(va, vb)?;
                    if !matches!(op, BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor) {
                        self.constrain(va, Kind::Num)?;
                    }
                    va
                }
            }
            ExprKind::Cast(a, to) => {
                self.expr(a)?;
                self.known(*to)
            }
            ExprKind::Index { field, index } => {
                let elem = self.scalar_field(field, &[FieldKind::Slice])?;
                let i = self.expr(index)?;
                self.constrain(i, Kind::Int)?;
                self.known(elem)
            }
            ExprKind::Len { field } => {
                self.field(field, &[FieldKind::Slice, FieldKind::Atomics])?;
                self.known(Scalar::U64)
            }
            ExprKind::Field { field } => {
                if let Some(f) = self.state.and_then(|st| st.field(field))
                    && matches!(f.kind, FieldKind::Slice | FieldKind::Atomics)
                {
                    let read = if f.kind == FieldKind::Slice {
                        format!("s.{field}[i]")
                    } else {
                        format!("s.{field}.load(i)")
                    };
                    return Err(self.err(format!(
                        "field `{field}` is an array ({:?}), not a value: read an element first (`{read}`); only scalar fields are values, and take scalar methods (`s.limit.max(1)`)",
                        f.kind
                    )));
                }
                let elem = self.scalar_field(field, &[FieldKind::Scalar])?;
                self.known(elem)
            }
            ExprKind::Atomic { field, op, args } => {
                let elem = self.scalar_field(field, &[FieldKind::Atomics])?;
                let decl = crate::ops::atomic(op).ok_or_else(|| {
                    self.err(format!(
                        "`{op}` is not an `Atomics` method; supported: {}",
                        crate::ops::atomic_names()
                    ))
                })?;
                if !decl.elems.take(elem) {
                    return Err(self.err(format!(
                        "`{op}` on `Atomics<{}>` (field `{field}`) is not supported: it is defined for {}",
                        elem.rust_name(),
                        decl.elems.describe()
                    )));
                }
                if args.len() != decl.values + 1 {
                    return Err(self.err(format!(
                        "`{op}` takes an index and {} value(s)",
                        decl.values
                    )));
                }
                let i = self.expr(&args[0])?;
                self.constrain(i, Kind::Int)?;
                for a in &args[1..] {
                    let v = self.expr(a)?;
                    self.constrain(v, Kind::Known(elem))?;
                }
                match decl.returns {
                    crate::ops::AtomicReturns::Previous => self.known(elem),
                    crate::ops::AtomicReturns::Moved => self.known(Scalar::Bool),
                    crate::ops::AtomicReturns::Nothing => self.fresh(Kind::Any),
                }
            }
            ExprKind::FloatConst { ty, .. } => self.known(*ty),
            ExprKind::Tuple(_) => {
                return Err(self.err(
                    "a tuple is only a queue item: push it (`s.queue.push((a, b))`) or read the task item's parts",
                ));
            }
            ExprKind::StateRef => {
                return Err(self.err(
                    "the state can only be used through its fields or passed to a device function that takes it",
                ));
            }
            ExprKind::Call { func, args } => {
                let sig = self.sigs.get(func).cloned().ok_or_else(|| {
                    self.err(format!("`{func}` is not a known #[atos::device] function"))
                })?;
                let passes_state = matches!(
                    args.first(),
                    Some(Expr {
                        kind: ExprKind::StateRef,
                        ..
                    })
                );
                let args = match (&sig.state, passes_state) {
                    (Some(ty), true) => {
                        let ours = self.state.map(|s| s.name.as_str());
                        if ours != Some(ty.as_str()) {
                            return Err(self.err(format!(
                                "`{func}` takes the state `&{ty}`, but this code's state is {}",
                                ours.map(|o| format!("`{o}`"))
                                    .unwrap_or_else(|| "absent".into())
                            )));
                        }
                        &args[1..]
                    }
                    (Some(ty), false) => {
                        return Err(self.err(format!(
                            "`{func}` takes the state first: call it as `{func}(s, ..)` with this code's `&{ty}`"
                        )));
                    }
                    (None, true) => {
                        return Err(self.err(format!(
                            "`{func}` does not take the state: pass only its scalar arguments"
                        )));
                    }
                    (None, false) => &args[..],
                };
                if sig.params.len() != args.len() {
                    return Err(self.err(format!("`{func}` takes {} arguments", sig.params.len())));
                }
                for (a, p) in args.iter().zip(&sig.params) {
                    let v = self.expr(a)?;
                    self.constrain(v, Kind::Known(*p))?;
                }
                match sig.ret {
                    Some(r) => self.known(r),
                    None => self.fresh(Kind::Any),
                }
            }
            ExprKind::Method { name, args } => {
                let decl = crate::ops::method(name).ok_or_else(|| {
                    self.err(format!(
                        "method `{name}` is not supported in device code; scalar methods: {}",
                        crate::ops::method_names()
                    ))
                })?;
                if args.len() != decl.args + 1 {
                    return Err(self.err(format!("`{name}` takes {} argument(s)", decl.args)));
                }
                let recv = self.expr(&args[0])?;
                for a in &args[1..] {
                    let v = self.expr(a)?;
                    self.unify(recv, v)?;
                }
                self.constrain(recv, receivers_kind(decl.receivers))?;
                match decl.returns {
                    crate::ops::Returns::Same => recv,
                    crate::ops::Returns::U32 => self.known(Scalar::U32),
                }
            }
            ExprKind::If { cond, then, els } => {
                let c = self.expr(cond)?;
                self.constrain(c, Kind::Known(Scalar::Bool))?;
                let (vt, ve) = (self.expr(then)?, self.expr(els)?);
                self.unify(vt, ve)?;
                vt
            }
        })
    }
}

fn receivers_kind(r: crate::ops::Receivers) -> Kind {
    use crate::ops::Receivers as R;
    match r {
        R::Num => Kind::Num,
        R::Int => Kind::Int,
        R::Float => Kind::Float,
        R::Bits => Kind::Bits,
        R::Any => Kind::Any,
    }
}

fn merge(a: Kind, b: Kind) -> Option<Kind> {
    use Kind::*;
    let fits = |k: Kind, s: Scalar| match k {
        Any => true,
        Num => s.is_int() || s.is_float(),
        Int => s.is_int(),
        Float => s.is_float(),
        Bits => s.is_int() || s == Scalar::Bool,
        Known(t) => t == s,
    };
    Some(match (a, b) {
        (Known(s), k) | (k, Known(s)) => {
            if fits(k, s) {
                Known(s)
            } else {
                return None;
            }
        }
        (Any, k) | (k, Any) => k,
        (Bits, Bits) => Bits,
        // An integer or bool that is also a number (or an integer): an integer.
        (Bits, Int | Num) | (Int | Num, Bits) => Int,
        (Bits, Float) | (Float, Bits) => return None,
        (Num, k) | (k, Num) => k,
        (Int, Int) => Int,
        (Float, Float) => Float,
        (Int, Float) | (Float, Int) => return None,
    })
}

fn show(k: Kind) -> String {
    match k {
        Kind::Known(s) => s.rust_name().to_string(),
        Kind::Int => "an integer".into(),
        Kind::Float => "a float".into(),
        Kind::Num => "a number".into(),
        Kind::Bits => "an integer or bool".into(),
        Kind::Any => "a value".into(),
    }
}
