//! k-core decomposition by peeling, on a [`PriorityQueue`] keyed by the level.
//!
//! The core number of a vertex is the largest `k` such that it belongs to a subgraph whose
//! every vertex has at least `k` neighbours. Peeling finds it: at level `k = 0, 1, ...` remove
//! every vertex of current degree at most `k` (removals lower their neighbours' degrees, which
//! may bring them to `k` too); a vertex removed at level `k` has core number `k`.
//!
//! The graph must be simple and undirected: every edge listed once in each direction. A
//! repeated neighbour counts twice in a degree, which breaks [`core_bound`] (a `k`-core has
//! more than `k` vertices) and can keep the run from ending (two vertices joined three times:
//! degrees 3 and 3, bound 1, and neither ever peels at level 1). [`KcoreArrays::for_graph`]
//! checks the CSR and refuses such a graph with a [`GraphError`] naming the entry;
//! [`KcoreArrays::new`] takes degrees on trust. (`atos_graph::reference::kcore::core_numbers`,
//! the CPU reference the tests compare with, checks its own input apart.)
//!
//! Here a task is a vertex and a level, keyed by the level, so the queue's threshold (delta 1)
//! *is* the level: the queue serves level `k` only after every lower level has drained, and
//! the vertices of one level peel in parallel with no barrier between levels.
//!
//! - A task `(v, k)` whose vertex is still present reads its degree `d`. If `d > k` the vertex
//!   cannot go at this level: it is queued again at `min(d, k + window, cap)`, where `window`
//!   ([`KcoreArrays::with_window`], at least 1) is how many levels ahead a vertex waits and
//!   `cap` ([`core_bound`]) is at least every core number (at level `cap` every vertex left
//!   peels; one with a larger degree runs again at that level until its neighbours' peels bring
//!   its degree down). Otherwise it takes core number `k` (`fetch_min` on `core`: of two tasks
//!   of one vertex at one level, one wins) and lowers the degree of each neighbour still
//!   present by one. A neighbour whose new degree `left` is at least `k` and below
//!   `min(k + window, cap)` (or is `k` itself) is queued at level `left`; any other needs
//!   nothing.
//! - **Why the answer is exact.** Invariant: while level `k` is served, every present vertex
//!   has a task at a level between `k` and `max(k, its degree)`. A re-queue goes to a level in
//!   `(k, d]` (at `cap`, to `cap` itself). A task queued at level `L` was queued at some level
//!   `j <= k`, so `L <= min(j + window, cap) <= min(k + window, cap)`; a lowered degree `left`
//!   below `L` is therefore below `min(k + window, cap)`, and the decrement that made it queued
//!   the vertex at `left` (degrees fall one at a time, so the value `k` is seen by exactly one
//!   decrement). A task pushed at `left` finds a degree of at most `left` when it runs, so it
//!   peels or is stale and never re-queues: each vertex has one chain of re-queues. So when level `k` is served, every present vertex of degree at most `k` has a
//!   task at `k`, and nothing lower is left: levels drain in order (slack 0), and the set
//!   removed at each level is level-by-level peeling's, whatever the order within it.
//! - **How far ahead.** Queued at its degree (`window` past the bound: the first version), a
//!   vertex got a new item at every lowered degree, and each stayed in the far ring, stale,
//!   until the threshold reached its key: every advance's pass over the far ring examined them
//!   all again. On kron:16 the passes examined 129 M items to move 0.65 M near (CPU executor, 654
//!   advances; `docs/results/2026-11-24b-kcore-window-h100/cpu-passes/`). A window keeps every far item within `window` levels of the threshold, so an
//!   item is examined at most `window` times; a small window costs re-runs instead (a vertex
//!   runs about every `window` levels). On the CPU executor, kron:16 with windows 1, 4 and 8:
//!   16.1, 5.4 and 4.0 tasks per vertex, 0.98, 0.90 and 1.01 M far items examined; the meshes
//!   do fewest tasks from 4 up. [`DEFAULT_WINDOW`] (8) is what the GPU measured fastest
//!   (`docs/results/2026-11-24b-kcore-window-h100.md`).
//! - The rings hold at most `n + 2m` items ([`capacity`]): a vertex's re-queue, a push per
//!   lowered degree, the seeds.
//!
//! The threshold must advance by exactly one level: [`KcoreArrays::state`] sets delta 1 (a
//! wider band would serve two levels at once and give the higher one's vertices the lower
//! number). An advance may skip levels no item holds: it starts from the smallest key sent far
//! since the last advance (`pass_min`), which every far item's key is at least.

use super::graph_check::{self, GraphError};
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
    /// How many levels ahead a vertex is queued (at least 1, at most `cap + 1`; see the module
    /// doc, "How far ahead").
    pub window: u32,
}

/// Peels `v` at level `k` if it is still present and has at most `k` neighbours left; queues
/// it again at the next level if it has more.
///
/// Statements, then one `lanes` loop over the neighbours: a warp or CTA worker fetching several
/// vertices runs them load-balanced, and persistent CTA groups share a hub's edges with idle
/// groups (`docs/runtime.md`, "Load-balanced batches": 1.3-2.1x on one H100 at CTA fetch 8,
/// kron:22 1.43x at fetch 64).
#[atos::task(worker = "warp", fetch = 1)]
pub fn peel((v, k): (u32, u32), s: &KcoreState) {
    let d = s.degree.load(v);
    let present = s.core.load(v) > k;
    // The furthest level this task queues at: `window` ahead (kept in 1..=cap + 1, so that a
    // state built by hand cannot stall a level or overflow), never past the bound.
    let window = s.window;
    let reach = (k + window.max(1).min(s.cap + 1)).min(s.cap);
    if present && d > k {
        let again = d.min(reach);
        s.work.push((v, again), again);
    }
    let peeled = present && d <= k && s.core.fetch_min(v, k) > k;
    let lo = s.offsets[v];
    let hi = if peeled { s.offsets[v + 1] } else { lo };
    for e in lanes(lo..hi) {
        let u = s.cols[e];
        if u != v && s.core.load(u) == u32::MAX {
            let left = s.degree.fetch_sub(u, 1) - 1;
            if left >= k && left < reach.max(k + 1) {
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

/// Levels ahead a vertex is queued by default ([`KcoreArrays::with_window`]).
pub const DEFAULT_WINDOW: u32 = 8;

/// The window a run with bound `cap` uses when `window` is asked for: at least 1, at most one
/// past the bound (further ahead changes nothing: no task is queued past the bound).
pub fn effective_window(window: u32, cap: u32) -> u32 {
    window.clamp(1, cap.saturating_add(1))
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
    window: u32,
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
            window: DEFAULT_WINDOW,
        };
        a.reset();
        a
    }

    /// Arrays for the undirected CSR `offsets`/`cols` (the one [`KcoreArrays::state`] gets),
    /// after checking that peeling can run on it: a well-formed CSR whose every neighbour is
    /// listed once (self-loops aside, which count for nothing) and lists the vertex back.
    /// O(n + m) time; a transposed copy of `cols` only when some row is out of order.
    pub fn for_graph(offsets: &[u32], cols: &[u32]) -> Result<KcoreArrays, GraphError> {
        Ok(KcoreArrays::new(checked_degrees(offsets, cols)?))
    }

    /// Queue vertices `window` levels ahead (1 or more; [`DEFAULT_WINDOW`] unless set; past
    /// the bound it changes nothing). The core numbers are the same for every window.
    pub fn with_window(mut self, window: u32) -> KcoreArrays {
        self.window = window;
        self
    }

    /// The degrees a run starts from (self-loops not counted).
    pub fn degrees(&self) -> &[u32] {
        &self.initial
    }

    /// The window the state gets ([`effective_window`]).
    pub fn window(&self) -> u32 {
        effective_window(self.window, self.cap)
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
            window: self.window(),
        }
    }
}

/// The degrees (self-loops not counted) of a CSR that [`KcoreArrays::for_graph`] accepts.
fn checked_degrees(offsets: &[u32], cols: &[u32]) -> Result<Vec<u32>, GraphError> {
    const APP: &str = "k-core";
    let n = graph_check::vertices(APP, offsets, cols)?;
    // A stamp per vertex: `seen[v] == u + 1` while row `u` is scanned and lists `v`.
    let mut seen = vec![0u32; n];
    let mut degrees = Vec::with_capacity(n);
    for u in 0..n {
        let mut d = 0;
        for &v in graph_check::row(offsets, cols, u) {
            if v as usize == u {
                continue;
            }
            if seen[v as usize] == u as u32 + 1 {
                return Err(GraphError::Duplicate {
                    app: APP,
                    u: u as u32,
                    v,
                });
            }
            seen[v as usize] = u as u32 + 1;
            d += 1;
        }
        degrees.push(d);
    }
    graph_check::symmetric(APP, offsets, cols)?;
    Ok(degrees)
}
