//! Element types that can live in state arrays, queues and scalar fields.

use std::sync::atomic::{AtomicI32, AtomicI64, AtomicU32, AtomicU64, Ordering};

use atos_codegen::Scalar;

/// A plain scalar the device understands. Its bytes are copied to the GPU as they are.
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
elem_int!(u32 => U32, i32 => I32, u64 => U64, i64 => I64, usize => U64);

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

/// Integer types a queue can hold (the task items).
pub trait QueueItem: Elem {}
impl QueueItem for u32 {}
impl QueueItem for i32 {}
impl QueueItem for u64 {}
impl QueueItem for i64 {}

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

/// Element types of `Atomics` arrays: load, store, add, sub, swap, compare-and-swap.
pub trait AtomicElem: Elem {
    type Cell: Send + Sync;
    fn new_cell(v: Self) -> Self::Cell;
    fn load(c: &Self::Cell) -> Self;
    fn store(c: &Self::Cell, v: Self);
    fn fetch_add(c: &Self::Cell, v: Self) -> Self;
    fn fetch_sub(c: &Self::Cell, v: Self) -> Self;
    fn swap(c: &Self::Cell, v: Self) -> Self;
    fn compare_and_swap(c: &Self::Cell, current: Self, new: Self) -> Self;
}

/// Integer `Atomics` elements additionally support min, max and bitwise operations.
pub trait AtomicInt: AtomicElem {
    fn fetch_min(c: &Self::Cell, v: Self) -> Self;
    fn fetch_max(c: &Self::Cell, v: Self) -> Self;
    fn fetch_and(c: &Self::Cell, v: Self) -> Self;
    fn fetch_or(c: &Self::Cell, v: Self) -> Self;
    fn fetch_xor(c: &Self::Cell, v: Self) -> Self;
}

// Relaxed ordering matches the GPU's atomics (device-scope, relaxed); the executors order
// task completion themselves.
const ORD: Ordering = Ordering::Relaxed;

macro_rules! atomic_int {
    ($($t:ty => $cell:ty),*) => {$(
        impl AtomicElem for $t {
            type Cell = $cell;
            fn new_cell(v: Self) -> Self::Cell { <$cell>::new(v) }
            fn load(c: &Self::Cell) -> Self { c.load(ORD) }
            fn store(c: &Self::Cell, v: Self) { c.store(v, ORD) }
            fn fetch_add(c: &Self::Cell, v: Self) -> Self { c.fetch_add(v, ORD) }
            fn fetch_sub(c: &Self::Cell, v: Self) -> Self { c.fetch_sub(v, ORD) }
            fn swap(c: &Self::Cell, v: Self) -> Self { c.swap(v, ORD) }
            fn compare_and_swap(c: &Self::Cell, current: Self, new: Self) -> Self {
                match c.compare_exchange(current, new, ORD, ORD) { Ok(v) | Err(v) => v }
            }
        }
        impl AtomicInt for $t {
            fn fetch_min(c: &Self::Cell, v: Self) -> Self { c.fetch_min(v, ORD) }
            fn fetch_max(c: &Self::Cell, v: Self) -> Self { c.fetch_max(v, ORD) }
            fn fetch_and(c: &Self::Cell, v: Self) -> Self { c.fetch_and(v, ORD) }
            fn fetch_or(c: &Self::Cell, v: Self) -> Self { c.fetch_or(v, ORD) }
            fn fetch_xor(c: &Self::Cell, v: Self) -> Self { c.fetch_xor(v, ORD) }
        }
    )*};
}
atomic_int!(u32 => AtomicU32, i32 => AtomicI32, u64 => AtomicU64, i64 => AtomicI64);

macro_rules! atomic_float {
    ($($t:ty => $cell:ty, $bits:ty),*) => {$(
        impl AtomicElem for $t {
            type Cell = $cell;
            fn new_cell(v: Self) -> Self::Cell { <$cell>::new(v.to_bits()) }
            fn load(c: &Self::Cell) -> Self { <$t>::from_bits(c.load(ORD)) }
            fn store(c: &Self::Cell, v: Self) { c.store(v.to_bits(), ORD) }
            fn fetch_add(c: &Self::Cell, v: Self) -> Self {
                let prev = c.fetch_update(ORD, ORD, |b| Some((<$t>::from_bits(b) + v).to_bits())).unwrap();
                <$t>::from_bits(prev)
            }
            fn fetch_sub(c: &Self::Cell, v: Self) -> Self { Self::fetch_add(c, -v) }
            fn swap(c: &Self::Cell, v: Self) -> Self { <$t>::from_bits(c.swap(v.to_bits(), ORD)) }
            fn compare_and_swap(c: &Self::Cell, current: Self, new: Self) -> Self {
                match c.compare_exchange(current.to_bits(), new.to_bits(), ORD, ORD) {
                    Ok(v) | Err(v) => <$t>::from_bits(v),
                }
            }
        }
    )*};
}
atomic_float!(f32 => AtomicU32, u32, f64 => AtomicU64, u64);
