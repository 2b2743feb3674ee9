//! Scalar methods of the device subset, declared once: the Rust method name, its arguments, the
//! receiver types it takes, its result, and the CUDA function (in `atos/prelude.cuh`) that
//! computes what the Rust method computes. The front end lowers `x.name(..)` through this
//! table, the type checker types it, the emitter prints `atos::<cuda>(x, ..)`; the CPU executor
//! runs the Rust method itself. Tests check that every entry has its CUDA function and that
//! GPU and CPU agree (`tests/common/features.rs`, `gpu_suite`).

use crate::ir::Scalar;

/// Which receivers a method takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Receivers {
    /// Any integer or float.
    Num,
    /// Integers (signed or not).
    Int,
    /// `f32` / `f64`.
    Float,
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
        match self.receivers {
            Num => ty.is_int() || ty.is_float(),
            Int => ty.is_int(),
            Float => ty.is_float(),
        }
    }
}
