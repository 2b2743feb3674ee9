//! The operations of the device subset, declared once each: scalar methods (`x.min(y)`),
//! `Atomics` methods (`s.depth.fetch_min(v, d)`) and named constants (`f32::INFINITY`).
//!
//! An entry gives the Rust name, its arguments, the types it takes, its result, and the CUDA
//! function (in `atos/prelude.cuh`) that computes what the Rust operation computes. The front
//! end lowers calls through these tables, the type checker types them, the emitter prints
//! `atos::<cuda>(..)`; the CPU executor runs the Rust method itself (std's for scalars,
//! `atos_runtime::Atomics`' for atomics). Tests hold the three together: every entry's CUDA
//! function compiles for every type it admits (`tests/nvrtc_compile.rs`), every atomic entry
//! exists on the CPU `Atomics` for every type it admits (`atos-runtime`'s `atomic_table` test),
//! and GPU and CPU agree on a program using them all (`tests/common/features.rs`, `gpu_suite`).

use crate::ir::Scalar;

/// Which types an operation takes (the receiver of a method, the element of an `Atomics`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Receivers {
    /// Any integer or float.
    Num,
    /// Integers (signed or not).
    Int,
    /// `f32` / `f64`.
    Float,
    /// Integers and `bool` (bitwise operations).
    Bits,
    /// Every scalar.
    Any,
}

impl Receivers {
    /// Whether a value of type `ty` is taken.
    pub fn take(self, ty: Scalar) -> bool {
        match self {
            Num => ty.is_int() || ty.is_float(),
            Int => ty.is_int(),
            Float => ty.is_float(),
            Bits => ty.is_int() || ty == Scalar::Bool,
            Any => true,
        }
    }

    /// In words, for error messages.
    pub fn describe(self) -> &'static str {
        match self {
            Num => "integers and floats",
            Int => "integers",
            Float => "`f32` and `f64`",
            Bits => "integers and `bool`",
            Any => "every scalar type",
        }
    }
}

/// What a method returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Returns {
    /// The receiver's type.
    Same,
    /// `u32` (bit counts).
    U32,
}

/// One scalar method.
#[derive(Clone, Copy, Debug)]
pub struct MethodDecl {
    pub name: &'static str,
    /// Arguments after the receiver (each of the receiver's type).
    pub args: usize,
    pub receivers: Receivers,
    pub returns: Returns,
    /// The device function in namespace `atos`.
    pub cuda: &'static str,
}

const fn m(
    name: &'static str,
    args: usize,
    receivers: Receivers,
    returns: Returns,
    cuda: &'static str,
) -> MethodDecl {
    MethodDecl {
        name,
        args,
        receivers,
        returns,
        cuda,
    }
}

use Receivers::*;
use Returns::*;

/// Every scalar method device code may call.
pub const METHODS: &[MethodDecl] = &[
    m("min", 1, Num, Same, "min"),
    m("max", 1, Num, Same, "max"),
    m("wrapping_add", 1, Int, Same, "wadd"),
    m("wrapping_sub", 1, Int, Same, "wsub"),
    m("wrapping_mul", 1, Int, Same, "wmul"),
    m("count_ones", 0, Int, U32, "count_ones"),
    m("leading_zeros", 0, Int, U32, "leading_zeros"),
    m("trailing_zeros", 0, Int, U32, "trailing_zeros"),
    m("abs", 0, Float, Same, "fabs_of"),
    m("sqrt", 0, Float, Same, "sqrt_of"),
    m("mul_add", 2, Float, Same, "mul_add"),
];

/// The method called `name`, if device code may call it.
pub fn method(name: &str) -> Option<&'static MethodDecl> {
    METHODS.iter().find(|d| d.name == name)
}

/// The names, for error messages.
pub fn method_names() -> String {
    METHODS
        .iter()
        .map(|d| format!("`{}`", d.name))
        .collect::<Vec<_>>()
        .join(", ")
}

impl MethodDecl {
    /// Whether a receiver of type `ty` may call it.
    pub fn takes(&self, ty: Scalar) -> bool {
        self.receivers.take(ty)
    }
}

/// What an `Atomics` method returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomicReturns {
    /// The element's previous value.
    Previous,
    /// Nothing: a statement (`store`).
    Nothing,
    /// Whether the operation changed the element in its direction (`lower`, `raise`).
    Moved,
}

/// One method of `Atomics<T>`: `s.field.name(index, values..)`.
#[derive(Clone, Copy, Debug)]
pub struct AtomicDecl {
    pub name: &'static str,
    /// Value arguments after the index (each of the element type).
    pub values: usize,
    /// The element types it is defined for, on the CPU (`Atomics<T>`) and the GPU alike.
    pub elems: Receivers,
    pub returns: AtomicReturns,
    /// The device function in namespace `atos`. It takes the element's address first, or, for
    /// a `by_field` entry, the field itself and the (checked) index: a program spread over
    /// several GPUs gives it the field's placement (`atos::Spread`), so it can use the
    /// device's filter copy (`lower`, `raise`; see docs/runtime.md).
    pub cuda: &'static str,
    pub by_field: bool,
    /// The device function for a statement that discards the previous value
    /// (`s.rank.fetch_add(v, r);`), taking the same arguments and returning nothing: a PTX
    /// `red`, which the GPU does not answer. The same call kept as `atom` makes the thread
    /// wait for an answer nobody reads: ptxas keeps a discarded `atomicAdd` as an `ATOMG` in any
    /// kernel that fences after it, as every persistent kernel does.
    pub discarded: Option<&'static str>,
}

const fn a(name: &'static str, values: usize, elems: Receivers, cuda: &'static str) -> AtomicDecl {
    AtomicDecl {
        name,
        values,
        elems,
        returns: AtomicReturns::Previous,
        cuda,
        by_field: false,
        discarded: None,
    }
}

/// A read-modify-write with a `red` form for discarded results.
const fn rmw(
    name: &'static str,
    elems: Receivers,
    cuda: &'static str,
    discarded: &'static str,
) -> AtomicDecl {
    AtomicDecl {
        discarded: Some(discarded),
        ..a(name, 1, elems, cuda)
    }
}

/// Every `Atomics` method device code may call. Each is relaxed and device-scoped; the
/// read-modify-writes return the previous value, as `std::sync::atomic` does. `lower(i, v)`
/// is `fetch_min(i, v) > v` and `raise(i, v)` is `fetch_max(i, v) < v`: whether the element
/// moved; with only the answer asked for, the device may skip the atomic when a load (or, spread
/// over several GPUs, the device's filter copy) already shows it cannot move. `accumulate(i, v)`
/// adds with no answer, which a program spread over several GPUs may deliver later.
pub const ATOMICS: &[AtomicDecl] = &[
    a("load", 0, Any, "atomic_load"),
    AtomicDecl {
        returns: AtomicReturns::Nothing,
        ..a("store", 1, Any, "atomic_store")
    },
    a("swap", 1, Any, "atomic_swap"),
    a("compare_and_swap", 2, Any, "atomic_compare_and_swap"),
    rmw("fetch_add", Num, "atomic_fetch_add", "atomic_reduce_add"),
    rmw("fetch_sub", Num, "atomic_fetch_sub", "atomic_reduce_sub"),
    rmw("fetch_min", Num, "atomic_fetch_min", "atomic_reduce_min"),
    rmw("fetch_max", Num, "atomic_fetch_max", "atomic_reduce_max"),
    rmw("fetch_and", Bits, "atomic_fetch_and", "atomic_reduce_and"),
    rmw("fetch_or", Bits, "atomic_fetch_or", "atomic_reduce_or"),
    rmw("fetch_xor", Bits, "atomic_fetch_xor", "atomic_reduce_xor"),
    AtomicDecl {
        returns: AtomicReturns::Moved,
        by_field: true,
        ..a("lower", 1, Num, "atomic_lower")
    },
    AtomicDecl {
        returns: AtomicReturns::Moved,
        by_field: true,
        ..a("raise", 1, Num, "atomic_raise")
    },
    // `accumulate(i, v)`: adds `v` with no answer and no order with anything else the task
    // does. On one GPU a `red` (as a discarded `fetch_add`); spread over several, an add to
    // another device's element goes into this device's combine copy and reaches the element
    // in one add per element and delivery: after a batch (a drain), in an idle sweep, or when
    // the run ends (docs/runtime.md, "Combined adds").
    AtomicDecl {
        returns: AtomicReturns::Nothing,
        by_field: true,
        ..a("accumulate", 1, Num, "atomic_accumulate")
    },
];

/// The `Atomics` method called `name`.
pub fn atomic(name: &str) -> Option<&'static AtomicDecl> {
    ATOMICS.iter().find(|d| d.name == name)
}

/// The `Atomics` method names, for error messages.
pub fn atomic_names() -> String {
    ATOMICS
        .iter()
        .map(|d| format!("`{}`", d.name))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A named constant `T::NAME` of a float type, with its value in each width (exact: the
/// emitter writes the bits).
#[derive(Clone, Copy, Debug)]
pub struct FloatConst {
    pub name: &'static str,
    pub f32: f32,
    pub f64: f64,
}

/// Every float constant device code may name (`f32::INFINITY`, `f64::EPSILON`, ...). The
/// integer `T::MAX` / `T::MIN` are folded to literals by the front end.
pub const FLOAT_CONSTS: &[FloatConst] = &[
    FloatConst {
        name: "INFINITY",
        f32: f32::INFINITY,
        f64: f64::INFINITY,
    },
    FloatConst {
        name: "NEG_INFINITY",
        f32: f32::NEG_INFINITY,
        f64: f64::NEG_INFINITY,
    },
    FloatConst {
        name: "NAN",
        f32: f32::NAN,
        f64: f64::NAN,
    },
    FloatConst {
        name: "EPSILON",
        f32: f32::EPSILON,
        f64: f64::EPSILON,
    },
    FloatConst {
        name: "MAX",
        f32: f32::MAX,
        f64: f64::MAX,
    },
    FloatConst {
        name: "MIN",
        f32: f32::MIN,
        f64: f64::MIN,
    },
    FloatConst {
        name: "MIN_POSITIVE",
        f32: f32::MIN_POSITIVE,
        f64: f64::MIN_POSITIVE,
    },
];

/// The float constant called `name`.
pub fn float_const(name: &str) -> Option<&'static FloatConst> {
    FLOAT_CONSTS.iter().find(|c| c.name == name)
}

impl FloatConst {
    /// The constant as a CUDA expression of type `ty` (`f32` or `f64`), bit-exact.
    pub fn cuda(&self, ty: Scalar) -> String {
        match ty {
            Scalar::F32 => format!("__uint_as_float({:#010x}u)", self.f32.to_bits()),
            _ => format!(
                "__longlong_as_double((long long){:#018x}ull)",
                self.f64.to_bits()
            ),
        }
    }
}

/// One reduction form of a `lanes(..)` loop (see [`crate::ir::StmtKind::Reduce`]).
#[derive(Clone, Copy, Debug)]
pub struct ReduceDecl {
    pub op: crate::ir::ReduceOp,
    /// How it is written in Rust, with `x` the target and `e` the lane's value.
    pub rust: &'static str,
    pub receivers: Receivers,
    /// The combining functor in `atos/worker.cuh` (its identity and `apply`).
    pub cuda: &'static str,
}

/// Every reduction a `lanes(..)` loop may make into a variable declared before it.
pub const REDUCTIONS: &[ReduceDecl] = {
    use crate::ir::ReduceOp as R;
    &[
        ReduceDecl {
            op: R::Min,
            rust: "x = x.min(e)",
            receivers: Num,
            cuda: "ReduceMin",
        },
        ReduceDecl {
            op: R::Max,
            rust: "x = x.max(e)",
            receivers: Num,
            cuda: "ReduceMax",
        },
        ReduceDecl {
            op: R::Add,
            rust: "x += e",
            receivers: Num,
            cuda: "ReduceAdd",
        },
        ReduceDecl {
            op: R::BitAnd,
            rust: "x &= e",
            receivers: Bits,
            cuda: "ReduceAnd",
        },
        ReduceDecl {
            op: R::BitOr,
            rust: "x |= e",
            receivers: Bits,
            cuda: "ReduceOr",
        },
        ReduceDecl {
            op: R::BitXor,
            rust: "x ^= e",
            receivers: Bits,
            cuda: "ReduceXor",
        },
    ]
};

/// The reduction of `op`.
pub fn reduction(op: crate::ir::ReduceOp) -> &'static ReduceDecl {
    REDUCTIONS
        .iter()
        .find(|d| d.op == op)
        .expect("every ReduceOp has a table entry")
}

/// The reduction forms, for error messages.
pub fn reduction_forms() -> String {
    REDUCTIONS
        .iter()
        .map(|d| format!("`{}`", d.rust))
        .collect::<Vec<_>>()
        .join(", ")
}
