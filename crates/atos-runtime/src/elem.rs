//! Element types that can live in state arrays, queues and scalar fields.

use std::sync::atomic::{
    AtomicBool, AtomicI32, AtomicI64, AtomicU8, AtomicU16, AtomicU32, AtomicU64, AtomicUsize,
    Ordering,
};

use atos_codegen::Scalar;
use atos_codegen::item::{ElemTy, MAX_ITEM_BYTES, tuple_layout};

/// A plain scalar the device understands. Its bytes are copied to the GPU as they are.
#[diagnostic::on_unimplemented(
    message = "atos: `{Self}` is not a device scalar",
    label = "not one of bool, u8, u16, u32, i32, u64, i64, usize, f32, f64",
    note = "state arrays, queues and scalar fields hold device scalars; split a struct into one array per field"
)]
pub trait Elem: Copy + Send + Sync + 'static {
    const SCALAR: Scalar;
    fn to_bits(self) -> u64;
    fn from_bits(bits: u64) -> Self;
}

macro_rules! elem_int {
    ($($t:ty => $s:ident),*) => {$(
        impl Elem for $t {
            const SCALAR: Scalar = Scalar::$s;
            fn to_bits(self) -> u64 { self as u64 }
            fn from_bits(bits: u64) -> Self { bits as $t }
        }
    )*};
}
elem_int!(u8 => U8, u16 => U16, u32 => U32, i32 => I32, u64 => U64, i64 => I64, usize => U64);

impl Elem for f32 {
    const SCALAR: Scalar = Scalar::F32;
    fn to_bits(self) -> u64 {
        f32::to_bits(self) as u64
    }
    fn from_bits(bits: u64) -> Self {
        f32::from_bits(bits as u32)
    }
}

impl Elem for f64 {
    const SCALAR: Scalar = Scalar::F64;
    fn to_bits(self) -> u64 {
        f64::to_bits(self)
    }
    fn from_bits(bits: u64) -> Self {
        f64::from_bits(bits)
    }
}

impl Elem for bool {
    const SCALAR: Scalar = Scalar::Bool;
    fn to_bits(self) -> u64 {
        self as u64
    }
    fn from_bits(bits: u64) -> Self {
        bits != 0
    }
}

/// Key types of a [`crate::PriorityQueue`]: `u32` (a depth, an integer distance) or `f32` (a
/// float distance). Keys compare as their type does (`atos_codegen::keys` encodes them).
#[diagnostic::on_unimplemented(
    message = "atos: `{Self}` cannot be a priority key",
    label = "priority keys are u32 or f32",
    note = "e.g. `PriorityQueue<'a, u32, u32>` for vertices keyed by an integer distance"
)]
pub trait PriorityKey: Elem + PartialOrd {
    /// The delta of a queue that was given none: 1 (u32) or 1.0 (f32).
    const DEFAULT_DELTA: Self;
    /// Whether `self` can be a delta: above zero (and finite, for f32).
    fn valid_delta(self) -> bool;
}

impl PriorityKey for u32 {
    const DEFAULT_DELTA: u32 = 1;
    fn valid_delta(self) -> bool {
        self > 0
    }
}

impl PriorityKey for f32 {
    const DEFAULT_DELTA: f32 = 1.0;
    fn valid_delta(self) -> bool {
        self > 0.0 && self.is_finite()
    }
}

/// A task item's device bytes, in the low bytes (little-endian): items are at most
/// [`atos_codegen::item::MAX_ITEM_BYTES`] bytes.
pub type ItemBits = u128;

/// Types a queue can hold: the task items. An integer (`u32`, `i32`, `u64`, `i64`), or a tuple
/// of 2 to 4 device scalars of at most 16 bytes, laid out as `atos_codegen::item` says.
#[diagnostic::on_unimplemented(
    message = "atos: a `Queue` cannot hold `{Self}`",
    label = "queue items are u32, i32, u64, i64, or a tuple of 2 to 4 device scalars (at most 16 bytes)",
    note = "e.g. `Queue<'a, (u32, f32)>` for a vertex and a distance; the task then takes `(v, d): (u32, f32)`"
)]
pub trait QueueItem: Copy + Send + Sync + 'static {
    /// The item's scalars: one for an integer, each part of a tuple in order.
    const PARTS: &'static [Scalar];
    /// The item's device bytes.
    fn to_item_bits(self) -> ItemBits;
    fn from_item_bits(bits: ItemBits) -> Self;
    /// Bytes one item takes in a queue slot.
    fn item_size() -> usize {
        ElemTy::from_parts(Self::PARTS).size_bytes()
    }
}

macro_rules! queue_scalar {
    ($($t:ty),*) => {$(
        impl QueueItem for $t {
            const PARTS: &'static [Scalar] = &[<$t as Elem>::SCALAR];
            fn to_item_bits(self) -> ItemBits {
                ItemBits::from(Elem::to_bits(self))
            }
            fn from_item_bits(bits: ItemBits) -> Self {
                <$t as Elem>::from_bits(bits as u64)
            }
        }
    )*};
}
queue_scalar!(u32, i32, u64, i64);

macro_rules! queue_tuple {
    ($($p:ident $k:tt),*) => {
        impl<$($p: Elem),*> QueueItem for ($($p,)*) {
            const PARTS: &'static [Scalar] = {
                assert!(
                    tuple_layout(&[$($p::SCALAR),*]).size as usize <= MAX_ITEM_BYTES,
                    "atos: a tuple item is at most 16 bytes (e.g. (u64, u64) or (u32, u32, u32, u32))"
                );
                &[$($p::SCALAR),*]
            };
            fn to_item_bits(self) -> ItemBits {
                let at = tuple_layout(Self::PARTS).offsets;
                let mut bits: ItemBits = 0;
                $(bits |= ItemBits::from(part_bits(ItemBits::from(self.$k.to_bits()), 0, $p::SCALAR)) << (8 * at[$k]);)*
                bits
            }
            fn from_item_bits(bits: ItemBits) -> Self {
                let at = tuple_layout(Self::PARTS).offsets;
                ($($p::from_bits(part_bits(bits, at[$k], $p::SCALAR)),)*)
            }
        }
    };
}
queue_tuple!(A 0, B 1);
queue_tuple!(A 0, B 1, C 2);
queue_tuple!(A 0, B 1, C 2, D 3);

/// The bits of the part of type `s` at byte `offset` of an item (a signed part's `to_bits` is
/// sign-extended: only its own width is kept).
pub(crate) fn part_bits(bits: ItemBits, offset: u32, s: Scalar) -> u64 {
    let width = 8 * s.size_bytes() as u32;
    let mask = if width == 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    (bits >> (8 * offset)) as u64 & mask
}

/// An integer that can index a state array: `u32`, `u64` or `usize`.
pub trait IndexArg: Copy {
    fn to_usize(self) -> usize;
}
impl IndexArg for u32 {
    fn to_usize(self) -> usize {
        self as usize
    }
}
impl IndexArg for u64 {
    fn to_usize(self) -> usize {
        usize::try_from(self).expect("index does not fit in usize")
    }
}
impl IndexArg for usize {
    fn to_usize(self) -> usize {
        self
    }
}
/// An unsuffixed literal index (`s.count.fetch_add(0, 1)`) is an `i32` to rustc.
impl IndexArg for i32 {
    fn to_usize(self) -> usize {
        usize::try_from(self).unwrap_or_else(|_| panic!("index {self} is negative"))
    }
}

/// Element types of `Atomics` arrays, with the operations every element type has: load,
/// store, swap, compare-and-swap (`ops::ATOMICS` entries of `Receivers::Any`).
#[diagnostic::on_unimplemented(
    message = "atos: `Atomics<{Self}>` is not supported",
    label = "`Atomics` elements are bool, u8, u16, u32, i32, u64, i64, usize, f32, f64",
    note = "see docs/dsl.md (Atomics) for the operations each element type has"
)]
pub trait AtomicElem: Elem {
    type Cell: Send + Sync;
    fn new_cell(v: Self) -> Self::Cell;
    fn load(c: &Self::Cell) -> Self;
    fn store(c: &Self::Cell, v: Self);
    fn swap(c: &Self::Cell, v: Self) -> Self;
    fn compare_and_swap(c: &Self::Cell, current: Self, new: Self) -> Self;
    /// Adds an element's bits (`Elem::to_bits`) to the cell: how the CPU executor delivers a
    /// combine copy (`accumulate`, which takes numbers only). Integers add wrapping, as
    /// `fetch_add` does; floats override it with their sum.
    fn add_bits(c: &Self::Cell, bits: u64) {
        let mut cur = Self::load(c);
        loop {
            let next = Self::from_bits(cur.to_bits().wrapping_add(bits));
            let seen = Self::compare_and_swap(c, cur, next);
            if seen.to_bits() == cur.to_bits() {
                return;
            }
            cur = seen;
        }
    }
}

/// Numeric `Atomics` elements (integers and floats): add, sub, min, max
/// (`Receivers::Num` entries). Float min/max ignore a NaN operand, as `f32::min` does.
#[diagnostic::on_unimplemented(
    message = "atos: `fetch_add`, `fetch_sub`, `fetch_min` and `fetch_max` need a numeric element, not `{Self}`",
    label = "defined for integers and floats",
    note = "for flags, use `fetch_or` / `fetch_and` on `Atomics<bool>`"
)]
pub trait AtomicNum: AtomicElem {
    fn fetch_add(c: &Self::Cell, v: Self) -> Self;
    fn fetch_sub(c: &Self::Cell, v: Self) -> Self;
    fn fetch_min(c: &Self::Cell, v: Self) -> Self;
    fn fetch_max(c: &Self::Cell, v: Self) -> Self;
}

/// Integer and `bool` `Atomics` elements: and, or, xor (`Receivers::Bits` entries).
#[diagnostic::on_unimplemented(
    message = "atos: `fetch_and`, `fetch_or` and `fetch_xor` need an integer or bool element, not `{Self}`",
    label = "defined for integers and bool",
    note = "for floats, use `fetch_min` / `fetch_max` / `fetch_add`, or `compare_and_swap` in a loop"
)]
pub trait AtomicBits: AtomicElem {
    fn fetch_and(c: &Self::Cell, v: Self) -> Self;
    fn fetch_or(c: &Self::Cell, v: Self) -> Self;
    fn fetch_xor(c: &Self::Cell, v: Self) -> Self;
}

// Relaxed ordering matches the GPU's atomics (device-scope, relaxed); the executors order
// task completion themselves.
const ORD: Ordering = Ordering::Relaxed;

macro_rules! atomic_any {
    ($($t:ty => $cell:ty),*) => {$(
        impl AtomicElem for $t {
            type Cell = $cell;
            fn new_cell(v: Self) -> Self::Cell { <$cell>::new(v) }
            fn load(c: &Self::Cell) -> Self { c.load(ORD) }
            fn store(c: &Self::Cell, v: Self) { c.store(v, ORD) }
            fn swap(c: &Self::Cell, v: Self) -> Self { c.swap(v, ORD) }
            fn compare_and_swap(c: &Self::Cell, current: Self, new: Self) -> Self {
                match c.compare_exchange(current, new, ORD, ORD) { Ok(v) | Err(v) => v }
            }
        }
        impl AtomicBits for $t {
            fn fetch_and(c: &Self::Cell, v: Self) -> Self { c.fetch_and(v, ORD) }
            fn fetch_or(c: &Self::Cell, v: Self) -> Self { c.fetch_or(v, ORD) }
            fn fetch_xor(c: &Self::Cell, v: Self) -> Self { c.fetch_xor(v, ORD) }
        }
    )*};
}
atomic_any!(
    bool => AtomicBool,
    u8 => AtomicU8,
    u16 => AtomicU16,
    u32 => AtomicU32,
    i32 => AtomicI32,
    u64 => AtomicU64,
    i64 => AtomicI64,
    usize => AtomicUsize
);

macro_rules! atomic_int_num {
    ($($t:ty),*) => {$(
        impl AtomicNum for $t {
            fn fetch_add(c: &Self::Cell, v: Self) -> Self { c.fetch_add(v, ORD) }
            fn fetch_sub(c: &Self::Cell, v: Self) -> Self { c.fetch_sub(v, ORD) }
            fn fetch_min(c: &Self::Cell, v: Self) -> Self { c.fetch_min(v, ORD) }
            fn fetch_max(c: &Self::Cell, v: Self) -> Self { c.fetch_max(v, ORD) }
        }
    )*};
}
atomic_int_num!(u8, u16, u32, i32, u64, i64, usize);

macro_rules! atomic_float {
    ($($t:ty => $cell:ty),*) => {$(
        impl AtomicElem for $t {
            type Cell = $cell;
            fn new_cell(v: Self) -> Self::Cell { <$cell>::new(v.to_bits()) }
            fn load(c: &Self::Cell) -> Self { <$t>::from_bits(c.load(ORD)) }
            fn store(c: &Self::Cell, v: Self) { c.store(v.to_bits(), ORD) }
            fn swap(c: &Self::Cell, v: Self) -> Self { <$t>::from_bits(c.swap(v.to_bits(), ORD)) }
            fn compare_and_swap(c: &Self::Cell, current: Self, new: Self) -> Self {
                match c.compare_exchange(current.to_bits(), new.to_bits(), ORD, ORD) {
                    Ok(v) | Err(v) => <$t>::from_bits(v),
                }
            }
            fn add_bits(c: &Self::Cell, bits: u64) {
                let v = <$t as Elem>::from_bits(bits);
                update(c, |x: $t| x + v);
            }
        }
        impl AtomicNum for $t {
            fn fetch_add(c: &Self::Cell, v: Self) -> Self { update(c, |x: $t| x + v) }
            fn fetch_sub(c: &Self::Cell, v: Self) -> Self { update(c, |x: $t| x - v) }
            fn fetch_min(c: &Self::Cell, v: Self) -> Self { update(c, |x: $t| x.min(v)) }
            fn fetch_max(c: &Self::Cell, v: Self) -> Self { update(c, |x: $t| x.max(v)) }
        }
    )*};
}
atomic_float!(f32 => AtomicU32, f64 => AtomicU64);

/// A float read-modify-write as a compare-and-swap loop on the bits; returns the previous value.
fn update<T: AtomicElem>(c: &T::Cell, f: impl Fn(T) -> T) -> T {
    let mut old = T::load(c);
    loop {
        let new = f(old);
        let seen = T::compare_and_swap(c, old, new);
        if seen.to_bits() == old.to_bits() {
            return old;
        }
        old = seen;
    }
}

#[cfg(test)]
mod atomic_table {
    //! The CPU side of `ops::ATOMICS`: each entry is a method of `Atomics<T>` for exactly the
    //! element types its `elems` admits (the NVRTC test checks the device side).
    use super::*;
    use crate::arrays::AtomicArray;
    use atos_codegen::ops::{ATOMICS, Receivers};

    /// Calls every method of the class on a 2-element array of `T`; returns the names called.
    fn any_ops<T: AtomicElem>(a: T, b: T) -> Vec<&'static str> {
        let arr = AtomicArray::filled(2, a);
        let v = arr.view();
        v.store(1u32, b);
        assert_eq!(v.load(1u32).to_bits(), b.to_bits());
        assert_eq!(v.swap(0u32, b).to_bits(), a.to_bits());
        assert_eq!(v.compare_and_swap(0u32, b, a).to_bits(), b.to_bits());
        vec!["load", "store", "swap", "compare_and_swap"]
    }
    fn num_ops<T: AtomicNum + PartialOrd>(a: T, b: T) -> Vec<&'static str> {
        let v = AtomicArray::filled(1, a);
        let v = v.view();
        v.fetch_add(0u32, b);
        v.fetch_sub(0u32, b);
        assert_eq!(v.load(0u32).to_bits(), a.to_bits());
        v.fetch_min(0u32, b);
        v.fetch_max(0u32, b);
        // a < b: the element is b; lowering to a moves it once, raising back to b once.
        assert!(v.lower(0u32, a) && !v.lower(0u32, a) && !v.lower(0u32, b));
        assert!(v.raise(0u32, b) && !v.raise(0u32, b) && !v.raise(0u32, a));
        // Outside a spread run, `accumulate` adds at once (here: b + b - b).
        v.accumulate(0u32, b);
        v.fetch_sub(0u32, b);
        assert_eq!(v.load(0u32).to_bits(), b.to_bits());
        vec![
            "accumulate",
            "fetch_add",
            "fetch_sub",
            "fetch_min",
            "fetch_max",
            "lower",
            "raise",
        ]
    }
    fn bits_ops<T: AtomicBits>(a: T, b: T) -> Vec<&'static str> {
        let v = AtomicArray::filled(1, a);
        let v = v.view();
        v.fetch_and(0u32, b);
        v.fetch_or(0u32, b);
        v.fetch_xor(0u32, b);
        vec!["fetch_and", "fetch_or", "fetch_xor"]
    }

    #[test]
    fn every_entry_is_a_cpu_method_for_exactly_the_types_it_admits() {
        // (type, the classes its CPU `Atomics` implements, the method names they give)
        let mut cpu: Vec<(Scalar, Vec<Receivers>, Vec<&str>)> = Vec::new();
        macro_rules! int {
            ($($t:ty),*) => {$(
                let mut names = any_ops::<$t>(3, 5);
                names.extend(num_ops::<$t>(3, 5));
                names.extend(bits_ops::<$t>(3, 5));
                cpu.push((<$t>::SCALAR, vec![Receivers::Any, Receivers::Num, Receivers::Bits], names));
            )*};
        }
        int!(u8, u16, u32, i32, u64, i64);
        for (ty, names) in [
            (
                f32::SCALAR,
                [any_ops(1.5f32, 2.0), num_ops(1.5f32, 2.0)].concat(),
            ),
            (
                f64::SCALAR,
                [any_ops(1.5f64, 2.0), num_ops(1.5f64, 2.0)].concat(),
            ),
        ] {
            cpu.push((ty, vec![Receivers::Any, Receivers::Num], names));
        }
        let names = [any_ops(false, true), bits_ops(false, true)].concat();
        cpu.push((Scalar::Bool, vec![Receivers::Any, Receivers::Bits], names));

        assert_eq!(
            cpu.len(),
            Scalar::ALL.len(),
            "every scalar has a CPU Atomics"
        );
        for (ty, classes, names) in &cpu {
            for d in ATOMICS {
                assert_eq!(
                    d.elems.take(*ty),
                    names.contains(&d.name),
                    "`{}` on Atomics<{}>: the table and the CPU disagree",
                    d.name,
                    ty.rust_name()
                );
                assert_eq!(d.elems.take(*ty), classes.contains(&d.elems));
            }
        }
    }

    #[test]
    fn float_min_max_ignore_nan_like_std() {
        let v = AtomicArray::filled(1, f32::NAN);
        let v = v.view();
        assert!(v.fetch_min(0u32, 2.0).is_nan());
        assert_eq!(v.load(0u32), 2.0);
        v.fetch_max(0u32, f32::NAN);
        assert_eq!(v.load(0u32), 2.0);
        v.fetch_min(0u32, -1.0);
        assert_eq!(v.fetch_max(0u32, 7.0), -1.0);
        assert_eq!(v.load(0u32), 7.0);
        // `lower` / `raise` are `fetch_min(i, v) > v` / `fetch_max(i, v) < v` with NaNs too:
        // a NaN element takes `v` and the answer is false (NaN compares false); a NaN `v`
        // changes nothing.
        assert!(!v.lower(0u32, f32::NAN) && !v.raise(0u32, f32::NAN));
        assert_eq!(v.load(0u32), 7.0);
        v.store(0u32, f32::NAN);
        assert!(!v.lower(0u32, 2.0));
        assert_eq!(v.load(0u32), 2.0);
        v.store(0u32, f32::NAN);
        assert!(!v.raise(0u32, 2.0));
        assert_eq!(v.load(0u32), 2.0);
    }
}
