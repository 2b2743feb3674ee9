//! k-core decomposition by peeling, on a [`PriorityQueue`] keyed by the level.
//!
//! The core number of a vertex is the largest `k` such that it belongs to a subgraph whose
//! every vertex has at least `k` neighbours. Peeling finds it: at level `k = 0, 1, ...` remove
//! every vertex of current degree at most `k` (removals lower their neighbours' degrees, which
//! may bring them to `k` too); a vertex removed at level `k` has core number `k`.
//!
//! Here a task is a vertex and a level, keyed by the level, so the queue's threshold (delta 1)
//! *is* the level: the queue serves level `k` only after every lower level has drained, and
//! the vertices of one level peel in parallel with no barrier between levels.
//!
//! - A task `(v, k)` whose vertex is still present reads its degree `d`. If `d > k` the vertex
//!   cannot go at this level: it is queued again at level `min(d, cap)` (every vertex is seeded
//!   at level 0, so this is how the first level sorts them by degree). `cap` ([`core_bound`])
//!   is at least every core number, so at level `cap` every vertex left peels; one queued
//!   there with a larger degree runs again at that level until its neighbours' peels bring
//!   its degree down. Otherwise it takes core
//!   number `k` (`fetch_min` on `core`: of two tasks of one vertex at one level, one wins) and
//!   lowers the degree of each neighbour still present by one. If the new degree `d'` is `k` or
//!   more (and below `cap`, where it has a task already), the neighbour is queued at level `d'` (so the level it may go at is queued as soon
//!   as it is known); below `k` it needs no push, as it already had a task at level `k` or
//!   lower when its degree reached `k`.
//! - **Why the answer is exact.** Keys only ever equal the level of the task that pushed them
//!   or more, so when level `k` is served every vertex with degree at most `k` has a task at
//!   level `k` (its degree fell there, or its last push was at its degree) and nothing lower is
//!   left. A vertex's degree only falls, and every push of a vertex below `cap` carries at
//!   least its degree then, so a task finds a degree above its level only for a seed or at
//!   level `cap`: the order is exactly level-by-level peeling, and the set removed at each
//!   level does not depend on the order within it.
//! - The work: `n` seeds, at most `n` re-queues at the degree, one push per lowered degree
//!   that stays at the level or above (at most `2m`), and at level `cap` the re-runs of
//!   vertices waiting there for their degree to fall (not bounded in advance; each replaces
//!   its own task, so the rings do not fill); `PriorityQueue` rings must hold `n + 2m` items
//!   ([`capacity`]).
//!
//! The threshold must advance by exactly one level: [`KcoreArrays::state`] sets delta 1 (a
//! wider band would serve two levels at once and give the higher one's vertices the lower
//! number). An advance may skip levels no item holds: it starts from the smallest key sent far
//! since the last advance (`pass_min`), which every far item's key is at least.

use crate::{AtomicArray, Atomics, PriorityQueue, Slice, lanes};

/// The core number of a vertex not peeled yet.
pub const UNPEELED: u32 = u32::MAX;

#[atos::state]
pub struct KcoreState<'a> {
    pub offsets: Slice<'a, u32>,
    pub cols: Slice<'a, u32>,
    /// Neighbours not peeled yet (self-loops not counted).
    pub degree: Atomics<'a, u32>,
    /// The level a vertex was peeled at, `UNPEELED` until then.
    pub core: Atomics<'a, u32>,
    /// Vertices with a level, keyed by it.
    pub work: PriorityQueue<'a, (u32, u32), u32>,
    /// No vertex's core number is above it ([`core_bound`]): no task is queued past it.
    pub cap: u32,
}

/// Peels `v` at level `k` if it is still present and has at most `k` neighbours left; queues
/// it again at its degree if it has more.
#[atos::task(worker = "warp", fetch = 1)]
pub fn peel((v, k): (u32, u32), s: &KcoreState) {
    let d = s.degree.load(v);
    let present = s.core.load(v) > k;
    if present && d > k {
        let again = d.min(s.cap);
        s.work.push((v, again), again);
    }
    let peeled = present && d <= k && s.core.fetch_min(v, k) > k;
    let lo = s.offsets[v];
    let hi = if peeled { s.offsets[v + 1] } else { lo };
    for e in lanes(lo..hi) {
        let u = s.cols[e];
        if u != v && s.core.load(u) == u32::MAX {
            let left = s.degree.fetch_sub(u, 1) - 1;
            if left >= k && left < s.cap {
                s.work.push((u, left), left);
            }
        }
    }
}

/// A bound no core number exceeds: the largest `h` such that more than `h` vertices have
/// degree `h` or more (a `k`-core has more than `k` vertices, each of degree `k` or more).
/// Queueing nothing past it ends the run at the bound instead of walking the threshold up to
/// the largest degree through stale tasks.
pub fn core_bound(degrees: &[u32]) -> u32 {
    let mut d = degrees.to_vec();
    d.sort_unstable_by(|a, b| b.cmp(a));
    // d[i] is the (i+1)-th largest degree: h works when d[h] >= h (h + 1 vertices of degree h+).
    let mut h = 0u32;
    while (h as usize) < d.len() && d[h as usize] >= h {
        h += 1;
    }
    h.saturating_sub(1)
}

/// Ring capacity a run needs: `n` seeds and re-queues plus one push per edge end.
pub fn capacity(vertices: usize, entries: usize) -> u64 {
    vertices as u64 + entries as u64 + 1
}

/// Host arrays of a run: degrees and core numbers.
pub struct KcoreArrays {
    pub degree: AtomicArray<u32>,
    pub core: AtomicArray<u32>,
    initial: Vec<u32>,
    cap: u32,
}

impl KcoreArrays {
    /// Arrays for a graph whose vertices have the `degrees` given (without self-loops, as
    /// `atos_graph::reference::kcore::degrees` counts them).
    pub fn new(degrees: Vec<u32>) -> KcoreArrays {
        let a = KcoreArrays {
            degree: AtomicArray::filled(degrees.len(), 0),
            core: AtomicArray::filled(degrees.len(), UNPEELED),
            cap: core_bound(&degrees),
            initial: degrees,
        };
        a.reset();
        a
    }

    /// Back to the start of a run: every vertex present with its full degree.
    pub fn reset(&self) {
        self.core.fill(UNPEELED);
        let d = self.degree.view();
        for (v, &x) in self.initial.iter().enumerate() {
            d.store(v as u32, x);
        }
    }

    /// The seeds: every vertex at level 0.
    pub fn seeds(&self) -> Vec<(u32, u32)> {
        (0..self.initial.len() as u32).map(|v| (v, 0)).collect()
    }

    /// The state over an undirected CSR; the queue's rings hold `capacity` items each (see
    /// [`capacity`]).
    pub fn state<'a>(
        &'a self,
        offsets: &'a [u32],
        cols: &'a [u32],
        capacity: u64,
    ) -> KcoreState<'a> {
        KcoreState {
            offsets: Slice::new(offsets),
            cols: Slice::new(cols),
            degree: self.degree.view(),
            core: self.core.view(),
            // Level 0 first (start 1 serves keys below 1), then one level per advance.
            work: PriorityQueue::with_capacity(capacity).delta(1).start(1),
            cap: self.cap,
        }
    }
}
