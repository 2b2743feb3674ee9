//! The CPU executor's twin of a program spread over several devices (`mesh.cuh`): per simulated
//! device a local ring and a receive ring of every queue (and, aggregated, an outbox per peer
//! with its forwards), pushes routed to the device that owns the item, and termination summed
//! over every ring of every device. Memory is one on the CPU, so `Atomics` placement changes
//! nothing here; routing and the rings are those of the GPU, and so are the combine copies of
//! the fields a program `accumulate`s into (each device's adds to other devices' elements,
//! delivered by drains after batches, by idle sweeps and at the end).

use std::cell::Cell;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed};
use std::time::Instant;

use atos_codegen::layout::queue_counters as qc;

use atos_codegen::Scalar;

use super::queue::{CpuQueue, InlineRun, Line};
use crate::aggregation::Aggregation;
use crate::elem::ItemBits;
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

thread_local! {
    /// The combine copies of the spread run the current thread works for, if it accumulates.
    static COMBINES: std::cell::RefCell<Option<Arc<Combines>>> = const { std::cell::RefCell::new(None) };
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
}

impl Combines {
    /// Zeroed copies of `fields` (each `(cells address, length)`) for every device.
    pub(crate) fn new(
        fields: &[(usize, usize)],
        placement: Arc<Placement>,
        drain: u32,
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
        for ((_, copies), home) in self.fields.iter().zip(homes) {
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

/// Makes the current thread's `accumulate`s use `combines` (`None`: add at once).
pub(crate) fn set_combines(combines: Option<Arc<Combines>>) {
    COMBINES.with(|c| *c.borrow_mut() = combines);
}

/// `atomic_accumulate` of mesh.cuh for a field whose elements start at `at`: when the current
/// thread works for a spread run that keeps a combine copy of the field and element `i` is
/// another device's, `add` adds into this device's copy of it, and the answer is true; else
/// false, and the caller adds to the element.
pub(crate) fn combine(at: usize, i: usize, add: impl FnOnce(&AtomicU64)) -> bool {
    COMBINES.with(|c| {
        let c = c.borrow();
        let Some(combines) = c.as_ref() else {
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

    /// `ForwardServer` of mesh.cuh for device `d`: forwards each of its outboxes that holds
    /// `batch` items, or whose last forward is `wait` old, to the peer's receive ring, up to
    /// `most` items each. The items are pushed to the peer before the outbox counts them done.
    /// Whether any moved.
    pub(crate) fn forward(&self, d: usize, most: u64, batch: &mut Vec<ItemBits>) -> bool {
        let Aggregation::Batched { batch: size, wait } = self.aggregation else {
            return false;
        };
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
            if avail < i64::from(size) && !waited {
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
}
