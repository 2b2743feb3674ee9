//! Speculative single-source shortest paths with u32 edge weights, in FIFO order: the baseline
//! that priority scheduling (threshold and delta) is measured against.
//!
//! A task is a vertex whose distance dropped. It relaxes every out-edge with `fetch_min` (after
//! a plain load that skips the neighbours already as close) and queues each neighbour it
//! improved. The queue's push and pop order the improvement before the task's read of the
//! distance, so the task relaxes with that distance or a better one.
//!
//! There is no "already queued" flag, on purpose. With one, a task would clear the flag and
//! then read the distance while an improver writes the distance and then finds the flag still
//! set: with relaxed atomics nothing orders the two, so the task could read the old distance
//! and the improvement would be lost. PageRank's flag is safe only because its task takes the
//! residue with a read-modify-write. A vertex improved several times while waiting is queued
//! several times, and its later tasks find nothing to improve (the plain load prunes them).
//!
//! - Persistent or discrete: asynchronous label correcting. A vertex may run again when a
//!   shorter path reaches it later; the workload ratio (tasks / reached vertices; Dijkstra's
//!   order is 1.0) measures that speculation.
//! - `Strategy::Bsp`: Bellman-Ford by levels. Level `k` relaxes the vertices improved in level
//!   `k - 1`, and a barrier separates levels.
//!
//! Distances are `u32` sums: a path longer than `u32::MAX - 1` wraps (a checked build stops
//! with an overflow fault; the bench's check against Dijkstra fails loudly on any other build).

use crate::{AtomicArray, Atomics, Queue, Slice, lanes};

/// Distance of a vertex no path has reached.
pub const UNREACHED: u32 = u32::MAX;

#[atos::state]
pub struct SsspState<'a> {
    pub offsets: Slice<'a, u32>,
    pub cols: Slice<'a, u32>,
    /// One weight per entry of `cols`.
    pub weights: Slice<'a, u32>,
    pub dist: Atomics<'a, u32>,
    pub work: Queue<'a, u32>,
}

/// Relaxes `v`'s out-edges with its current distance (the balanced shape: `let`s, then one
/// `lanes` loop, so a worker fetching several vertices spreads their edges over its threads).
#[atos::task(worker = "warp", fetch = 1)]
pub fn relax(v: u32, s: &SsspState) {
    let d = s.dist.load(v);
    let lo = s.offsets[v];
    let hi = s.offsets[v + 1];
    for e in lanes(lo..hi) {
        let u = s.cols[e];
        let nd = d + s.weights[e];
        if s.dist.load(u) > nd && s.dist.fetch_min(u, nd) > nd {
            s.work.push(u);
        }
    }
}

/// Host arrays of a run: the distances.
pub struct SsspArrays {
    pub dist: AtomicArray<u32>,
    source: u32,
}

impl SsspArrays {
    /// Every vertex unreached but `source` (distance 0).
    pub fn new(vertices: usize, source: u32) -> SsspArrays {
        let a = SsspArrays {
            dist: AtomicArray::filled(vertices, UNREACHED),
            source,
        };
        a.reset();
        a
    }

    /// Back to the start of a run.
    pub fn reset(&self) {
        self.dist.fill(UNREACHED);
        self.dist.view().store(self.source, 0);
    }

    /// The seed: the source.
    pub fn seeds(&self) -> [u32; 1] {
        [self.source]
    }

    /// The state over a CSR with u32 offsets and one u32 weight per column entry. The ring
    /// holds `capacity` waiting vertices. FIFO order queues a vertex once per improvement, so
    /// it can need more than the edge count on large-diameter weighted graphs (at least 2.15x
    /// on grid:4096x4096,w=100 with persistent CTA workers, where a run stopped); a run that needs more fails with the
    /// capacity it needs.
    pub fn state<'a>(
        &'a self,
        offsets: &'a [u32],
        cols: &'a [u32],
        weights: &'a [u32],
        capacity: u64,
    ) -> SsspState<'a> {
        SsspState {
            offsets: Slice::new(offsets),
            cols: Slice::new(cols),
            weights: Slice::new(weights),
            dist: self.dist.view(),
            work: Queue::with_capacity(capacity),
        }
    }
}
