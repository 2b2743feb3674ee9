//! The field types of an `#[atos::state]` struct: `Slice`, `Atomics`, `Queue`.
//!
//! On the CPU they are views of host memory; the GPU executor copies them to the device
//! before a run and copies `Atomics` back after it, so one state value serves both executors.

use std::cmp::Ordering::{Equal, Greater, Less};
use std::marker::PhantomData;
use std::ops::Range;
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

use atos_codegen::keys;
use atos_codegen::layout::EVERY_KEY;

use crate::cpu::mesh::CpuRoute;
use crate::cpu::queue::{CpuPriority, CpuQueue};
use crate::elem::{AtomicBits, AtomicElem, AtomicNum, Elem, IndexArg, PriorityKey, QueueItem};

/// A read-only array, shared by every task.
#[derive(Clone, Copy, Debug)]
pub struct Slice<'a, T> {
    data: &'a [T],
}

impl<'a, T: Elem> Slice<'a, T> {
    pub fn new(data: &'a [T]) -> Self {
        Slice { data }
    }

    #[allow(clippy::len_without_is_empty)]
    pub fn len(&self) -> usize {
        self.data.len()
    }

    pub fn as_slice(&self) -> &'a [T] {
        self.data
    }
}

impl<'a, T: Elem> From<&'a [T]> for Slice<'a, T> {
    fn from(data: &'a [T]) -> Self {
        Slice { data }
    }
}

impl<'a, T: Elem> From<&'a Vec<T>> for Slice<'a, T> {
    fn from(data: &'a Vec<T>) -> Self {
        Slice { data }
    }
}

macro_rules! slice_index {
    ($($i:ty),*) => {$(
        impl<T: Elem> std::ops::Index<$i> for Slice<'_, T> {
            type Output = T;
            fn index(&self, i: $i) -> &T {
                &self.data[IndexArg::to_usize(i)]
            }
        }
    )*};
}
slice_index!(u32, u64, usize);

/// `lower` on one element: a load first (most offers find the element already as low), then
/// the atomic. `<=` is false for a NaN on either side: `fetch_min` decides those.
#[inline]
fn plain_lower<T: AtomicNum + PartialOrd>(c: &T::Cell, v: T) -> bool {
    if T::load(c) <= v {
        return false;
    }
    T::fetch_min(c, v) > v
}

/// `plain_lower` upside down.
#[inline]
fn plain_raise<T: AtomicNum + PartialOrd>(c: &T::Cell, v: T) -> bool {
    if T::load(c) >= v {
        return false;
    }
    T::fetch_max(c, v) < v
}

/// An array updated with atomic operations (relaxed, device-scope on the GPU).
pub struct Atomics<'a, T: AtomicElem> {
    cells: &'a [T::Cell],
}

impl<T: AtomicElem> Clone for Atomics<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: AtomicElem> Copy for Atomics<'_, T> {}

impl<'a, T: AtomicElem> Atomics<'a, T> {
    pub fn new(cells: &'a [T::Cell]) -> Self {
        Atomics { cells }
    }

    #[allow(clippy::len_without_is_empty)]
    pub fn len(&self) -> usize {
        self.cells.len()
    }

    pub fn cells(&self) -> &'a [T::Cell] {
        self.cells
    }

    /// Element `i`, counted as an access to another device's element when a run spread over
    /// simulated devices places it there (`cpu::mesh::count_access`).
    #[inline]
    fn cell(&self, i: usize) -> &T::Cell {
        let c = &self.cells[i];
        if crate::cpu::mesh::spread_active() {
            crate::cpu::mesh::count_access(self.cells.as_ptr() as usize, i);
        }
        c
    }

    pub fn load(&self, i: impl IndexArg) -> T {
        T::load(self.cell(i.to_usize()))
    }
    pub fn store(&self, i: impl IndexArg, v: T) {
        T::store(self.cell(i.to_usize()), v)
    }
    pub fn swap(&self, i: impl IndexArg, v: T) -> T {
        T::swap(self.cell(i.to_usize()), v)
    }
    /// Stores `new` if the element equals `current`; returns the previous value either way.
    pub fn compare_and_swap(&self, i: impl IndexArg, current: T, new: T) -> T {
        T::compare_and_swap(self.cell(i.to_usize()), current, new)
    }

    // The numeric and bitwise entries of `ops::ATOMICS`: bounded per method, so a call on an
    // element type without them is an error naming the operation (the traits'
    // `on_unimplemented`), at the call.
    pub fn fetch_add(&self, i: impl IndexArg, v: T) -> T
    where
        T: AtomicNum,
    {
        T::fetch_add(self.cell(i.to_usize()), v)
    }
    pub fn fetch_sub(&self, i: impl IndexArg, v: T) -> T
    where
        T: AtomicNum,
    {
        T::fetch_sub(self.cell(i.to_usize()), v)
    }
    /// Adds `v` to element `i`, with no answer and no order with anything else the task does.
    /// On one device it is `fetch_add` with the result dropped. Spread over several devices,
    /// an add to another device's element goes into this device's combine copy of the field
    /// and reaches the element later, summed with the device's other adds to it since the last
    /// delivery: after a batch of tasks (a drain), in an idle sweep (before the run can end), or
    /// when the run ends (docs/runtime.md, "Combined adds"). Floats may then round differently
    /// than one add at a time.
    pub fn accumulate(&self, i: impl IndexArg, v: T)
    where
        T: AtomicNum,
    {
        let i = i.to_usize();
        let c = &self.cells[i];
        let combined = crate::cpu::mesh::combine(self.cells.as_ptr() as usize, i, |copy| {
            // The copy holds element bits: add `v` to the value they encode (the element type's
            // own add, wrapping for integers).
            let _ = copy.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |old| {
                let sum = T::new_cell(T::from_bits(old));
                T::fetch_add(&sum, v);
                Some(T::load(&sum).to_bits())
            });
        });
        if !combined {
            if crate::cpu::mesh::spread_active() {
                crate::cpu::mesh::count_access(self.cells.as_ptr() as usize, i);
            }
            T::fetch_add(c, v);
        }
    }
    /// Float elements: the smaller of the two, ignoring a NaN operand (`f32::min`).
    pub fn fetch_min(&self, i: impl IndexArg, v: T) -> T
    where
        T: AtomicNum,
    {
        T::fetch_min(self.cell(i.to_usize()), v)
    }
    /// Float elements: the larger of the two, ignoring a NaN operand (`f32::max`).
    pub fn fetch_max(&self, i: impl IndexArg, v: T) -> T
    where
        T: AtomicNum,
    {
        T::fetch_max(self.cell(i.to_usize()), v)
    }
    /// `fetch_min(i, v) > v`: lowers the element to `v` if it is above, and says whether it
    /// was. Only the answer is asked for, so a load that shows the element at or below `v`
    /// answers without the atomic (on several GPUs, a copy of the element on the device may;
    /// see docs/runtime.md, "Filter copies"). The element and the answer are those of
    /// `fetch_min` in every case.
    pub fn lower(&self, i: impl IndexArg, v: T) -> bool
    where
        T: AtomicNum + PartialOrd,
    {
        let i = i.to_usize();
        let c = &self.cells[i];
        if crate::cpu::mesh::spread_active() {
            return self.one_way_spread(i, v, true);
        }
        plain_lower(c, v)
    }
    /// `fetch_max(i, v) < v`: raises the element to `v` if it is below, and says whether it
    /// was (`lower` upside down).
    pub fn raise(&self, i: impl IndexArg, v: T) -> bool
    where
        T: AtomicNum + PartialOrd,
    {
        let i = i.to_usize();
        let c = &self.cells[i];
        if crate::cpu::mesh::spread_active() {
            return self.one_way_spread(i, v, false);
        }
        plain_raise(c, v)
    }
    /// `lower` (`down`) or `raise` while a run spread over simulated devices is going on:
    /// another device's element with a filter copy asks the copy first, as `atomic_lower` and
    /// `atomic_raise` in mesh.cuh do (docs/runtime.md, "Filter copies"); any other element
    /// takes the plain operation, counted as an access.
    #[cold]
    #[inline(never)]
    fn one_way_spread(&self, i: usize, v: T, down: bool) -> bool
    where
        T: AtomicNum + PartialOrd,
    {
        let c = &self.cells[i];
        let plain = || {
            if down {
                plain_lower(c, v)
            } else {
                plain_raise(c, v)
            }
        };
        // The atomic toward `v`, and whether `x` is at `v` or past it that way (false for a
        // NaN on either side, which the atomic decides).
        let toward = |c: &T::Cell| {
            if down {
                T::fetch_min(c, v)
            } else {
                T::fetch_max(c, v)
            }
        };
        let at_or_past = |x: T, v: T| {
            let at = if down { Less } else { Greater };
            matches!(x.partial_cmp(&v), Some(o) if o == at || o == Equal)
        };
        crate::cpu::mesh::filtered(self.cells.as_ptr() as usize, i, plain, |copy, count| {
            let seen = T::from_bits(copy.load(Ordering::Acquire));
            if at_or_past(seen, v) {
                return false;
            }
            count();
            let old = toward(c);
            let now = T::new_cell(old);
            toward(&now);
            let now = T::load(&now);
            if !at_or_past(seen, now) {
                copy.store(now.to_bits(), Ordering::Release);
            }
            if down { old > v } else { old < v }
        })
    }
    pub fn fetch_and(&self, i: impl IndexArg, v: T) -> T
    where
        T: AtomicBits,
    {
        T::fetch_and(self.cell(i.to_usize()), v)
    }
    pub fn fetch_or(&self, i: impl IndexArg, v: T) -> T
    where
        T: AtomicBits,
    {
        T::fetch_or(self.cell(i.to_usize()), v)
    }
    pub fn fetch_xor(&self, i: impl IndexArg, v: T) -> T
    where
        T: AtomicBits,
    {
        T::fetch_xor(self.cell(i.to_usize()), v)
    }
}

/// Owned storage for an `Atomics` field.
pub struct AtomicArray<T: AtomicElem> {
    cells: Vec<T::Cell>,
}

impl<T: AtomicElem> AtomicArray<T> {
    pub fn filled(len: usize, value: T) -> Self {
        AtomicArray {
            cells: (0..len).map(|_| T::new_cell(value)).collect(),
        }
    }

    pub fn from_vec(values: Vec<T>) -> Self {
        AtomicArray {
            cells: values.into_iter().map(T::new_cell).collect(),
        }
    }

    pub fn view(&self) -> Atomics<'_, T> {
        Atomics::new(&self.cells)
    }

    pub fn to_vec(&self) -> Vec<T> {
        self.cells.iter().map(T::load).collect()
    }

    pub fn len(&self) -> usize {
        self.cells.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// Sets every element to `value` (between runs).
    pub fn fill(&self, value: T) {
        self.cells.iter().for_each(|c| T::store(c, value));
    }
}

/// Slots of the ring for a queue of `capacity`: capacity plus slack (half the capacity, at
/// least 1024), rounded up to a power of two. A push waits only when its slot's item of the
/// previous lap has not been counted as copied out (`read_end`, which advances only at an
/// instant when no copy-out is between its two counts); with slack that item was taken long
/// before, so pushes into a ring full of alive items do not all wait for such instants.
pub fn ring_slots(capacity: u64) -> u64 {
    let slack = (capacity / 2).max(1024);
    capacity.saturating_add(slack).next_power_of_two()
}

/// How a [`Queue`] uses its slots.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum QueueMode {
    /// Slots are reused: capacity bounds the items alive at once.
    #[default]
    Ring,
    /// Each slot is filled once: capacity bounds every push of the run.
    Linear,
}

impl QueueMode {
    pub fn name(self) -> &'static str {
        match self {
            QueueMode::Ring => "ring",
            QueueMode::Linear => "linear",
        }
    }
}

/// A task queue.
///
/// [`Queue::with_capacity`] makes a **ring**: its capacity bounds the tasks *alive at once*
/// (pushed and not yet taken by a worker), not all the tasks a run pushes. A push that would make
/// more than `capacity` items alive stops the run with [`crate::RunError::QueueOverflow`],
/// naming the queue and how many were alive; nothing is overwritten. The ring has more slots
/// than `capacity` (see [`ring_slots`]) so that pushes rarely wait for the
/// copy-out of a slot's previous item.
///
/// [`Queue::linear`] makes a **linear** queue (the original Atos queue): each slot is filled
/// once, so `capacity` must cover every push of the run, seeds included; workers reserve slots
/// ahead with one atomic add instead of claiming written ones, which is faster when thousands
/// of thread workers poll (see docs/runtime.md for where).
pub struct Queue<'a, T: QueueItem> {
    capacity: u64,
    linear: bool,
    /// What a running CPU executor bound: a [`CpuQueue`], or (a run spread over several
    /// simulated devices) a [`CpuRoute`], told apart by the low bit ([`ROUTED`]); 0 when no run
    /// holds the queue. One word, so that two runs binding at once cannot both succeed.
    binding: AtomicUsize,
    _item: PhantomData<&'a T>,
}

/// The tag of a [`CpuRoute`] in [`Queue`]'s binding word (both targets are 8-byte aligned).
const ROUTED: usize = 1;
const _: () =
    assert!(std::mem::align_of::<CpuQueue>() > ROUTED && std::mem::align_of::<CpuRoute>() > ROUTED);

impl<T: QueueItem> Queue<'_, T> {
    /// A ring holding up to `capacity` alive tasks.
    pub fn with_capacity(capacity: u64) -> Self {
        Queue {
            capacity,
            linear: false,
            binding: AtomicUsize::new(0),
            _item: PhantomData,
        }
    }

    /// A queue of `mode` for `capacity` (alive items for a ring, pushes for a linear queue).
    pub fn new(mode: QueueMode, capacity: u64) -> Self {
        match mode {
            QueueMode::Ring => Queue::with_capacity(capacity),
            QueueMode::Linear => Queue::linear(capacity),
        }
    }

    /// A linear queue for up to `total` pushes in a run, seeds included.
    pub fn linear(total: u64) -> Self {
        Queue {
            linear: true,
            ..Queue::with_capacity(total)
        }
    }

    pub fn capacity(&self) -> u64 {
        self.capacity
    }

    pub fn is_linear(&self) -> bool {
        self.linear
    }

    /// Enqueues a task. Called from task bodies; on the GPU this is a worker-aggregated push.
    pub fn push(&self, item: T) {
        let word = self.binding.load(Ordering::Acquire);
        assert!(
            word != 0,
            "Queue::push called outside a run: tasks push while an executor runs them; seed the first tasks through the executor instead"
        );
        let bits = item.to_item_bits();
        // SAFETY: the executor binds the queue before starting workers and unbinds it only
        // after every worker has joined, so the bound target is live for every push; the tag
        // says which type it is.
        if word & ROUTED == 0 {
            unsafe { &*(word as *const CpuQueue) }.push(bits)
        } else {
            unsafe { &*((word & !ROUTED) as *const CpuRoute) }.push(bits)
        }
    }

    /// Binds `word` if no run holds the queue; false if one does.
    fn bind_word(&self, word: usize) -> bool {
        self.binding
            .compare_exchange(0, word, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }

    pub(crate) fn bind_routed(&self, r: &CpuRoute) -> bool {
        self.bind_word(r as *const CpuRoute as usize | ROUTED)
    }

    pub(crate) fn bind(&self, q: &CpuQueue) -> bool {
        self.bind_word(q as *const CpuQueue as usize)
    }

    /// Called only by the run that bound the queue, after its workers joined.
    pub(crate) fn unbind(&self) {
        self.binding.store(0, Ordering::Release);
    }
}

/// A task queue served in key order: `push(item, key)` puts an item whose key is below the
/// current **threshold** in the *near* ring, which its task pops, one of the next band (below
/// the band's end, one **delta** above the threshold after the first advance; persistent runs)
/// in the *next* ring, and holds the others in
/// the *far* ring. When the band is done and nothing of the far ring is in flight, the
/// threshold advances: to the next band, which runs from the next ring at once, or, when that
/// is empty, past the smallest key still held. One pass over the far items then moves the
/// band after it to the next ring (or those now below the threshold to the near ring). Keys order the
/// work, never its result: a program must compute the same in any order, as it must for a
/// plain [`Queue`] under many workers.
///
/// - `capacity` bounds the alive items of each ring (all three are rings).
/// - `delta` defaults to 1 (`u32` keys) or 1.0 (`f32`); pick it from the input (the SSSP app
///   uses the mean edge weight). The threshold starts at `delta` (keys below it first) unless
///   [`start`](Self::start) says otherwise.
/// - [`unordered`](Self::unordered): every push goes near, in FIFO order (the far ring is never
///   used): the same program without priority, for comparison.
///
/// Items are at most 12 bytes and 3 parts: a far item holds the key beside them.
pub struct PriorityQueue<'a, T: QueueItem, K: PriorityKey> {
    capacity: u64,
    delta: K,
    start: Option<K>,
    unordered: bool,
    slack: u64,
    bound: AtomicPtr<CpuPriority>,
    _item: PhantomData<&'a T>,
}

impl<T: QueueItem, K: PriorityKey> PriorityQueue<'_, T, K> {
    /// Two rings of `capacity` alive items each, the default delta, the threshold at delta.
    pub fn with_capacity(capacity: u64) -> Self {
        PriorityQueue {
            capacity,
            delta: K::DEFAULT_DELTA,
            start: None,
            unordered: false,
            slack: 0,
            bound: AtomicPtr::new(std::ptr::null_mut()),
            _item: PhantomData,
        }
    }

    /// How far each advance moves the threshold (above zero; a run with another fails with
    /// [`crate::RunError::Priority`]).
    pub fn delta(mut self, delta: K) -> Self {
        self.delta = delta;
        self
    }

    /// The first threshold: keys below it run first.
    pub fn start(mut self, threshold: K) -> Self {
        self.start = Some(threshold);
        self
    }

    /// Persistent runs: the threshold may advance while at most `items` items of the band
    /// (near items and open next-ring items) are still in flight (pushed or opened, not yet
    /// done), instead of only once the band is quiescent (0, the default). The next band's items then overlap the current band's tail, which
    /// pays where the tail leaves most workers idle (a road graph's thin wavefront) and costs
    /// priority order where it does not. Windowed strategies advance between launches, when
    /// nothing is in flight, and ignore it.
    ///
    /// What slack gives up: with 0, a band is done before the next starts and an advance
    /// skips only key ranges no item holds. With slack, a task of the old band may push
    /// an item while the threshold moves past its key; the item still runs (no item is ever
    /// lost), but after items of higher keys. A program that computes the same in any order
    /// (SSSP, BFS) is unaffected; one that relies on bands draining in order (k-core's peeling)
    /// must keep 0.
    pub fn advance_slack(mut self, items: u64) -> Self {
        self.slack = items;
        self
    }

    pub fn slack_value(&self) -> u64 {
        self.slack
    }

    /// No priority: every push goes to the near ring (FIFO order).
    pub fn unordered(mut self) -> Self {
        self.unordered = true;
        self
    }

    pub fn capacity(&self) -> u64 {
        self.capacity
    }

    pub fn delta_value(&self) -> K {
        self.delta
    }

    /// The first threshold, encoded (`atos_codegen::keys`).
    pub fn start_threshold(&self) -> u64 {
        if self.unordered {
            return EVERY_KEY;
        }
        keys::encode(K::SCALAR, self.start.unwrap_or(self.delta).to_bits())
    }

    /// Enqueues a task with its key. Called from task bodies.
    pub fn push(&self, item: T, key: K) {
        let p = self.bound.load(Ordering::Acquire);
        assert!(
            !p.is_null(),
            "PriorityQueue::push called outside a run: tasks push while an executor runs them; seed the first tasks through the executor instead"
        );
        // SAFETY: bound before workers start, unbound after they all joined (as `Queue`).
        unsafe { &*p }.push(item.to_item_bits(), key.to_bits());
    }

    pub(crate) fn bind(&self, p: &CpuPriority) -> bool {
        self.bound
            .compare_exchange(
                std::ptr::null_mut(),
                p as *const CpuPriority as *mut CpuPriority,
                Ordering::AcqRel,
                Ordering::Acquire,
            )
            .is_ok()
    }

    pub(crate) fn unbind(&self) {
        self.bound.store(std::ptr::null_mut(), Ordering::Release);
    }
}

/// A sequentially consistent fence: in device code, the stores this task made before it and
/// the reads it (or a task it queues) makes after it are ordered as by `fence(SeqCst)` on the
/// CPU and `fence.sc.gpu` on the GPU. What it is for: two tasks that each store to one place
/// and then read the other's (the store-buffering pattern) cannot both miss the other's
/// store; the queues' release/acquire ordering alone allows that. `fence` is reserved in
/// device code for this.
pub fn fence() {
    std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
}

/// The range a worker's lanes cover together: on the GPU, lane `r` of a worker of `n`
/// threads visits `lo + r, lo + r + n, ...`; on the CPU a worker is one thread and visits all.
pub fn lanes<T>(range: Range<T>) -> Range<T> {
    range
}
