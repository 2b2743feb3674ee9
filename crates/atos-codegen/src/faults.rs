//! Faults: what Rust panics on (overflow in a debug build; division by zero and out-of-bounds
//! indices in every build) caught on the device and reported with the Rust line.
//!
//! A generated operation that can fault gets a *site* code: the function (its index in
//! [`fault_functions`]), the source line as an offset from the function's `fn` line, and the
//! [`Fault`]. The device records the first site that faults in the control block's `fault` word
//! and stops the run (`STATUS_FAULT`); the host decodes the word into an error naming the
//! function, the line and Rust's own panic message.
//!
//! The offset, not the line, is what the generated code holds, so a function that only moves in
//! its file (a doc comment above it grows) compiles to the same machine code: ptxas's register
//! allocation has been seen to change with these constants alone (40 to 48 registers for one
//! spread PageRank unit, a block fewer per SM).
//!
//! Division and remainder by zero (and `MIN / -1`), `step_by(0)` and `Slice`/`Atomics` indices
//! past the length are checked in every build, as Rust checks them in every build. With
//! [`crate::KernelSpec::checked`] (on when atos is compiled with debug assertions, as in the dev
//! profile) `+ - *`, negation and shifts are checked for overflow too, as a debug build of the
//! task panics. Not checked: reductions across `lanes` (`+=` into a variable declared outside
//! the loop), which combine the lanes' shares in another order than Rust's loop, so where an
//! intermediate sum overflows differs; they wrap in both modes.
//!
//! A site names the line of the statement its operation belongs to (an `else if` condition:
//! its own line; a `for` or `lanes` loop's bounds: the loop's line), which is the line Rust's
//! panic names unless the statement spans several lines.

use crate::ir::FnIr;

/// What went wrong at a site; the discriminant is its code in the site word (never 0).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u8)]
pub enum Fault {
    AddOverflow = 1,
    SubOverflow,
    MulOverflow,
    NegOverflow,
    ShlOverflow,
    ShrOverflow,
    DivByZero,
    RemByZero,
    DivOverflow,
    RemOverflow,
    IndexOutOfBounds,
    StepZero,
}

impl Fault {
    pub const ALL: [Fault; 12] = [
        Fault::AddOverflow,
        Fault::SubOverflow,
        Fault::MulOverflow,
        Fault::NegOverflow,
        Fault::ShlOverflow,
        Fault::ShrOverflow,
        Fault::DivByZero,
        Fault::RemByZero,
        Fault::DivOverflow,
        Fault::RemOverflow,
        Fault::IndexOutOfBounds,
        Fault::StepZero,
    ];

    /// Rust's panic message for the same fault.
    pub fn message(self) -> &'static str {
        match self {
            Fault::AddOverflow => "attempt to add with overflow",
            Fault::SubOverflow => "attempt to subtract with overflow",
            Fault::MulOverflow => "attempt to multiply with overflow",
            Fault::NegOverflow => "attempt to negate with overflow",
            Fault::ShlOverflow => "attempt to shift left with overflow",
            Fault::ShrOverflow => "attempt to shift right with overflow",
            Fault::DivByZero => "attempt to divide by zero",
            Fault::RemByZero => "attempt to calculate the remainder with a divisor of zero",
            Fault::DivOverflow => "attempt to divide with overflow",
            Fault::RemOverflow => "attempt to calculate the remainder with overflow",
            Fault::IndexOutOfBounds => "index out of bounds",
            Fault::StepZero => "assertion failed: step != 0",
        }
    }

    /// An overflow, which only a debug build (checked mode) reports; the others fault in every
    /// build.
    pub fn is_overflow(self) -> bool {
        matches!(
            self,
            Fault::AddOverflow
                | Fault::SubOverflow
                | Fault::MulOverflow
                | Fault::NegOverflow
                | Fault::ShlOverflow
                | Fault::ShrOverflow
        )
    }

    fn from_code(code: u8) -> Option<Fault> {
        Fault::ALL.into_iter().find(|f| *f as u8 == code)
    }
}

/// Bits of a site word: function index << 40 | line offset << 8 | fault code.
const LINE_SHIFT: u32 = 8;
const FUNCTION_SHIFT: u32 = 40;

/// The site word of `fault` at `offset` lines below the `fn` line of function number
/// `function`.
pub fn site(function: u32, offset: u32, fault: Fault) -> u64 {
    (u64::from(function) << FUNCTION_SHIFT) | (u64::from(offset) << LINE_SHIFT) | fault as u64
}

/// A function of a unit as fault sites name it: its name and the line of its `fn` keyword,
/// which site offsets count from.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct FaultFunction {
    pub name: String,
    pub line: u32,
}

impl FaultFunction {
    fn of(f: &FnIr) -> FaultFunction {
        FaultFunction {
            name: f.name.clone(),
            line: f.line,
        }
    }
}

/// A decoded site: where the device faulted, and how.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct FaultSite {
    pub function: String,
    pub line: u32,
    pub fault: Fault,
}

/// Decodes a `fault` word with the program's [`fault_functions`]; `None` for 0 or a word no
/// site of this program could write.
pub fn decode(word: u64, functions: &[FaultFunction]) -> Option<FaultSite> {
    let fault = Fault::from_code((word & 0xff) as u8)?;
    let offset = ((word >> LINE_SHIFT) & ((1 << (FUNCTION_SHIFT - LINE_SHIFT)) - 1)) as u32;
    let function = functions.get((word >> FUNCTION_SHIFT) as usize)?;
    Some(FaultSite {
        function: function.name.clone(),
        line: function.line.saturating_add(offset),
        fault,
    })
}

/// The functions of a program's unit in site-numbering order: the tasks in program order,
/// then the device functions they reach, in first-reached order (as `generate_unit` emits them).
pub fn fault_functions(tasks: &[&FnIr], device_fns: &[FnIr]) -> Vec<FaultFunction> {
    let mut out: Vec<FaultFunction> = tasks.iter().map(|t| FaultFunction::of(t)).collect();
    if let Ok(ordered) = crate::unit::order_device_fns(tasks, device_fns) {
        out.extend(ordered.iter().map(FaultFunction::of));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sites_round_trip() {
        let f = |name: &str, line| FaultFunction {
            name: name.into(),
            line,
        };
        let names = vec![f("bfs", 10), f("relax", 300)];
        for fault in Fault::ALL {
            let w = site(1, 4321, fault);
            assert_ne!(w, 0);
            assert_eq!(
                decode(w, &names),
                Some(FaultSite {
                    function: "relax".into(),
                    line: 4621,
                    fault
                })
            );
        }
        assert_eq!(decode(0, &names), None);
        assert_eq!(decode(site(7, 1, Fault::AddOverflow), &names), None);
    }
}
