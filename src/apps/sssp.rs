//! Speculative single-source shortest paths with u32 edge weights, in FIFO order or by
//! priority (delta-stepping style): the same task, on a [`PriorityQueue`] keyed by the
//! distance a push found.
//!
//! A task is a vertex and the distance a push found for it. It relaxes every out-edge with
//! the vertex's current distance by `fetch_min` (after a plain load that skips the neighbours
//! already as close) and queues each neighbour it improved with the new distance, keyed by it.
//! In priority order a task whose vertex has since got a shorter distance is stale and relaxes
//! nothing (the push of that distance is queued too and runs soon); stale tasks still count
//! in the workload, at the cost of one load.
//!
//! - [`Order::Priority`]: the queue serves distances below its threshold first and holds the
//!   others; the threshold advances by `delta` when the near part drains (see
//!   [`PriorityQueue`]). A vertex then mostly runs once its distance is final, as in
//!   Dijkstra's order, while a whole delta-wide band of vertices runs in parallel.
//!   [`default_delta`] (fast on the GPU) and [`band_delta`] (least work) pick delta from the
//!   weights.
//! - [`Order::Fifo`]: the same queue unordered: every push runs in FIFO order (asynchronous
//!   label correcting; a vertex may run again whenever a shorter path reaches it later).
//! - `Strategy::Bsp`: Bellman-Ford by levels (FIFO), or delta-stepping by levels (priority:
//!   each level relaxes the near vertices; when none are left, a level moves the next band).
//!
//! The workload ratio (tasks / reached vertices; Dijkstra's order is 1.0) measures the
//! speculation each order pays.
//!
//! There is no "already queued" flag, on purpose. With one, a task would clear the flag and
//! then read the distance while an improver writes the distance and then finds the flag still
//! set: with relaxed atomics nothing orders the two, so the task could read the old distance
//! and the improvement would be lost. PageRank's flag is safe only because its task takes the
//! residue with a read-modify-write. A vertex improved several times while waiting is queued
//! several times, and its later tasks find nothing to improve (the plain load prunes them).
//!
//! Distances are `u32` sums: a path longer than `u32::MAX - 1` wraps (a checked build stops
//! with an overflow fault; the bench's check against Dijkstra fails loudly on any other build).

use crate::{AtomicArray, Atomics, PriorityQueue, Slice, lanes};

/// Distance of a vertex no path has reached.
pub const UNREACHED: u32 = u32::MAX;

#[atos::state]
pub struct SsspState<'a> {
    pub offsets: Slice<'a, u32>,
    pub cols: Slice<'a, u32>,
    /// One weight per entry of `cols`.
    pub weights: Slice<'a, u32>,
    pub dist: Atomics<'a, u32>,
    /// Vertices with the distance their push found, keyed by it.
    pub work: PriorityQueue<'a, (u32, u32), u32>,
    /// Skip a task whose vertex has since got a shorter distance (priority order: that push
    /// runs soon after); FIFO order runs it with the shorter distance instead, which spreads
    /// the improvement earlier than the later push would.
    pub prune_stale: bool,
}

/// Relaxes `v`'s out-edges with its current distance (at most `d`, the distance its push
/// found). In the balanced shape (`let`s, then one `lanes` loop): a worker fetching several
/// vertices spreads their edges over its threads; a pruned stale task gets an empty range.
#[atos::task(worker = "warp", fetch = 1)]
pub fn relax((v, d): (u32, u32), s: &SsspState) {
    let cur = s.dist.load(v);
    let lo = s.offsets[v];
    let hi = if s.prune_stale && cur < d {
        lo
    } else {
        s.offsets[v + 1]
    };
    for e in lanes(lo..hi) {
        let u = s.cols[e];
        let nd = cur + s.weights[e];
        if s.dist.load(u) > nd && s.dist.fetch_min(u, nd) > nd {
            s.work.push((u, nd), nd);
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

    /// The seed: the source at distance 0.
    pub fn seeds(&self) -> [(u32, u32); 1] {
        [(self.source, 0)]
    }

    /// The state over a CSR with u32 offsets and one u32 weight per column entry, served in
    /// `order`. Each of the queue's two rings holds `capacity` waiting vertices (FIFO order
    /// uses only the near one). A vertex is queued once per improvement, so FIFO order can
    /// need more than the edge count on large-diameter weighted graphs (4.5x on
    /// grid:4096x4096,w=100 with persistent CTA workers on an H100); a run that needs more
    /// fails with the capacity it needs.
    pub fn state<'a>(
        &'a self,
        offsets: &'a [u32],
        cols: &'a [u32],
        weights: &'a [u32],
        capacity: u64,
        order: Order,
    ) -> SsspState<'a> {
        let work = PriorityQueue::with_capacity(capacity);
        SsspState {
            offsets: Slice::new(offsets),
            cols: Slice::new(cols),
            weights: Slice::new(weights),
            dist: self.dist.view(),
            work: match order {
                Order::Fifo => work.unordered(),
                Order::Priority { delta } => work.delta(delta.max(1)),
            },
            prune_stale: order != Order::Fifo,
        }
    }
}

/// The order an SSSP run serves improved vertices in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// As pushed.
    Fifo,
    /// Distances below a threshold first; the threshold advances by `delta` (at least 1).
    Priority { delta: u32 },
}

impl Order {
    /// `fifo`, or `priority` with `delta`.
    pub fn name(self) -> &'static str {
        match self {
            Order::Fifo => "fifo",
            Order::Priority { .. } => "priority",
        }
    }
}

/// The band that keeps the work low: twice the mean edge weight over the mean out-degree (at
/// least 1), about the largest weight over the degree, the band Meyer and Sanders' analysis of
/// delta-stepping suggests for random weights: a vertex's tasks mostly come after its final
/// distance. On one H100 it did 1.02-5.0 tasks per reached vertex on five graphs, but its many
/// advances (each drains the near ring and passes over the whole far ring) made it slower
/// than FIFO order on all but the grid (docs/results/2026-11-23-sssp-priority-h100.md).
pub fn band_delta(offsets: &[u32], weights: &[u32]) -> u32 {
    let vertices = offsets.len().saturating_sub(1).max(1) as f64;
    if weights.is_empty() {
        return 1;
    }
    let mean_weight = weights.iter().map(|&w| f64::from(w)).sum::<f64>() / weights.len() as f64;
    let mean_degree = weights.len() as f64 / vertices;
    (2.0 * mean_weight / mean_degree.max(1.0)).clamp(1.0, f64::from(u32::MAX)) as u32
}

/// The delta a priority run uses when none is given: 64 [`band_delta`]s, the fastest of 1, 4,
/// 16 and 64 bands on every graph measured on one H100 (fewer advances, still 1.2-12 tasks per
/// vertex against FIFO's 2.7-191; docs/results/2026-11-23-sssp-priority-h100.md).
pub fn default_delta(offsets: &[u32], weights: &[u32]) -> u32 {
    band_delta(offsets, weights).saturating_mul(64)
}
