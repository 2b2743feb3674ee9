//! The CPU twin of the device queue (`cuda/atos/queue.cuh`): same counters, same publish and
//! termination rules, so the CPU executor exercises the protocol the GPU runs.

use std::sync::atomic::{AtomicU64, Ordering::SeqCst};

pub const STATUS_OK: u64 = 0;
pub const STATUS_OVERFLOW: u64 = 1;
pub const STATUS_PANICKED: u64 = 2;

#[repr(align(128))]
#[derive(Default)]
struct Line(AtomicU64);

pub struct CpuQueue {
    items: Vec<AtomicU64>,
    start: Line,
    end: Line,
    end_alloc: Line,
    end_max: Line,
    end_count: Line,
    done: Line,
    status: Line,
    needed: Line,
}

/// Counter values after a run.
#[derive(Clone, Copy, Debug)]
pub struct QueueTotals {
    pub end_alloc: u64,
    pub done: u64,
    pub status: u64,
    pub needed: u64,
}

impl CpuQueue {
    pub fn new(capacity: u64, seeds: &[u64]) -> CpuQueue {
        let q = CpuQueue {
            items: (0..capacity).map(|_| AtomicU64::new(u64::MAX)).collect(),
            start: Line::default(),
            end: Line::default(),
            end_alloc: Line::default(),
            end_max: Line::default(),
            end_count: Line::default(),
            done: Line::default(),
            status: Line::default(),
            needed: Line::default(),
        };
        for (slot, s) in q.items.iter().zip(seeds) {
            slot.store(*s, SeqCst);
        }
        let n = seeds.len() as u64;
        for c in [&q.end, &q.end_alloc, &q.end_max, &q.end_count] {
            c.0.store(n, SeqCst);
        }
        q
    }

    pub fn capacity(&self) -> u64 {
        self.items.len() as u64
    }

    pub fn push(&self, item: u64) {
        let base = self.end_alloc.0.fetch_add(1, SeqCst);
        if base + 1 > self.capacity() {
            self.needed.0.fetch_max(base + 1, SeqCst);
            self.status.0.store(STATUS_OVERFLOW, SeqCst);
            return;
        }
        self.items[base as usize].store(item, SeqCst);
        self.end_max.0.fetch_max(base + 1, SeqCst);
        let written = self.end_count.0.fetch_add(1, SeqCst) + 1;
        if written == self.end_max.0.load(SeqCst) {
            self.end.0.fetch_max(written, SeqCst);
        }
    }

    fn update_end(&self) {
        let written = self.end_count.0.load(SeqCst);
        let reserved = self.end_max.0.load(SeqCst);
        if written == reserved {
            self.end.0.fetch_max(written, SeqCst);
        }
    }

    pub fn grab(&self, fetch: u64) -> u64 {
        self.start.0.fetch_add(fetch, SeqCst)
    }

    /// Published end, after trying to advance it.
    pub fn published_end(&self) -> u64 {
        let e = self.end.0.load(SeqCst);
        if e < self.end_alloc.0.load(SeqCst) {
            self.update_end();
            return self.end.0.load(SeqCst);
        }
        e
    }

    pub fn item(&self, slot: u64) -> u64 {
        self.items[slot as usize].load(SeqCst)
    }

    pub fn complete(&self, n: u64) {
        self.done.0.fetch_add(n, SeqCst);
    }

    pub fn status(&self) -> u64 {
        self.status.0.load(SeqCst)
    }

    pub fn fail(&self, status: u64) {
        self.status.0.store(status, SeqCst);
    }

    /// True once every reserved task has been processed.
    pub fn terminated(&self) -> bool {
        let done = self.done.0.load(SeqCst);
        done == self.end_alloc.0.load(SeqCst)
    }

    pub fn totals(&self) -> QueueTotals {
        QueueTotals {
            end_alloc: self.end_alloc.0.load(SeqCst),
            done: self.done.0.load(SeqCst),
            status: self.status.0.load(SeqCst),
            needed: self.needed.0.load(SeqCst),
        }
    }
}
