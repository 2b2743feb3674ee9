//! The CPU executor's twin of a program spread over several devices (`mesh.cuh`): per simulated
//! device a local ring and a receive ring of every queue (and, aggregated, an outbox per peer
//! with its forwards), pushes routed to the device that owns the item, and termination summed
//! over every ring of every device. Memory is one on the CPU, so `Atomics` placement moves no
//! element here; routing and the rings are those of the GPU, and so are the combine copies of
//! the fields a program `accumulate`s into (each device's adds to other devices' elements,
//! delivered by drains after batches, by idle sweeps and at the end), the filter copies of the
//! fields only `lower` or only `raise` moves, and the count of each device's accesses to other
//! devices' elements (`SpreadFields`).

use std::cell::Cell;
use std::sync::Arc;
use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed, Release};
use std::sync::atomic::{AtomicU64, AtomicUsize};
use std::time::Instant;

use atos_codegen::layout::queue_counters as qc;

use atos_codegen::Scalar;

use super::queue::{CpuQueue, InlineRun, Line};
use crate::aggregation::Aggregation;
use crate::elem::{ItemBits, part_bits};
use crate::placement::{Placement, route_key};
use crate::state::AtomicHost;

thread_local! {
    /// The simulated device whose rings the current thread serves (its pushes are local there).
    static DEVICE: Cell<usize> = const { Cell::new(0) };
}

/// Makes the current thread run as device `d` (its tasks' pushes route from there).
pub(crate) fn set_device(d: usize) {
    DEVICE.with(|c| c.set(d));
}

/// The simulated device the current thread runs as.
pub(crate) fn device() -> usize {
    DEVICE.with(Cell::get)
}

/// The combine copies of a spread run (mesh.cuh, "Combined adds"): per field the program
/// accumulates into, every simulated device's copy of every element, as element bits (zero:
/// nothing to deliver; a copy starts at +0 and only takes adds, so it never holds -0).
pub struct Combines {
    /// Per field: the address of its elements (`AtomicHost::cells_addr`), how `accumulate`
    /// finds it, and per device its copy.
    fields: Vec<(usize, Vec<Vec<AtomicU64>>)>,
    placement: Arc<Placement>,
    /// Per device: elements it delivered (the `delivered` stat).
    delivered: Vec<AtomicU64>,
    /// Positions drained per task after each batch (`drain` in mesh.cuh's `DeviceCounters`).
    drain: u64,
    /// Per device: positions handed out to batches' drains (`drain_cursor`).
    drain_cursor: Vec<AtomicU64>,
    /// Where deliveries count as accesses to other devices' elements.
    spread: Arc<SpreadFields>,
}

impl Combines {
    /// Zeroed copies of `fields` (each `(cells address, length)`) for every device.
    pub(crate) fn new(
        fields: &[(usize, usize)],
        placement: Arc<Placement>,
        drain: u32,
        spread: Arc<SpreadFields>,
    ) -> Combines {
        let devices = placement.devices();
        Combines {
            fields: fields
                .iter()
                .map(|&(at, len)| {
                    let copy = || (0..len).map(|_| AtomicU64::new(0)).collect();
                    (at, (0..devices).map(|_| copy()).collect())
                })
                .collect(),
            delivered: (0..devices).map(|_| AtomicU64::new(0)).collect(),
            drain: u64::from(drain),
            drain_cursor: (0..devices).map(|_| AtomicU64::new(0)).collect(),
            placement,
            spread,
        }
    }

    /// `drain_combined` of mesh.cuh: after a batch of `tasks` tasks on device `d`, before it
    /// counts done, delivers the next `drain` positions per task of `d`'s copies (at most all
    /// of them), going round them.
    pub(crate) fn drain(&self, homes: &[&dyn AtomicHost], d: usize, tasks: u64) {
        let len = self.len();
        let n = tasks.saturating_mul(self.drain).min(len);
        if n == 0 {
            return;
        }
        let lo = self.drain_cursor[d].fetch_add(n, Relaxed) % len;
        for i in 0..n {
            let p = lo + i;
            self.deliver(homes, d, if p < len { p } else { p - len });
        }
    }

    /// Elements device `d` delivered.
    pub(crate) fn delivered(&self, d: usize) -> u64 {
        self.delivered[d].load(Acquire)
    }

    /// Positions of one device's copies, end to end (`deliver_len` in mesh.cuh).
    pub(crate) fn len(&self) -> u64 {
        self.fields.iter().map(|(_, c)| c[0].len() as u64).sum()
    }

    /// `deliver_combined` of mesh.cuh: moves position `p` of device `d`'s copies to its
    /// element in `homes` (the fields, in the order given to `new`). Whether it moved anything.
    pub(crate) fn deliver(&self, homes: &[&dyn AtomicHost], d: usize, mut p: u64) -> bool {
        for ((at, copies), home) in self.fields.iter().zip(homes) {
            let copy = &copies[d];
            if p < copy.len() as u64 {
                let cell = &copy[p as usize];
                if cell.load(Relaxed) == 0 {
                    return false;
                }
                let bits = cell.swap(0, AcqRel);
                if bits == 0 {
                    return false;
                }
                // `deliver_combined`: one add at the element's home, an access like any.
                self.spread.count(*at, p as usize, d);
                home.add_bits(p as usize, bits);
                self.delivered[d].fetch_add(1, Relaxed);
                return true;
            }
            p -= copy.len() as u64;
        }
        false
    }

    /// `deliver_rest` of mesh.cuh: everything every device's copies still hold.
    pub(crate) fn deliver_all(&self, homes: &[&dyn AtomicHost]) {
        for d in 0..self.placement.devices() {
            for p in 0..self.len() {
                self.deliver(homes, d, p);
            }
        }
    }
}

/// `atomic_accumulate` of mesh.cuh for a field whose elements start at `at`: when the current
/// thread works for a spread run that keeps a combine copy of the field and element `i` is
/// another device's, `add` adds into this device's copy of it, and the answer is true; else
/// false, and the caller adds to the element.
pub(crate) fn combine(at: usize, i: usize, add: impl FnOnce(&AtomicU64)) -> bool {
    spread_run(|run| {
        let Some(SpreadRun {
            combines: Some(combines),
            ..
        }) = run
        else {
            return false;
        };
        let Some((_, copies)) = combines.fields.iter().find(|(a, _)| *a == at) else {
            return false;
        };
        let me = DEVICE.with(Cell::get);
        if combines.placement.owner(i as u64) == me {
            return false;
        }
        add(&copies[me][i]);
        true
    })
}

/// The spread run a thread works for: where its `Atomics` fields live (and their filter
/// copies), and its combine copies if it combines. Every `Atomics` operation of a spread run
/// asks it, through one thread-local.
pub(crate) struct SpreadRun {
    pub fields: Arc<SpreadFields>,
    pub combines: Option<Arc<Combines>>,
}

thread_local! {
    static SPREAD: std::cell::RefCell<Option<SpreadRun>> = const { std::cell::RefCell::new(None) };
}

/// Threads of this process working for a spread run: while none is, an `Atomics` operation
/// reads this one shared word and not the thread-local (this change's first version read a
/// thread-local on every operation, through a call, and the CPU executor's one-thread BFS on
/// kron:17 took about 1.5x as long; measured while writing it, not kept in docs/results).
static SPREAD_THREADS: Alone = Alone(AtomicUsize::new(0));

/// A word on a cache line of its own: it is read on every `Atomics` operation, so it is kept
/// off any line something writes (a precaution; not measured apart).
#[repr(align(128))]
struct Alone(AtomicUsize);

/// Whether any thread works for a spread run: the one check an `Atomics` operation makes
/// outside them.
#[inline]
pub(crate) fn spread_active() -> bool {
    SPREAD_THREADS.0.load(Relaxed) != 0
}

/// The current thread's spread run, if any.
#[inline]
fn spread_run<R>(f: impl FnOnce(Option<&SpreadRun>) -> R) -> R {
    if !spread_active() {
        return f(None);
    }
    SPREAD.with(|c| f(c.borrow().as_ref()))
}

/// The `Atomics` fields of a spread run as its GPUs hold them (`Spread` in mesh.cuh): a field
/// of the placement's length is spread (element `i` lives on its owner), any other lives whole
/// on device 0; a field the plan gives a filter copy (`Plan::filters`) has one per device,
/// taken from the field at the run's start. Memory is one on the CPU, so the elements stay
/// where they are; what this twin adds is the GPU's accounting and its filter: every load,
/// store and atomic on another device's element counts in that device's `remote_ops`, as
/// `count_access` counts it, and `lower` / `raise` on another device's element ask the copy
/// first, as `atomic_lower` / `atomic_raise` do, so CI runs the filter's exactness argument.
pub struct SpreadFields {
    fields: Vec<SpreadField>,
    placement: Arc<Placement>,
    /// Per device: its accesses to other devices' elements.
    remote_ops: Vec<AtomicU64>,
}

struct SpreadField {
    /// `AtomicHost::cells_addr`: how an `Atomics` view finds its field.
    at: usize,
    spread: bool,
    /// Per device, its copy of every element (element bits), when the field has one.
    filter: Option<Vec<Vec<AtomicU64>>>,
}

/// One field of a run: its elements' address, length, whether the plan gives it a filter
/// copy, and its elements' bits at the run's start (read only when it has one).
pub(crate) struct FieldAt<'a> {
    pub at: usize,
    pub len: usize,
    pub filter: bool,
    pub host: &'a dyn AtomicHost,
}

impl SpreadFields {
    pub(crate) fn new(fields: &[FieldAt<'_>], placement: Arc<Placement>) -> SpreadFields {
        let devices = placement.devices();
        let fields = fields
            .iter()
            .map(|f| {
                let spread = f.len as u64 == placement.len() && devices > 1;
                let filter = (spread && f.filter).then(|| {
                    let size = f.host.elem_size();
                    let bits: Vec<u64> = f
                        .host
                        .read_bytes()
                        .chunks_exact(size)
                        .map(|b| {
                            let mut w = [0u8; 8];
                            w[..size].copy_from_slice(b);
                            u64::from_le_bytes(w)
                        })
                        .collect();
                    (0..devices)
                        .map(|_| bits.iter().map(|&b| AtomicU64::new(b)).collect())
                        .collect()
                });
                SpreadField {
                    at: f.at,
                    spread,
                    filter,
                }
            })
            .collect();
        SpreadFields {
            fields,
            remote_ops: (0..devices).map(|_| AtomicU64::new(0)).collect(),
            placement,
        }
    }

    /// `offer_lower` / `offer_raise` of mesh.cuh for device `d`: whether an offer of the
    /// value bits `v` to element `i` of `offer`'s field goes (docs/runtime.md, "Offers"). Sent
    /// unless `d`'s copy of the element is at `v` or past it; when sent, the copy takes `v`. A
    /// field without copies (not spread) and an index past the field always send.
    fn offer(&self, offer: &Offer, i: u64, v: u64, d: usize) -> bool {
        let Some(copies) = self
            .fields
            .iter()
            .find(|f| f.at == offer.at)
            .and_then(|f| f.filter.as_ref())
        else {
            return true;
        };
        let Some(copy) = usize::try_from(i).ok().and_then(|i| copies[d].get(i)) else {
            return true;
        };
        if at_or_past(offer.value, copy.load(Acquire), v, offer.down) {
            return false;
        }
        copy.store(v, Release);
        true
    }

    /// Device `d`'s accesses to other devices' elements.
    pub(crate) fn remote_ops(&self, d: usize) -> u64 {
        self.remote_ops[d].load(Acquire)
    }

    /// Where element `i` of `f` lives (`Spread::home_of`).
    fn home(&self, f: &SpreadField, i: usize) -> usize {
        if f.spread {
            self.placement.owner(i as u64)
        } else {
            0
        }
    }

    /// `count_access` of mesh.cuh: an access by device `d` to element `i` of the field at
    /// `at`, counted when the element lives on another device.
    pub(crate) fn count(&self, at: usize, i: usize, d: usize) {
        if let Some(f) = self.fields.iter().find(|f| f.at == at)
            && self.home(f, i) != d
        {
            self.remote_ops[d].fetch_add(1, Relaxed);
        }
    }
}

/// Whether `x` is at `v` or past it in the direction the field moves (`down`: at or below), both
/// element bits of scalar `s`; false when either is a NaN (as `seen <= v` is on the GPU).
fn at_or_past(s: Scalar, x: u64, v: u64, down: bool) -> bool {
    use std::cmp::Ordering::{Equal, Greater, Less};
    // Unsigned (and bool) bits are zero-extended, so they compare as they are.
    let order = match s {
        Scalar::Bool | Scalar::U8 | Scalar::U16 | Scalar::U32 | Scalar::U64 => Some(x.cmp(&v)),
        Scalar::I32 => Some((x as u32 as i32).cmp(&(v as u32 as i32))),
        Scalar::I64 => Some((x as i64).cmp(&(v as i64))),
        Scalar::F32 => f32::from_bits(x as u32).partial_cmp(&f32::from_bits(v as u32)),
        Scalar::F64 => f64::from_bits(x).partial_cmp(&f64::from_bits(v)),
    };
    matches!(order, Some(o) if o == Equal || o == if down { Less } else { Greater })
}

/// A queue whose pushes to another device are offers (`Plan::offers`): the guarded field (its
/// `AtomicHost::cells_addr`), where the value is in an item (byte offset, scalar) and which
/// way the field moves.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Offer {
    pub at: usize,
    pub offset: u32,
    pub value: Scalar,
    pub down: bool,
}

/// Makes the current thread's `Atomics` accesses those of `run` until the guard is dropped
/// (also when the thread unwinds from a task's panic).
pub(crate) fn enter_spread(run: SpreadRun) -> SpreadGuard {
    SPREAD.with(|c| *c.borrow_mut() = Some(run));
    SPREAD_THREADS.0.fetch_add(1, Relaxed);
    SpreadGuard(std::marker::PhantomData)
}

/// See [`enter_spread`]. Not `Send`: it undoes the thread-locals of the thread that made it.
pub(crate) struct SpreadGuard(std::marker::PhantomData<*const ()>);

impl Drop for SpreadGuard {
    fn drop(&mut self) {
        SPREAD_THREADS.0.fetch_sub(1, Relaxed);
        SPREAD.with(|c| *c.borrow_mut() = None);
    }
}

/// An access of the current thread to element `i` of the field at `at` (any `Atomics`
/// operation but `lower`, `raise` and a combined `accumulate`).
#[cold]
#[inline(never)]
pub(crate) fn count_access(at: usize, i: usize) {
    spread_run(|run| {
        if let Some(run) = run {
            run.fields.count(at, i, DEVICE.with(Cell::get));
        }
    });
}

/// `lower` / `raise` of element `i` of the field at `at` from the current thread:
/// `plain()` (counted as an access) where the element is this device's or the field has no
/// filter copy, else `filtered(copy, count)` with this device's copy of the element, which
/// calls `count()` when it goes to the element.
#[inline]
pub(crate) fn filtered<R>(
    at: usize,
    i: usize,
    plain: impl FnOnce() -> R,
    filtered: impl FnOnce(&AtomicU64, &dyn Fn()) -> R,
) -> R {
    spread_run(|run| {
        let Some(s) = run.map(|r| &*r.fields) else {
            return plain();
        };
        let me = DEVICE.with(Cell::get);
        let Some(f) = s.fields.iter().find(|f| f.at == at) else {
            return plain();
        };
        let home = s.home(f, i);
        let count = || {
            if home != me {
                s.remote_ops[me].fetch_add(1, Relaxed);
            }
        };
        match &f.filter {
            Some(copies) if home != me => filtered(&copies[me][i], &count),
            _ => {
                count();
                plain()
            }
        }
    })
}

/// One queue field of a spread run: its rings on every simulated device.
pub struct CpuRoute {
    /// Per device: the ring its own pushes go to.
    pub local: Vec<CpuQueue>,
    /// Per device: the ring peers push its items to.
    pub recv: Vec<CpuQueue>,
    /// Aggregated runs: per device, its outbox to each peer (`None` for itself, and for every
    /// peer of an eager run).
    pub outbox: Vec<Vec<Option<CpuQueue>>>,
    aggregation: Aggregation,
    placement: Arc<Placement>,
    first: Scalar,
    /// Per device: items its tasks pushed to a peer.
    sent: Vec<Line>,
    /// The clock of the outboxes' `stamp` words.
    epoch: Instant,
    /// The queue's inline task (persistent runs): an item the pushing device owns runs at once,
    /// counted in that device's local ring.
    inline: std::sync::OnceLock<InlineRun>,
    /// Persistent runs of an inline task whose pushes are offers: the pushing device's filter
    /// copy decides whether one to another device goes (`SpreadFields::offer`).
    offer: std::sync::OnceLock<Offer>,
}

impl CpuRoute {
    /// `ring()` makes one empty ring of the queue.
    pub(crate) fn new(
        local: Vec<CpuQueue>,
        ring: &dyn Fn() -> CpuQueue,
        aggregation: Aggregation,
        placement: Arc<Placement>,
        first: Scalar,
    ) -> CpuRoute {
        let devices = local.len();
        let sent = (0..devices).map(|_| Line::default()).collect();
        let outbox = (0..devices)
            .map(|d| {
                (0..devices)
                    .map(|p| (p != d && aggregation.is_batched()).then(ring))
                    .collect()
            })
            .collect();
        CpuRoute {
            local,
            recv: (0..devices).map(|_| ring()).collect(),
            outbox,
            aggregation,
            placement,
            first,
            sent,
            epoch: Instant::now(),
            inline: std::sync::OnceLock::new(),
            offer: std::sync::OnceLock::new(),
        }
    }

    /// A task body's push: to this device's local ring if it owns the item, else to the
    /// owner's receive ring (eager) or to this device's outbox for the owner (aggregated).
    pub fn push(&self, item: ItemBits) {
        let me = DEVICE.with(Cell::get);
        let owner = self.placement.owner(route_key(item, self.first));
        if owner == me {
            match self.inline.get() {
                Some(run) => run.run(&self.local[me], item),
                None => self.local[owner].push(item),
            }
            return;
        }
        if let Some(offer) = self.offer.get() {
            let key = route_key(item, self.first);
            let value = part_bits(item, offer.offset, offer.value);
            if !spread_run(|run| run.is_none_or(|r| r.fields.offer(offer, key, value, me))) {
                return;
            }
        }
        match &self.outbox[me][owner] {
            Some(outbox) => outbox.push(item),
            None => self.recv[owner].push(item),
        }
        self.sent[me].0.fetch_add(1, AcqRel);
    }

    /// Makes pushes of items the pushing device owns run `run` at once.
    pub(crate) fn set_inline(&self, run: InlineRun) {
        let _ = self.inline.set(run);
    }

    /// Makes pushes to another device offers, filtered as `offer` says.
    pub(crate) fn set_offer(&self, offer: Offer) {
        let _ = self.offer.set(offer);
    }

    /// `ForwardServer` of mesh.cuh for device `d`: forwards each of its outboxes that holds
    /// `batch` items, or whose last forward is `wait` old, or any that holds items when the
    /// aggregation forwards when idle and `others` (whether the pass served work before) is
    /// false, to the peer's receive ring, up to `most` items each. The items are pushed to
    /// the peer before the outbox counts them done. Whether any moved.
    pub(crate) fn forward(
        &self,
        d: usize,
        most: u64,
        batch: &mut Vec<ItemBits>,
        others: bool,
    ) -> bool {
        let Aggregation::Batched {
            batch: size,
            wait,
            idle,
        } = self.aggregation
        else {
            return false;
        };
        let at_once = idle && !others;
        let mut moved = false;
        for (p, outbox) in self.outbox[d].iter().enumerate() {
            let Some(outbox) = outbox else { continue };
            let avail = outbox.c(qc::AVAIL).load(Acquire) as i64;
            if avail <= 0 {
                continue;
            }
            // As on the GPU: a stamp at or after `now` has not waited; an outbox never
            // forwarded (stamp 0; the clock starts at 1) has.
            let now = u64::try_from(self.epoch.elapsed().as_nanos()).unwrap_or(u64::MAX - 1) + 1;
            let stamp = outbox.c(qc::STAMP).load(Relaxed);
            let waited = now > stamp && u128::from(now - stamp) >= wait.as_nanos();
            if !at_once && avail < i64::from(size) && !waited {
                continue;
            }
            let n = outbox.claim(most, batch);
            if n == 0 {
                continue;
            }
            outbox.c(qc::STAMP).store(now, Relaxed);
            for &item in batch.iter() {
                self.recv[p].push(item);
            }
            outbox.complete(n);
            moved = true;
        }
        moved
    }

    /// Every ring of device `d`, local and receive first.
    pub(crate) fn rings_of(&self, d: usize) -> impl Iterator<Item = &CpuQueue> {
        [&self.local[d], &self.recv[d]]
            .into_iter()
            .chain(self.outbox[d].iter().flatten())
    }

    /// Items device `d`'s tasks pushed to peers.
    pub fn sent(&self, d: usize) -> u64 {
        self.sent[d].0.load(Acquire)
    }
}

/// The simulated devices thread `t` of `threads` serves: one each when there are at least as
/// many threads as devices (several threads per device), else every `threads`-th device.
pub(crate) fn devices_of(t: usize, threads: usize, devices: usize) -> Vec<usize> {
    if threads >= devices {
        vec![t % devices]
    } else {
        (t..devices).step_by(threads).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_device_has_a_thread() {
        for threads in 1..6 {
            for devices in 1..6 {
                let mut served = vec![0; devices];
                for t in 0..threads {
                    for d in devices_of(t, threads, devices) {
                        served[d] += 1;
                    }
                }
                assert!(served.iter().all(|&s| s > 0), "{threads} {devices}");
            }
        }
    }

    /// `at_or_past` compares element bits as `offer_lower` / `offer_raise` compare values on
    /// the GPU: signed parts by their own width, floats as floats (-0 equal to +0, a NaN on
    /// either side never at or past, so the offer is sent).
    #[test]
    fn offers_compare_bits_as_their_type() {
        let i32b = |v: i32| u64::from(v as u32);
        let f32b = |v: f32| u64::from(v.to_bits());
        // Down: at or below.
        assert!(at_or_past(Scalar::U32, 3, 5, true));
        assert!(at_or_past(Scalar::U32, 5, 5, true));
        assert!(!at_or_past(Scalar::U32, 6, 5, true));
        assert!(at_or_past(Scalar::I32, i32b(-4), i32b(2), true));
        assert!(!at_or_past(Scalar::I32, i32b(2), i32b(-4), true));
        assert!(at_or_past(Scalar::I64, (-4i64) as u64, 2, true));
        assert!(at_or_past(Scalar::F32, f32b(-1.5), f32b(0.5), true));
        assert!(at_or_past(Scalar::F32, f32b(-0.0), f32b(0.0), true));
        assert!(!at_or_past(Scalar::F32, f32b(f32::NAN), f32b(1.0), true));
        assert!(!at_or_past(Scalar::F32, f32b(1.0), f32b(f32::NAN), true));
        assert!(at_or_past(
            Scalar::F64,
            (-2.0f64).to_bits(),
            1.0f64.to_bits(),
            true
        ));
        assert!(!at_or_past(
            Scalar::F64,
            f64::NAN.to_bits(),
            1.0f64.to_bits(),
            true
        ));
        // Up: at or above.
        assert!(at_or_past(Scalar::U16, 7, 5, false));
        assert!(!at_or_past(Scalar::U16, 4, 5, false));
        assert!(at_or_past(Scalar::I32, i32b(2), i32b(-4), false));
        assert!(!at_or_past(Scalar::I32, i32b(-4), i32b(2), false));
        assert!(!at_or_past(Scalar::F32, f32b(f32::NAN), f32b(1.0), false));
    }
}
