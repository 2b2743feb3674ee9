//! The closed intermediate representation between the Rust subset and CUDA C++.
//!
//! The proc macro lowers a task or device function into this IR at build time and embeds it
//! (as JSON) in the user's crate; the runtime types it against the state layout and emits CUDA
//! when a `Spec` is known. Keeping the IR free of `syn` types is what lets it cross that boundary.

use serde::{Deserialize, Serialize};

pub use crate::item::ElemTy;

/// Scalar types the device code understands. `usize`/`isize` map to 64 bits (the width they
/// have on every host atos supports), so a task means the same thing on CPU and GPU.
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Scalar {
    Bool,
    U8,
    U16,
    U32,
    I32,
    U64,
    I64,
    F32,
    F64,
}

impl Scalar {
    pub const ALL_RUST_NAMES: &'static str =
        "bool, u8, u16, u32, i32, u64, i64, usize, isize, f32, f64";

    pub fn from_rust_name(name: &str) -> Option<Scalar> {
        Some(match name {
            "bool" => Scalar::Bool,
            "u8" => Scalar::U8,
            "u16" => Scalar::U16,
            "u32" => Scalar::U32,
            "i32" => Scalar::I32,
            "u64" | "usize" => Scalar::U64,
            "i64" | "isize" => Scalar::I64,
            "f32" => Scalar::F32,
            "f64" => Scalar::F64,
            _ => return None,
        })
    }

    pub fn rust_name(self) -> &'static str {
        match self {
            Scalar::Bool => "bool",
            Scalar::U8 => "u8",
            Scalar::U16 => "u16",
            Scalar::U32 => "u32",
            Scalar::I32 => "i32",
            Scalar::U64 => "u64",
            Scalar::I64 => "i64",
            Scalar::F32 => "f32",
            Scalar::F64 => "f64",
        }
    }

    pub fn cuda_name(self) -> &'static str {
        match self {
            Scalar::Bool => "bool",
            Scalar::U8 => "uint8_t",
            Scalar::U16 => "uint16_t",
            Scalar::U32 => "uint32_t",
            Scalar::I32 => "int32_t",
            Scalar::U64 => "uint64_t",
            Scalar::I64 => "int64_t",
            Scalar::F32 => "float",
            Scalar::F64 => "double",
        }
    }

    pub fn is_int(self) -> bool {
        matches!(
            self,
            Scalar::U8 | Scalar::U16 | Scalar::U32 | Scalar::I32 | Scalar::U64 | Scalar::I64
        )
    }

    /// Narrower than C++'s `int`: arithmetic promotes, so results are cast back to wrap.
    pub fn is_narrow(self) -> bool {
        matches!(self, Scalar::U8 | Scalar::U16)
    }

    /// Every scalar, in declaration order.
    pub const ALL: [Scalar; 9] = [
        Scalar::Bool,
        Scalar::U8,
        Scalar::U16,
        Scalar::U32,
        Scalar::I32,
        Scalar::U64,
        Scalar::I64,
        Scalar::F32,
        Scalar::F64,
    ];

    pub fn is_signed_int(self) -> bool {
        matches!(self, Scalar::I32 | Scalar::I64)
    }

    pub fn is_float(self) -> bool {
        matches!(self, Scalar::F32 | Scalar::F64)
    }

    pub const fn size_bytes(self) -> usize {
        match self {
            Scalar::Bool | Scalar::U8 => 1,
            Scalar::U16 => 2,
            Scalar::U32 | Scalar::I32 | Scalar::F32 => 4,
            Scalar::U64 | Scalar::I64 | Scalar::F64 => 8,
        }
    }
}

/// How many threads cooperate on one task.
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum WorkerKind {
    Thread,
    Warp,
    Cta,
}

impl WorkerKind {
    pub fn parse(s: &str) -> Option<WorkerKind> {
        Some(match s {
            "thread" => WorkerKind::Thread,
            "warp" => WorkerKind::Warp,
            "cta" => WorkerKind::Cta,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            WorkerKind::Thread => "thread",
            WorkerKind::Warp => "warp",
            WorkerKind::Cta => "cta",
        }
    }
}

/// A lowered function: a task (`#[atos::task]`) or a device helper (`#[atos::device]`).
#[derive(Serialize, Deserialize, Clone, PartialEq, Debug)]
pub struct FnIr {
    pub name: String,
    pub role: Role,
    pub params: Vec<Param>,
    pub ret: Option<Scalar>,
    pub body: Vec<Stmt>,
    /// Source line of the `fn` keyword (0 when the compiler gave no location).
    pub line: u32,
    /// Names of the device functions this body calls, in first-call order.
    pub calls: Vec<String>,
    /// A device function that takes the state as its first parameter (`s: &Sssp`): the
    /// parameter's name and the state type's name. `params` lists the others.
    #[serde(default)]
    pub state: Option<StateParam>,
}

/// The state parameter of a device function.
#[derive(Serialize, Deserialize, Clone, PartialEq, Debug)]
pub struct StateParam {
    pub name: String,
    pub ty: String,
}

#[derive(Serialize, Deserialize, Clone, PartialEq, Debug)]
pub enum Role {
    Task(TaskAttrs),
    Device,
}

#[derive(Serialize, Deserialize, Clone, PartialEq, Debug)]
pub struct TaskAttrs {
    pub worker: WorkerKind,
    pub fetch: u32,
    /// Name of the `#[atos::state]` struct the task reads (last path segment).
    pub state_type: String,
    /// Name of the state parameter in the task's signature.
    pub state_param: String,
    /// Where the task's items come from.
    pub source: ItemSource,
    /// The item is a tuple: `FnIr::params` are its parts, in order (a tuple pattern's names,
    /// or `item.0`, `item.1`, .. for a parameter named `item`).
    #[serde(default)]
    pub tuple_item: bool,
    /// `#[atos::task(inline)]`: a push of an item this device owns may run the task at once,
    /// in the pushing thread, instead of queueing the item (persistent kernels do; see
    /// docs/dsl.md, "Inline tasks").
    #[serde(default)]
    pub inline: bool,
}

/// Where a task's items come from.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
pub enum ItemSource {
    /// Popped from a `Queue` field: the one named, or the state's only queue when `None`.
    Queue(Option<String>),
    /// An idle hook (`#[atos::idle]`): run over the indices `0..n` of the named state field
    /// (a `u32`/`u64` scalar gives `n`, an array field its length) by workers whose pop found
    /// nothing, sweep after sweep, until a full sweep finds no work.
    Idle { range: String },
}

impl ItemSource {
    pub fn is_idle(&self) -> bool {
        matches!(self, ItemSource::Idle { .. })
    }
}

#[derive(Serialize, Deserialize, Clone, PartialEq, Debug)]
pub struct Param {
    pub name: String,
    pub ty: Scalar,
}

#[derive(Serialize, Deserialize, Clone, PartialEq, Debug)]
pub struct Stmt {
    pub line: u32,
    pub kind: StmtKind,
}

#[derive(Serialize, Deserialize, Clone, PartialEq, Debug)]
pub enum StmtKind {
    Let {
        name: String,
        ty: Option<Scalar>,
        init: Expr,
    },
    Assign {
        target: String,
        op: Option<BinOp>,
        value: Expr,
    },
    Expr(Expr),
    Block(Vec<Stmt>),
    If {
        cond: Expr,
        then: Vec<Stmt>,
        els: Option<Vec<Stmt>>,
    },
    While {
        cond: Expr,
        body: Vec<Stmt>,
    },
    Loop {
        body: Vec<Stmt>,
    },
    For {
        var: String,
        lo: Expr,
        hi: Expr,
        lanes: bool,
        body: Vec<Stmt>,
        /// `(lo..hi).rev()`: from `hi - 1` down to `lo`.
        #[serde(default)]
        rev: bool,
        /// `(lo..hi).step_by(step)`: `lo`, `lo + step`, ... below `hi` (`step` a `usize`).
        #[serde(default)]
        step: Option<Box<Expr>>,
    },
    Break,
    Continue,
    Return(Option<Expr>),
    /// Inside a `lanes(..)` loop, a reduction into `target`, a variable declared outside the
    /// loop (`best = best.min(e)`, `total += e`, `any |= e`): each lane accumulates its share,
    /// and after the loop `target` holds its value before the loop combined with every lane's
    /// share, in every lane (`ops::REDUCTIONS`).
    Reduce {
        target: String,
        op: ReduceOp,
        value: Expr,
    },
    /// `state.field.push(item)`: worker-aggregated push into a queue field;
    /// `state.field.push(item, key)` into a priority queue.
    Push {
        field: String,
        item: Expr,
        key: Option<Expr>,
    },
    /// `atos::fence()`: a sequentially consistent fence (CPU `fence(SeqCst)`, GPU
    /// `fence.sc.gpu`), for the store-then-read patterns release/acquire does not order.
    Fence,
}

/// Every expression carries an id, unique within its function, that the type checker keys on.
#[derive(Serialize, Deserialize, Clone, PartialEq, Debug)]
pub struct Expr {
    pub id: u32,
    pub kind: ExprKind,
}

#[derive(Serialize, Deserialize, Clone, PartialEq, Debug)]
pub enum ExprKind {
    /// Integer literal: digits (base 10) and an optional type suffix.
    Int {
        value: u128,
        suffix: Option<Scalar>,
    },
    /// Float literal: base-10 digits as written and an optional suffix.
    Float {
        digits: String,
        suffix: Option<Scalar>,
    },
    Bool(bool),
    Var(String),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    Cast(Box<Expr>, Scalar),
    /// `state.field[index]` on a read-only `Slice` field.
    Index {
        field: String,
        index: Box<Expr>,
    },
    /// `state.field.len()` on a `Slice` or `Atomics` field.
    Len {
        field: String,
    },
    /// `state.field` on a scalar field.
    Field {
        field: String,
    },
    /// `state.field.op(index, values..)` on an `Atomics` field: an entry of `ops::ATOMICS`
    /// (`args[0]` is the index).
    Atomic {
        field: String,
        op: String,
        args: Vec<Expr>,
    },
    /// The state itself, passed to a device function that takes it (`relax(s, u, d)`).
    StateRef,
    /// `f32::INFINITY` and the other entries of `ops::FLOAT_CONSTS`.
    FloatConst {
        name: String,
        ty: Scalar,
    },
    Call {
        func: String,
        args: Vec<Expr>,
    },
    /// `x.name(args..)`: a scalar method of `ops::METHODS` (`args[0]` is the receiver).
    Method {
        name: String,
        args: Vec<Expr>,
    },
    If {
        cond: Box<Expr>,
        then: Box<Expr>,
        els: Box<Expr>,
    },
    /// `(a, b, ..)`: a tuple item, only as the argument of a push.
    Tuple(Vec<Expr>),
}

/// The combining operation of a [`StmtKind::Reduce`].
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum ReduceOp {
    Min,
    Max,
    Add,
    BitAnd,
    BitOr,
    BitXor,
}

#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
pub enum UnOp {
    Neg,
    Not,
}

#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
}

impl BinOp {
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
        )
    }

    pub fn is_logic(self) -> bool {
        matches!(self, BinOp::And | BinOp::Or)
    }

    pub fn is_shift(self) -> bool {
        matches!(self, BinOp::Shl | BinOp::Shr)
    }

    pub fn cuda_token(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::BitAnd => "&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::And => "&&",
            BinOp::Or => "||",
        }
    }
}

/// The layout of an `#[atos::state]` struct, in declaration order.
#[derive(Serialize, Deserialize, Clone, PartialEq, Debug)]
pub struct StateDesc {
    pub name: String,
    pub fields: Vec<FieldDesc>,
}

#[derive(Serialize, Deserialize, Clone, PartialEq, Debug)]
pub struct FieldDesc {
    pub name: String,
    pub kind: FieldKind,
    /// A scalar, or a tuple of scalars for a queue of tuple items.
    pub elem: ElemTy,
}

#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
pub enum FieldKind {
    /// Read-only array (`Slice<'a, T>`).
    Slice,
    /// Array updated with atomics (`Atomics<'a, T>`).
    Atomics,
    /// Task queue (`Queue<'a, T>`).
    Queue,
    /// Task queue served in key order (`PriorityQueue<'a, T, K>`), keys of this scalar type
    /// (`u32` or `f32`): a near ring of items below the threshold and a far ring of keyed items.
    PriorityQueue(Scalar),
    /// A value passed by copy (`u32`, `f32`, ...).
    Scalar,
}

impl StateDesc {
    pub fn field(&self, name: &str) -> Option<&FieldDesc> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// The state's queue fields (`Queue` and `PriorityQueue`), in declaration order.
    pub fn queues(&self) -> impl Iterator<Item = &FieldDesc> {
        self.fields.iter().filter(|f| f.kind.is_queue())
    }
}

impl FieldKind {
    /// A `Queue` or a `PriorityQueue`: tasks pop it and push to it.
    pub fn is_queue(self) -> bool {
        matches!(self, FieldKind::Queue | FieldKind::PriorityQueue(_))
    }

    /// A priority queue's key type.
    pub fn key(self) -> Option<Scalar> {
        match self {
            FieldKind::PriorityQueue(k) => Some(k),
            _ => None,
        }
    }

    /// How the type is written in Rust, for messages.
    pub fn rust_name(self) -> String {
        match self {
            FieldKind::Slice => "Slice".into(),
            FieldKind::Atomics => "Atomics".into(),
            FieldKind::Queue => "Queue".into(),
            FieldKind::PriorityQueue(k) => format!("PriorityQueue (keys {})", k.rust_name()),
            FieldKind::Scalar => "scalar".into(),
        }
    }
}

impl FieldDesc {
    /// A priority queue's far items: the item's parts, then the key (see `PRIORITY_KEYS`).
    pub fn far_elem(&self) -> Option<ElemTy> {
        let key = self.kind.key()?;
        let mut parts = self.elem.parts().to_vec();
        parts.push(key);
        Some(ElemTy::Tuple(parts))
    }
}

/// The device functions `roots` call, directly or not, each once, in first-reached order
/// (depth first, calls in source order), and the first callee not found in `all` by name.
pub fn reachable_device_fns<'a>(
    roots: &[&FnIr],
    all: &[&'a FnIr],
) -> (Vec<&'a FnIr>, Option<String>) {
    let mut out: Vec<&'a FnIr> = Vec::new();
    let mut missing = None;
    let mut stack: Vec<&str> = roots
        .iter()
        .rev()
        .flat_map(|r| r.calls.iter().rev())
        .map(|c| c.rsplit("::").next().unwrap_or(c))
        .collect();
    while let Some(name) = stack.pop() {
        if out.iter().any(|f| f.name == name) {
            continue;
        }
        match all.iter().find(|f| f.name == name) {
            Some(f) => {
                out.push(f);
                stack.extend(
                    f.calls
                        .iter()
                        .rev()
                        .map(|c| c.rsplit("::").next().unwrap_or(c)),
                );
            }
            None => {
                missing.get_or_insert_with(|| name.to_string());
            }
        }
    }
    (out, missing)
}

/// Calls `f` on every expression of `stmts`, outer expressions before their operands.
pub fn visit_exprs(stmts: &[Stmt], f: &mut impl FnMut(&Expr)) {
    fn expr(e: &Expr, f: &mut impl FnMut(&Expr)) {
        f(e);
        match &e.kind {
            ExprKind::Int { .. }
            | ExprKind::Float { .. }
            | ExprKind::Bool(_)
            | ExprKind::Var(_)
            | ExprKind::Len { .. }
            | ExprKind::FloatConst { .. }
            | ExprKind::StateRef
            | ExprKind::Field { .. } => {}
            ExprKind::Unary(_, a) | ExprKind::Cast(a, _) => expr(a, f),
            ExprKind::Index { index, .. } => expr(index, f),
            ExprKind::Binary(_, a, b) => {
                expr(a, f);
                expr(b, f);
            }
            ExprKind::Atomic { args, .. }
            | ExprKind::Call { args, .. }
            | ExprKind::Method { args, .. }
            | ExprKind::Tuple(args) => args.iter().for_each(|a| expr(a, f)),
            ExprKind::If { cond, then, els } => {
                expr(cond, f);
                expr(then, f);
                expr(els, f);
            }
        }
    }
    for s in stmts {
        match &s.kind {
            StmtKind::Let { init, .. } => expr(init, f),
            StmtKind::Assign { value, .. } | StmtKind::Reduce { value, .. } => expr(value, f),
            StmtKind::Expr(e) => expr(e, f),
            StmtKind::Block(b) | StmtKind::Loop { body: b } => visit_exprs(b, f),
            StmtKind::If { cond, then, els } => {
                expr(cond, f);
                visit_exprs(then, f);
                if let Some(e) = els {
                    visit_exprs(e, f);
                }
            }
            StmtKind::While { cond, body } => {
                expr(cond, f);
                visit_exprs(body, f);
            }
            StmtKind::For {
                lo, hi, body, step, ..
            } => {
                expr(lo, f);
                expr(hi, f);
                if let Some(st) = step {
                    expr(st, f);
                }
                visit_exprs(body, f);
            }
            StmtKind::Break | StmtKind::Continue | StmtKind::Return(None) | StmtKind::Fence => {}
            StmtKind::Return(Some(e)) => expr(e, f),
            StmtKind::Push { item, key, .. } => {
                expr(item, f);
                if let Some(k) = key {
                    expr(k, f);
                }
            }
        }
    }
}

/// Calls `f` on every statement of `stmts`, outer statements before the ones nested in them.
pub fn visit_stmts<'a>(stmts: &'a [Stmt], f: &mut impl FnMut(&'a Stmt)) {
    for s in stmts {
        f(s);
        match &s.kind {
            StmtKind::Block(b) | StmtKind::Loop { body: b } => visit_stmts(b, f),
            StmtKind::While { body, .. } | StmtKind::For { body, .. } => visit_stmts(body, f),
            StmtKind::If { then, els, .. } => {
                visit_stmts(then, f);
                if let Some(e) = els {
                    visit_stmts(e, f);
                }
            }
            _ => {}
        }
    }
}

/// The reductions of a `lanes(..)` loop body: each target once, with its operation and the
/// value of its first `Reduce` (the type checker keys the target's C++ name on it), in first
/// appearance order.
pub fn reductions(body: &[Stmt]) -> Vec<(&str, ReduceOp, &Expr)> {
    let mut out: Vec<(&str, ReduceOp, &Expr)> = Vec::new();
    visit_stmts(body, &mut |s| {
        if let StmtKind::Reduce { target, op, value } = &s.kind
            && !out.iter().any(|(t, _, _)| t == target)
        {
            out.push((target, *op, value));
        }
    });
    out
}

impl FnIr {
    pub fn task_attrs(&self) -> Option<&TaskAttrs> {
        match &self.role {
            Role::Task(t) => Some(t),
            Role::Device => None,
        }
    }

    /// A task's item type: its one parameter's scalar, or the tuple of its parameters.
    pub fn item_ty(&self) -> ElemTy {
        match self.task_attrs() {
            Some(a) if a.tuple_item => ElemTy::Tuple(self.params.iter().map(|p| p.ty).collect()),
            _ => ElemTy::Scalar(self.params[0].ty),
        }
    }

    /// Names of the queue fields this function pushes to, in first-push order, its own pushes
    /// and those of the device functions it calls (found in `device_fns` by name), directly or
    /// not; a callee missing from `device_fns` is reported where the unit is generated.
    pub fn pushed_queues(&self, device_fns: &[&FnIr]) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let (reached, _missing) = reachable_device_fns(&[self], device_fns);
        for f in std::iter::once(self).chain(reached) {
            visit_stmts(&f.body, &mut |s| {
                if let StmtKind::Push { field, .. } = &s.kind
                    && !out.contains(field)
                {
                    out.push(field.clone());
                }
            });
        }
        out
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("IR serializes")
    }

    pub fn from_json(json: &str) -> Result<FnIr, serde_json::Error> {
        serde_json::from_str(json)
    }
}
