//! How a state struct and its fields describe themselves to the executors.

use atos_codegen::{ElemTy, FieldDesc, FieldKind, Scalar, StateDesc};

use crate::arrays::{Atomics, PriorityQueue, Queue, Slice};
use crate::cpu::mesh::CpuRoute;
use crate::cpu::queue::{CpuPriority, CpuQueue};
use crate::elem::{AtomicElem, Elem, PriorityKey, QueueItem};

/// One field of a state, as a compile-time constant.
#[derive(Clone, Copy, Debug)]
pub struct FieldInfo {
    pub name: &'static str,
    pub kind: FieldKind,
    /// The element's scalars: one, or a queue's tuple item parts.
    pub parts: &'static [Scalar],
}

/// Implemented by `#[atos::state]` for the user's struct.
pub trait State: Sync {
    /// The struct's name.
    const NAME: &'static str;
    /// Field names, kinds and element types, in declaration order.
    const FIELDS: &'static [FieldInfo];
    /// The same, as the code generator takes it.
    fn desc() -> StateDesc {
        StateDesc {
            name: Self::NAME.to_string(),
            fields: Self::FIELDS
                .iter()
                .map(|f| FieldDesc {
                    name: f.name.to_string(),
                    kind: f.kind,
                    elem: ElemTy::from_parts(f.parts),
                })
                .collect(),
        }
    }
    /// The fields' host data, in declaration order.
    fn fields(&self) -> Vec<FieldRef<'_>>;
}

/// Compile-time checks the task macros run against a state (`const` evaluation: a failed
/// check is a rustc error at the task's signature, never a run-time surprise).
pub mod check {
    use super::{FieldInfo, FieldKind, Scalar, State};

    /// Outcome of [`queue_check`].
    pub enum QueueCheck {
        Ok,
        /// The state has no `Queue` field.
        NoQueue,
        /// No queue was named and the state has several.
        Several,
        /// The named field does not exist or is not a `Queue`.
        Unknown,
        /// The queue holds items of another type: this scalar, or a tuple (`None`).
        Mismatch(Option<Scalar>),
    }

    const fn same(a: &str, b: &str) -> bool {
        let (a, b) = (a.as_bytes(), b.as_bytes());
        if a.len() != b.len() {
            return false;
        }
        let mut i = 0;
        while i < a.len() {
            if a[i] != b[i] {
                return false;
            }
            i += 1;
        }
        true
    }

    const fn is_queue(f: &FieldInfo) -> bool {
        matches!(f.kind, FieldKind::Queue | FieldKind::PriorityQueue(_))
    }

    const fn same_parts(a: &[Scalar], b: &[Scalar]) -> bool {
        if a.len() != b.len() {
            return false;
        }
        let mut i = 0;
        while i < a.len() {
            if a[i] as u8 != b[i] as u8 {
                return false;
            }
            i += 1;
        }
        true
    }

    /// Checks that a task taking `item`s can pop queue `queue` of `S` (`""`: the only queue).
    pub const fn queue_check<S: State>(queue: &str, item: &[Scalar]) -> QueueCheck {
        let fields = S::FIELDS;
        let mut found: Option<usize> = None;
        let mut queues = 0;
        let mut i = 0;
        while i < fields.len() {
            if is_queue(&fields[i]) {
                queues += 1;
                if queue.is_empty() || same(fields[i].name, queue) {
                    found = Some(i);
                }
            }
            i += 1;
        }
        if queues == 0 {
            return QueueCheck::NoQueue;
        }
        if queue.is_empty() && queues > 1 {
            return QueueCheck::Several;
        }
        match found {
            None => QueueCheck::Unknown,
            Some(i) if same_parts(fields[i].parts, item) => QueueCheck::Ok,
            Some(i) => match fields[i].parts {
                [one] => QueueCheck::Mismatch(Some(*one)),
                _ => QueueCheck::Mismatch(None),
            },
        }
    }

    /// Checks that `range` names a field an idle hook can sweep: a u32/u64 scalar or an array.
    pub const fn range_check<S: State>(range: &str) -> bool {
        let fields = S::FIELDS;
        let mut i = 0;
        while i < fields.len() {
            if same(fields[i].name, range) {
                return match fields[i].kind {
                    FieldKind::Scalar => matches!(fields[i].parts, [Scalar::U32 | Scalar::U64]),
                    FieldKind::Slice | FieldKind::Atomics => true,
                    FieldKind::Queue | FieldKind::PriorityQueue(_) => false,
                };
            }
            i += 1;
        }
        false
    }
}

/// One field's host data, as an executor sees it.
pub enum FieldRef<'s> {
    Slice { bytes: &'s [u8], len: usize },
    Atomics(&'s dyn AtomicHost),
    Queue(&'s dyn QueueHost),
    Priority(&'s dyn PriorityHost),
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
    /// The address of the elements: the CPU executor finds a field's combine copies by it.
    fn cells_addr(&self) -> usize;
    /// Adds an element's bits to element `i` (`AtomicElem::add_bits`).
    fn add_bits(&self, i: usize, bits: u64);
}

/// Host access to a `Queue` field.
pub trait QueueHost: Sync {
    fn capacity(&self) -> u64;
    /// A linear queue (each slot filled once) rather than a ring.
    fn linear(&self) -> bool;
    fn elem_size(&self) -> usize;
    fn bind(&self, q: &CpuQueue) -> bool;
    /// Binds the queue's pushes to a run spread over several simulated devices.
    fn bind_routed(&self, r: &CpuRoute) -> bool;
    fn unbind(&self);
}

/// Host access to a `PriorityQueue` field.
pub trait PriorityHost: Sync {
    /// Alive items each ring holds.
    fn capacity(&self) -> u64;
    /// Bytes of an item (the near ring's slots).
    fn elem_size(&self) -> usize;
    fn key(&self) -> Scalar;
    /// The delta's bits, and whether it is a valid delta.
    fn delta(&self) -> (u64, bool);
    /// The first threshold, encoded.
    fn start_threshold(&self) -> u64;
    /// Near items an advance may leave in flight (`PriorityQueue::advance_slack`).
    fn slack(&self) -> u64;
    fn bind(&self, p: &CpuPriority) -> bool;
    fn unbind(&self);
}

impl<T: QueueItem, K: PriorityKey> StateField for PriorityQueue<'_, T, K> {
    const KIND: FieldKind = FieldKind::PriorityQueue(K::SCALAR);
    const PARTS: &'static [Scalar] = T::PARTS;
    fn field_ref(&self) -> FieldRef<'_> {
        FieldRef::Priority(self)
    }
}

impl<T: QueueItem, K: PriorityKey> PriorityHost for PriorityQueue<'_, T, K> {
    fn capacity(&self) -> u64 {
        PriorityQueue::capacity(self)
    }
    fn elem_size(&self) -> usize {
        T::item_size()
    }
    fn key(&self) -> Scalar {
        K::SCALAR
    }
    fn delta(&self) -> (u64, bool) {
        let d = self.delta_value();
        (d.to_bits(), d.valid_delta())
    }
    fn start_threshold(&self) -> u64 {
        PriorityQueue::start_threshold(self)
    }
    fn slack(&self) -> u64 {
        self.slack_value()
    }
    fn bind(&self, p: &CpuPriority) -> bool {
        PriorityQueue::bind(self, p)
    }
    fn unbind(&self) {
        PriorityQueue::unbind(self)
    }
}

/// Implemented by every type that can be a field of an `#[atos::state]` struct.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a field of an #[atos::state] struct",
    note = "state fields are `Slice<'a, T>` (read-only array), `Atomics<'a, T>` (atomically updated array), `Queue<'a, T>` (task queue), `PriorityQueue<'a, T, K>` (task queue served by key) or a scalar (u32, i32, u64, i64, usize, f32, f64, bool)"
)]
pub trait StateField {
    const KIND: FieldKind;
    /// The element's scalars (one, or a queue's tuple item parts).
    const PARTS: &'static [Scalar];
    fn field_ref(&self) -> FieldRef<'_>;
}

impl<T: Elem> StateField for Slice<'_, T> {
    const KIND: FieldKind = FieldKind::Slice;
    const PARTS: &'static [Scalar] = &[T::SCALAR];
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
    const PARTS: &'static [Scalar] = &[T::SCALAR];
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
    fn cells_addr(&self) -> usize {
        self.cells().as_ptr() as usize
    }
    fn add_bits(&self, i: usize, bits: u64) {
        T::add_bits(&self.cells()[i], bits)
    }
}

impl<T: QueueItem> StateField for Queue<'_, T> {
    const KIND: FieldKind = FieldKind::Queue;
    const PARTS: &'static [Scalar] = T::PARTS;
    fn field_ref(&self) -> FieldRef<'_> {
        FieldRef::Queue(self)
    }
}

impl<T: QueueItem> QueueHost for Queue<'_, T> {
    fn capacity(&self) -> u64 {
        Queue::capacity(self)
    }
    fn linear(&self) -> bool {
        Queue::is_linear(self)
    }
    fn elem_size(&self) -> usize {
        T::item_size()
    }
    fn bind(&self, q: &CpuQueue) -> bool {
        Queue::bind(self, q)
    }
    fn bind_routed(&self, r: &CpuRoute) -> bool {
        Queue::bind_routed(self, r)
    }
    fn unbind(&self) {
        Queue::unbind(self)
    }
}

macro_rules! scalar_field {
    ($($t:ty),*) => {$(
        impl StateField for $t {
            const KIND: FieldKind = FieldKind::Scalar;
            const PARTS: &'static [Scalar] = &[<$t as Elem>::SCALAR];
            fn field_ref(&self) -> FieldRef<'_> {
                FieldRef::Scalar(Elem::to_bits(*self))
            }
        }
    )*};
}
scalar_field!(u8, u16, u32, i32, u64, i64, usize, f32, f64, bool);
