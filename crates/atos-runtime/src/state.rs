//! How a state struct and its fields describe themselves to the executors.

use atos_codegen::{FieldKind, Scalar, StateDesc};

use crate::arrays::{Atomics, Queue, Slice};
use crate::cpu::queue::CpuQueue;
use crate::elem::{AtomicElem, Elem, QueueItem};

/// Implemented by `#[atos::state]` for the user's struct.
pub trait State: Sync {
    /// Field names, kinds and element types, in declaration order.
    fn desc() -> StateDesc;
    /// The fields' host data, in declaration order.
    fn fields(&self) -> Vec<FieldRef<'_>>;
}

/// One field's host data, as an executor sees it.
pub enum FieldRef<'s> {
    Slice { bytes: &'s [u8], len: usize },
    Atomics(&'s dyn AtomicHost),
    Queue(&'s dyn QueueHost),
    Scalar(u64),
}

/// Host access to an `Atomics` field: snapshot to bytes, write back from bytes.
pub trait AtomicHost: Sync {
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    fn elem_size(&self) -> usize;
    fn read_bytes(&self) -> Vec<u8>;
    fn write_bytes(&self, bytes: &[u8]);
}

/// Host access to a `Queue` field.
pub trait QueueHost: Sync {
    fn capacity(&self) -> u64;
    fn elem_size(&self) -> usize;
    fn bind(&self, q: &CpuQueue) -> bool;
    fn unbind(&self);
}

/// Implemented by every type that can be a field of an `#[atos::state]` struct.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a field of an #[atos::state] struct",
    note = "state fields are `Slice<'a, T>` (read-only array), `Atomics<'a, T>` (atomically updated array), `Queue<'a, T>` (task queue) or a scalar (u32, i32, u64, i64, usize, f32, f64, bool)"
)]
pub trait StateField {
    const KIND: FieldKind;
    const ELEM: Scalar;
    fn field_ref(&self) -> FieldRef<'_>;
}

impl<T: Elem> StateField for Slice<'_, T> {
    const KIND: FieldKind = FieldKind::Slice;
    const ELEM: Scalar = T::SCALAR;
    fn field_ref(&self) -> FieldRef<'_> {
        let s = self.as_slice();
        // SAFETY: `Elem` types are plain scalars without padding; viewing them as bytes is sound.
        let bytes = unsafe {
            std::slice::from_raw_parts(s.as_ptr() as *const u8, std::mem::size_of_val(s))
        };
        FieldRef::Slice {
            bytes,
            len: s.len(),
        }
    }
}

impl<T: AtomicElem> StateField for Atomics<'_, T> {
    const KIND: FieldKind = FieldKind::Atomics;
    const ELEM: Scalar = T::SCALAR;
    fn field_ref(&self) -> FieldRef<'_> {
        FieldRef::Atomics(self)
    }
}

impl<T: AtomicElem> AtomicHost for Atomics<'_, T> {
    fn len(&self) -> usize {
        Atomics::len(self)
    }
    fn elem_size(&self) -> usize {
        T::SCALAR.size_bytes()
    }
    fn read_bytes(&self) -> Vec<u8> {
        let size = self.elem_size();
        let mut out = Vec::with_capacity(self.len() * size);
        for i in 0..self.len() {
            out.extend_from_slice(&self.load(i).to_bits().to_le_bytes()[..size]);
        }
        out
    }
    fn write_bytes(&self, bytes: &[u8]) {
        let size = self.elem_size();
        for (i, chunk) in bytes.chunks_exact(size).enumerate().take(self.len()) {
            let mut b = [0u8; 8];
            b[..size].copy_from_slice(chunk);
            self.store(i, T::from_bits(u64::from_le_bytes(b)));
        }
    }
}

impl<T: QueueItem> StateField for Queue<'_, T> {
    const KIND: FieldKind = FieldKind::Queue;
    const ELEM: Scalar = T::SCALAR;
    fn field_ref(&self) -> FieldRef<'_> {
        FieldRef::Queue(self)
    }
}

impl<T: QueueItem> QueueHost for Queue<'_, T> {
    fn capacity(&self) -> u64 {
        Queue::capacity(self)
    }
    fn elem_size(&self) -> usize {
        T::SCALAR.size_bytes()
    }
    fn bind(&self, q: &CpuQueue) -> bool {
        Queue::bind(self, q)
    }
    fn unbind(&self) {
        Queue::unbind(self)
    }
}

macro_rules! scalar_field {
    ($($t:ty),*) => {$(
        impl StateField for $t {
            const KIND: FieldKind = FieldKind::Scalar;
            const ELEM: Scalar = <$t as Elem>::SCALAR;
            fn field_ref(&self) -> FieldRef<'_> {
                FieldRef::Scalar(Elem::to_bits(*self))
            }
        }
    )*};
}
scalar_field!(u32, i32, u64, i64, usize, f32, f64, bool);
