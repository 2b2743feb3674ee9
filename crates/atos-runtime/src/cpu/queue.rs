//! The CPU twin of the device queue (`cuda/atos/queue.cuh`): the same ring, counters (indexed
//! by `atos_codegen::layout`), claim, copy-out, room and termination rules, so the CPU executor
//! runs the protocol the GPU runs. Orderings are spelled out per access.

use std::sync::Arc;
use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed, Release, SeqCst};
use std::sync::atomic::{AtomicU64, fence};

use atos_codegen::layout::{
    self, EVERY_KEY, control as ctl, priority_control as pc, queue_counters as qc,
};
use atos_codegen::{Scalar, keys};

use crate::arrays::ring_slots;
use crate::elem::ItemBits;
use crate::program::PrioritySetup;

#[repr(align(128))]
#[derive(Default)]
pub struct Line(pub AtomicU64);

/// The run's control words (`atos::Control`).
pub struct Control {
    pub words: [Line; ctl::WORDS.len()],
}

impl Control {
    pub fn new() -> Control {
        Control {
            words: std::array::from_fn(|_| Line::default()),
        }
    }
    pub fn word(&self, i: usize) -> &AtomicU64 {
        &self.words[i].0
    }
    pub fn status(&self) -> u64 {
        self.word(ctl::STATUS).load(Acquire)
    }
    /// Stops the run with `status` unless it already failed.
    pub fn fail(&self, status: u64) {
        let _ =
            self.word(ctl::STATUS)
                .compare_exchange(layout::status::OK, status, AcqRel, Acquire);
    }
}

impl Default for Control {
    fn default() -> Self {
        Control::new()
    }
}

/// An inline task's runner (`#[atos::task(inline)]`): runs the task on an item at its push.
/// It points at a closure of the executor's run, which outlives every push of that run (the
/// queues are unbound before the closure is dropped).
#[derive(Clone, Copy)]
pub(crate) struct InlineRun(*const (dyn Fn(ItemBits) + Sync + 'static));

// SAFETY: the closure is `Sync`, and is only called while the run that owns it is alive.
unsafe impl Send for InlineRun {}
unsafe impl Sync for InlineRun {}

impl InlineRun {
    /// A runner calling `f`.
    ///
    /// # Safety
    /// `f` must outlive every push of the queues the runner is set on: the run must unbind
    /// them (join its workers) before dropping `f`.
    pub(crate) unsafe fn new(f: &(dyn Fn(ItemBits) + Sync + '_)) -> InlineRun {
        let p: *const (dyn Fn(ItemBits) + Sync + '_) = f;
        // SAFETY: only the lifetime is erased; see the type's documentation.
        InlineRun(unsafe {
            std::mem::transmute::<
                *const (dyn Fn(ItemBits) + Sync + '_),
                *const (dyn Fn(ItemBits) + Sync + 'static),
            >(p)
        })
    }

    /// Runs the task on `item`, counting it in `counted`'s `inlined` word.
    pub(crate) fn run(&self, counted: &CpuQueue, item: ItemBits) {
        counted.c(qc::INLINED).fetch_add(1, Relaxed);
        // SAFETY: the closure outlives the run (see the type's documentation).
        unsafe { (*self.0)(item) }
    }
}

pub struct CpuQueue {
    /// `words` words per slot: an item's bits, low word first.
    items: Vec<AtomicU64>,
    words: usize,
    mask: u64,
    linear: bool,
    capacity: u64,
    counters: [Line; qc::WORDS.len()],
    control: Arc<Control>,
    /// A one-device run's inline task of this queue: every push runs it at once.
    inline: std::sync::OnceLock<InlineRun>,
}

/// Counter values after a run.
#[derive(Clone, Copy, Debug)]
pub struct QueueTotals {
    /// Every counter word, by `layout::queue_counters` index.
    pub words: [u64; qc::WORDS.len()],
    pub peak: u64,
    pub needed: u64,
}

impl CpuQueue {
    /// A ring for `capacity` alive items (or a linear queue for `capacity` pushes) of
    /// `item_bytes` bytes each, holding `seeds` (at most `capacity` of them).
    pub fn new(
        capacity: u64,
        linear: bool,
        item_bytes: usize,
        seeds: &[ItemBits],
        control: Arc<Control>,
    ) -> CpuQueue {
        let words = item_bytes.div_ceil(8).max(1);
        let slots = if linear {
            capacity.max(1)
        } else {
            ring_slots(capacity)
        };
        let q = CpuQueue {
            items: (0..slots as usize * words)
                .map(|_| AtomicU64::new(0))
                .collect(),
            words,
            // A linear queue never wraps: items past the capacity are refused before writing.
            mask: if linear { u64::MAX } else { slots - 1 },
            linear,
            capacity,
            counters: std::array::from_fn(|_| Line::default()),
            control,
            inline: std::sync::OnceLock::new(),
        };
        for (i, s) in seeds.iter().enumerate() {
            q.store_item(i as u64, *s);
        }
        let n = seeds.len() as u64;
        for c in layout::SEEDED_COUNTERS {
            q.c(c).store(n, Release);
        }
        q
    }

    pub(crate) fn c(&self, i: usize) -> &AtomicU64 {
        &self.counters[i].0
    }

    /// Writes item number `i` into its slot (relaxed: the counters publish it).
    fn store_item(&self, i: u64, bits: ItemBits) {
        let at = (i & self.mask) as usize * self.words;
        for (w, slot) in self.items[at..at + self.words].iter().enumerate() {
            slot.store((bits >> (64 * w)) as u64, Relaxed);
        }
    }

    /// Reads item number `i` from its slot (relaxed: the counters published it).
    fn load_item(&self, i: u64) -> ItemBits {
        let at = (i & self.mask) as usize * self.words;
        self.items[at..at + self.words]
            .iter()
            .enumerate()
            .fold(0, |bits, (w, slot)| {
                bits | ItemBits::from(slot.load(Relaxed)) << (64 * w)
            })
    }

    /// Raises `prefix` to `v`; a ring's `end` credits what it newly published to `avail`.
    fn raise_prefix(&self, prefix: usize, v: u64) {
        let old = self.c(prefix).fetch_max(v, AcqRel);
        if prefix == qc::END && !self.linear && old < v {
            self.c(qc::AVAIL).fetch_add(v - old, AcqRel);
        }
    }

    /// `prefix` advances to `count` when count == max (read in that order).
    fn try_advance(&self, count: usize, max: usize, prefix: usize) {
        let c = self.c(count).load(Acquire);
        let m = self.c(max).load(Acquire);
        if c == m {
            self.raise_prefix(prefix, c);
        }
    }

    /// Counts the completed range [base, base + n) (written, or copied out).
    fn complete_range(&self, count: usize, max: usize, prefix: usize, base: u64, n: u64) {
        self.c(max).fetch_max(base + n, AcqRel);
        let c = self.c(count).fetch_add(n, AcqRel) + n;
        if c == self.c(max).load(Acquire) {
            self.raise_prefix(prefix, c);
        }
    }

    /// Whether items [base, base + n) may be written (see `look_for_room` in queue.cuh).
    fn make_room(&self, base: u64, n: u64) -> bool {
        let need = base + n;
        if self.linear {
            // Its peak is end_alloc (see `totals`).
            if need > self.capacity {
                self.c(qc::NEEDED).fetch_max(need, AcqRel);
                self.control.fail(layout::status::OVERFLOW);
                return false;
            }
            return true;
        }
        // Bounds on the items alive, as in `look_for_room` of queue.cuh: proceed when the upper one
        // fits, overflow when the lower one does not, re-read while a claim or a publication
        // is between its two atomics.
        let mut spins = 0u32;
        loop {
            let upper = need - self.c(qc::START).load(Acquire);
            if upper <= self.capacity {
                self.c(qc::PEAK).fetch_max(upper, AcqRel);
                break;
            }
            let avail = (self.c(qc::AVAIL).load(Acquire) as i64).max(0) as u64;
            let lower = need - self.c(qc::END).load(Acquire) + avail;
            if lower > self.capacity {
                self.c(qc::NEEDED).fetch_max(lower, AcqRel);
                self.control.fail(layout::status::OVERFLOW);
                return false;
            }
            if self.control.status() != layout::status::OK {
                return false;
            }
            spins += 1;
            if spins > 64 {
                std::thread::yield_now();
            }
        }
        let slots = self.mask + 1;
        if need <= slots {
            return true;
        }
        let floor = need - slots;
        spins = 0;
        while self.c(qc::READ_END).load(Acquire) < floor {
            self.try_advance(qc::READ_COUNT, qc::READ_MAX, qc::READ_END);
            if self.control.status() != layout::status::OK {
                return false;
            }
            spins += 1;
            if spins > 64 {
                std::thread::yield_now();
            }
        }
        true
    }

    /// Makes every push of this queue run `run` at once instead (a one-device persistent run
    /// of an inline task).
    pub(crate) fn set_inline(&self, run: InlineRun) {
        let _ = self.inline.set(run);
    }

    /// Enqueues one item (a task body's `push`), or runs its inline task at once.
    pub fn push(&self, item: ItemBits) {
        if let Some(run) = self.inline.get() {
            return run.run(self, item);
        }
        let base = self.c(qc::END_ALLOC).fetch_add(1, AcqRel);
        if !self.make_room(base, 1) {
            return;
        }
        self.store_item(base, item);
        // Release (in complete_range's RMWs): the store above comes before the item is counted.
        self.complete_range(qc::END_COUNT, qc::END_MAX, qc::END, base, 1);
    }

    /// `end`, advanced if the writers below it have all finished.
    pub(crate) fn published_end(&self) -> u64 {
        let e = self.c(qc::END).load(Acquire);
        if self.c(qc::END_ALLOC).load(Acquire) > e {
            self.try_advance(qc::END_COUNT, qc::END_MAX, qc::END);
            return self.c(qc::END).load(Acquire);
        }
        e
    }

    /// Takes up to `max_n` written, unclaimed items (`claim` in queue.cuh): from `avail` for a
    /// ring, by a compare-and-swap on `start` bounded by `end` for a linear queue (CPU threads
    /// are few; the GPU reserves ahead instead). Returns the first item and how many.
    fn take(&self, max_n: u64) -> Option<(u64, u64)> {
        if self.linear {
            let mut s = self.c(qc::START).load(Acquire);
            loop {
                let e = self.published_end();
                if s >= e {
                    return None;
                }
                let n = (e - s).min(max_n);
                match self
                    .c(qc::START)
                    .compare_exchange(s, s + n, AcqRel, Acquire)
                {
                    Ok(_) => return Some((s, n)),
                    Err(now) => s = now,
                }
            }
        }
        let avail = self.c(qc::AVAIL);
        if avail.load(Acquire) as i64 <= 0 {
            self.published_end();
        }
        let took = take_credit(avail, max_n)?;
        Some((self.c(qc::START).fetch_add(took, AcqRel), took))
    }

    /// A priority queue's next ring: takes up to `max_n` of its open items from the `open`
    /// count the advances credit (`claim_open_for` in queue.cuh), debiting `avail` too.
    fn take_open(&self, open: &AtomicU64, max_n: u64) -> Option<(u64, u64)> {
        let took = take_credit(open, max_n)?;
        self.c(qc::AVAIL).fetch_sub(took, AcqRel);
        Some((self.c(qc::START).fetch_add(took, AcqRel), took))
    }

    /// Bulk-synchronous levels: takes up to `max_n` items below `hi` (the level's window, all
    /// published), accounting for them in `avail` and `start` as `take_window` in queue.cuh.
    fn take_below(&self, max_n: u64, hi: u64) -> Option<(u64, u64)> {
        let mut s = self.c(qc::START).load(Acquire);
        loop {
            if s >= hi {
                return None;
            }
            let n = (hi - s).min(max_n);
            match self
                .c(qc::START)
                .compare_exchange(s, s + n, AcqRel, Acquire)
            {
                Ok(_) => {
                    if !self.linear {
                        self.c(qc::AVAIL).fetch_sub(n, AcqRel);
                    }
                    return Some((s, n));
                }
                Err(now) => s = now,
            }
        }
    }

    /// `take_pass` of queue.cuh: up to `max_n` items of the open pass [.., `hi`), handed out
    /// in order by a compare-and-swap on `window_next` that never passes `hi`, accounted for in
    /// `avail` and `start`.
    fn take_pass(&self, max_n: u64, hi: u64) -> Option<(u64, u64)> {
        let next = self.c(qc::WINDOW_NEXT);
        let mut b = next.load(Acquire);
        while b < hi {
            let n = (hi - b).min(max_n);
            match next.compare_exchange(b, b + n, AcqRel, Acquire) {
                Ok(_) => {
                    if !self.linear {
                        self.c(qc::AVAIL).fetch_sub(n, AcqRel);
                    }
                    self.c(qc::START).fetch_add(n, AcqRel);
                    return Some((b, n));
                }
                Err(now) => b = now,
            }
        }
        None
    }

    /// The published end: a level's window ends there.
    pub fn end(&self) -> u64 {
        self.c(qc::END).load(SeqCst)
    }

    /// Items below it are taken.
    pub fn start(&self) -> u64 {
        self.c(qc::START).load(SeqCst)
    }

    /// Claims up to `max_n` written items and copies them into `out` (cleared first), then
    /// frees their slots. Returns how many were claimed.
    pub fn claim(&self, max_n: u64, out: &mut Vec<ItemBits>) -> u64 {
        self.claim_from(self.take(max_n), out)
    }

    /// [`claim`](Self::claim) limited to items below `hi` (a bulk-synchronous level).
    pub fn claim_below(&self, max_n: u64, hi: u64, out: &mut Vec<ItemBits>) -> u64 {
        self.claim_from(self.take_below(max_n, hi), out)
    }

    pub(crate) fn claim_from(&self, taken: Option<(u64, u64)>, out: &mut Vec<ItemBits>) -> u64 {
        out.clear();
        let Some((s, n)) = taken else {
            return 0;
        };
        // Acquire on `end`/`avail` above makes these items' stores visible.
        out.extend((s..s + n).map(|i| self.load_item(i)));
        if !self.linear {
            // Release: the loads above come before the slots are counted free.
            self.complete_range(qc::READ_COUNT, qc::READ_MAX, qc::READ_END, s, n);
        }
        n
    }

    /// Counts `n` items fully processed (after their own pushes were reserved).
    pub fn complete(&self, n: u64) {
        self.c(qc::DONE).fetch_add(n, AcqRel);
    }

    pub fn done(&self) -> u64 {
        self.c(qc::DONE).load(SeqCst)
    }

    pub fn pushed(&self) -> u64 {
        self.c(qc::END_ALLOC).load(SeqCst)
    }

    pub fn totals(&self) -> QueueTotals {
        QueueTotals {
            words: std::array::from_fn(|i| self.c(i).load(SeqCst)),
            peak: if self.linear {
                self.c(qc::END_ALLOC).load(SeqCst)
            } else {
                self.c(qc::PEAK).load(SeqCst)
            },
            needed: self.c(qc::NEEDED).load(SeqCst),
        }
    }
}

/// Takes up to `max_n` from a signed count of claimable items (a ring's `avail`, a priority
/// queue's `open`; `take_credit` in queue.cuh) with no retry loop: what a racing claim took
/// first is given back. How many it took, if any.
fn take_credit(credit: &AtomicU64, max_n: u64) -> Option<u64> {
    let have = credit.load(Acquire) as i64;
    if have <= 0 {
        return None;
    }
    let want = have.min(max_n as i64);
    let had = credit.fetch_sub(want as u64, AcqRel) as i64;
    let took = had.clamp(0, want);
    if took < want {
        credit.fetch_add((want - took) as u64, AcqRel);
    }
    (took > 0).then_some(took as u64)
}

/// The CPU twin of a priority queue (`PriorityRef` and friends in queue.cuh and worker.cuh):
/// its near, far and next rings and its `PriorityControl` words.
pub struct CpuPriority {
    pub near: CpuQueue,
    pub far: CpuQueue,
    pub next: CpuQueue,
    key: Scalar,
    /// Bit position of the key in a far item (after the item's parts).
    key_shift: u32,
    words: [Line; pc::WORDS.len()],
}

impl CpuPriority {
    /// `near` and `next` hold items, `far` keyed items whose key starts at byte
    /// `setup.key_offset`. The band end starts at the threshold: the first advance opens the
    /// next ring (persistent runs), and windowed runs keep it there.
    pub(crate) fn new(
        near: CpuQueue,
        far: CpuQueue,
        next: CpuQueue,
        setup: &PrioritySetup,
    ) -> CpuPriority {
        let p = CpuPriority {
            near,
            far,
            next,
            key: setup.key,
            key_shift: 8 * setup.key_offset,
            words: std::array::from_fn(|_| Line::default()),
        };
        p.word(pc::THRESHOLD).store(setup.threshold, Release);
        p.word(pc::BAND_END).store(setup.threshold, Release);
        p.word(pc::DELTA).store(setup.delta, Release);
        p.word(pc::PASS_MIN).store(EVERY_KEY, Release);
        p.word(pc::SLACK).store(setup.slack, Release);
        p
    }

    pub fn word(&self, i: usize) -> &AtomicU64 {
        &self.words[i].0
    }

    /// `PriorityPusher::push`: near below the threshold (read relaxed), next below the band
    /// end, far otherwise, lowering `pass_min` (the smallest key sent far since the last
    /// advance).
    pub fn push(&self, item: ItemBits, key_bits: u64) {
        let enc = keys::encode(self.key, key_bits);
        if enc < self.word(pc::THRESHOLD).load(Relaxed) {
            self.near.push(item);
        } else if enc < self.word(pc::BAND_END).load(Relaxed) {
            self.next.push(item);
        } else {
            self.word(pc::PASS_MIN).fetch_min(enc, AcqRel);
            self.far
                .push(item | ItemBits::from(key_bits & 0xffff_ffff) << self.key_shift);
        }
    }

    /// `SplitBatch`: moves the far items whose key is below the threshold to the near ring and
    /// those below the band end to the next ring, and pushes the others back, keeping the
    /// smallest key pushed back.
    pub fn split(&self, items: &[ItemBits]) {
        let t = self.word(pc::THRESHOLD).load(Acquire);
        let u = self.word(pc::BAND_END).load(Acquire);
        let item_mask = (1u128 << self.key_shift) - 1;
        let (mut back_min, mut moved) = (EVERY_KEY, 0);
        for &f in items {
            let k = keys::encode(self.key, (f >> self.key_shift) as u64 & 0xffff_ffff);
            if k < t {
                self.near.push(f & item_mask);
                moved += 1;
            } else if k < u {
                self.next.push(f & item_mask);
                moved += 1;
            } else {
                self.far.push(f);
                back_min = back_min.min(k);
            }
        }
        if back_min < EVERY_KEY {
            self.word(pc::PASS_MIN).fetch_min(back_min, AcqRel);
        }
        self.word(pc::MOVED).fetch_add(moved, AcqRel);
    }

    /// Persistent: one batch of the open pass, split; whether there was one.
    pub fn serve_pass(&self, max_n: u64, batch: &mut Vec<ItemBits>) -> bool {
        let hi = self.word(pc::PASS_END).load(Acquire);
        let n = self.far.claim_from(self.far.take_pass(max_n, hi), batch);
        if n == 0 {
            return false;
        }
        self.split(batch);
        self.far.complete(n);
        true
    }

    /// Persistent: claims a batch of the next ring's open items (they run as tasks, by the
    /// caller, who completes them on `self.next`); the count claimed.
    pub fn claim_next(&self, max_n: u64, batch: &mut Vec<ItemBits>) -> u64 {
        let taken = self.next.take_open(self.word(pc::OPEN), max_n);
        self.next.claim_from(taken, batch)
    }

    /// `advance_priority` of queue.cuh: when at most `slack` near and open next items are in
    /// flight (0: both quiescent), every far item handed out is done and items wait past the
    /// open parts of the next and far rings, opens the next ring's band (or skips to the far
    /// minimum's), the next ring up to its published end and the next pass over the far items
    /// published so far. Whether it did.
    pub fn advance(&self) -> bool {
        let (near, far, next) = (&self.near, &self.far, &self.next);
        let open_end = self.word(pc::PASS_END).load(Acquire);
        let next_open = self.word(pc::NEXT_END).load(Acquire);
        let slack = self.word(pc::SLACK).load(Relaxed);
        // `done` first: both only grow, so this over-counts the items in flight at any
        // instant between the two reads, never under-counts them. `next_open` moves only under
        // the lock: a stale one can make this first look wrong either way, and the look under
        // the lock decides. A failed run advances no more (as PriorityServer on the GPU).
        let settled = |near_done: u64, next_done: u64| {
            (near.pushed() - near_done).wrapping_add(next_open.wrapping_sub(next_done)) <= slack
        };
        if near.control.status() != layout::status::OK
            || far.c(qc::WINDOW_NEXT).load(Acquire) < open_end
            || far.pushed() <= open_end && next.pushed() <= next_open
            || self.word(pc::LOCK).load(Acquire) != 0
            || !settled(near.done(), next.done())
        {
            return false;
        }
        if self
            .word(pc::LOCK)
            .compare_exchange(0, 1, AcqRel, Acquire)
            .is_err()
        {
            return false;
        }
        let (near_done, next_done, far_done) = (near.done(), next.done(), far.done());
        fence(SeqCst);
        let quiet = settled(near_done, next_done)
            // Handed out is `window_next` (see advance_priority in queue.cuh): `start` moves
            // one atomic after a pass batch is taken.
            && far_done == far.c(qc::WINDOW_NEXT).load(SeqCst)
            && self.word(pc::PASS_END).load(Acquire) == open_end
            && self.word(pc::NEXT_END).load(Acquire) == next_open;
        let mut advanced = false;
        if quiet {
            let (hi, next_hi) = (far.published_end(), next.published_end());
            if hi > open_end || next_hi > next_open {
                let t = self.word(pc::THRESHOLD).load(Acquire);
                let u = self.word(pc::BAND_END).load(Acquire);
                let m = self.word(pc::PASS_MIN).swap(EVERY_KEY, AcqRel);
                let d = self.word(pc::DELTA).load(Acquire);
                let (t2, u2) = keys::advance_band(self.key, t, u, d, m, next_hi > next_open);
                self.word(pc::BAND_END).store(u2, Release);
                self.word(pc::THRESHOLD).store(t2, Release);
                self.word(pc::ADVANCES).fetch_add(1, AcqRel);
                self.word(pc::NEXT_END).store(next_hi, Release);
                self.word(pc::OPEN).fetch_add(next_hi - next_open, AcqRel);
                self.word(pc::PASS_END).store(hi, Release);
                advanced = true;
            }
        }
        self.word(pc::LOCK).store(0, Release);
        advanced
    }

    /// The windowed threshold advance (`keys::next_threshold`), counted: the band end stays
    /// at the threshold (the next ring unused), as the windowed GPU driver keeps it.
    pub fn step_threshold(&self) {
        let t = self.word(pc::THRESHOLD).load(Acquire);
        let m = self.word(pc::PASS_MIN).swap(EVERY_KEY, AcqRel);
        let d = self.word(pc::DELTA).load(Acquire);
        let t2 = keys::next_threshold(self.key, t, d, m);
        self.word(pc::THRESHOLD).store(t2, Release);
        self.word(pc::BAND_END).store(t2, Release);
        self.word(pc::ADVANCES).fetch_add(1, AcqRel);
    }
}

/// Every queue of a run (a priority queue's three rings count as three).
pub struct QueueSet<'q>(pub &'q [&'q CpuQueue]);

impl QueueSet<'_> {
    pub fn pushed(&self) -> u64 {
        self.0.iter().map(|q| q.pushed()).sum()
    }

    /// True when, at one instant between the two passes, every item ever pushed had been
    /// processed (see `QueueSet::quiescent` in queue.cuh for the argument).
    pub fn quiescent(&self) -> (bool, u64) {
        let done: u64 = self.0.iter().map(|q| q.done()).sum();
        fence(SeqCst);
        let pushed = self.pushed();
        (done == pushed, pushed)
    }
}
