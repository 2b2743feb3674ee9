//! Speculative single-source shortest paths with u32 edge weights, in FIFO order or by
//! priority (delta-stepping style): the same task, on a [`PriorityQueue`] keyed by the
//! distance a push found.
//!
//! A task is a vertex and the distance a push found for it. It relaxes every out-edge with
//! the vertex's current distance by `lower` (`fetch_min` asked only whether it improved, so a
//! plain load skips the neighbours already as close) and queues each neighbour it improved with the new distance, keyed by it.
//! In priority order a task whose vertex has since got a shorter distance is stale; if the
//! vertex has more than [`PRUNE_ABOVE`] out-edges it relaxes nothing (the push of that distance
//! is queued too and runs soon), else it relaxes with the shorter distance, which spreads it
//! sooner at little cost ([`Prune`]). Stale tasks still count in the workload.
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
//! f32 weights must be numbers of 0 or more ([`check_weights`]): a negative edge of an
//! undirected graph is a negative cycle, which has no shortest paths.

use crate::{AtomicArray, AtomicNum, Atomics, PriorityKey, PriorityQueue, Slice, Task, TaskSet};

/// Distance of a vertex no path has reached (u32 weights).
pub const UNREACHED: u32 = u32::MAX;

/// The device program for one weight type: the state and the relax task, written once and
/// generated for u32 ([`int`], re-exported here) and f32 ([`float`]) weights.
macro_rules! sssp_program {
    ($(#[$doc:meta])* $module:ident, $w:ty) => {
        $(#[$doc])*
        pub mod $module {
            use crate::{Atomics, PriorityQueue, Slice, lanes};

            #[atos::state]
            pub struct SsspState<'a> {
                pub offsets: Slice<'a, u32>,
                pub cols: Slice<'a, u32>,
                /// One weight per entry of `cols`.
                pub weights: Slice<'a, $w>,
                pub dist: Atomics<'a, $w>,
                /// Vertices with the distance their push found, keyed by it.
                pub work: PriorityQueue<'a, (u32, $w), $w>,
                /// A task whose vertex has since got a shorter distance relaxes nothing when
                /// the vertex has more out-edges than this (that distance's push relaxes them
                /// later); otherwise it relaxes them with the shorter distance, which spreads
                /// the improvement sooner. 0 prunes every stale task, `u32::MAX` none
                /// ([`Prune`](super::Prune)).
                pub prune_above: u32,
            }

            /// Relaxes `v`'s out-edges with its current distance (at most `d`, the distance
            /// its push found). In the balanced shape (`let`s, then one `lanes` loop): a
            /// worker fetching several vertices spreads their edges over its threads; a
            /// pruned stale task gets an empty range.
            #[atos::task(worker = "warp", fetch = 1)]
            pub fn relax((v, d): (u32, $w), s: &SsspState) {
                let cur = s.dist.load(v);
                let lo = s.offsets[v];
                let end = s.offsets[v + 1];
                let hi = if cur < d && end - lo > s.prune_above {
                    lo
                } else {
                    end
                };
                for e in lanes(lo..hi) {
                    let u = s.cols[e];
                    let nd = cur + s.weights[e];
                    if s.dist.lower(u, nd) {
                        s.work.push((u, nd), nd);
                    }
                }
            }
        }
    };
}

sssp_program!(
    /// SSSP over u32 weights: distances are `u32` sums.
    int,
    u32
);
sssp_program!(
    /// SSSP over f32 weights: a distance is the f32 sum along its path, added edge by edge
    /// from the source (so `atos_graph::reference::sssp::dijkstra_f32`, which adds the same
    /// way, gives the same bits).
    float,
    f32
);

pub use int::{SsspState, relax};

/// A weight (and distance) type SSSP runs on: `u32` or `f32`.
pub trait Weight: AtomicNum + PriorityKey + Into<f64> {
    /// Distance of a vertex no path has reached (`u32::MAX`, `f32::INFINITY`).
    const UNREACHED: Self;
    /// The source's distance.
    const ZERO: Self;
    /// A delta of `bands` bands `width` wide that the queue accepts: u32 takes the width
    /// rounded down (at least 1) times `bands`, saturating; f32 the product, or 1.0 if that
    /// is not a positive finite f32.
    fn delta_of_bands(width: f64, bands: u32) -> Self;
    /// The relax task over this weight type.
    type Relax: Task<Item = (u32, Self)> + TaskSet + Default;
    /// The program's state.
    fn state<'a>(
        offsets: &'a [u32],
        cols: &'a [u32],
        weights: &'a [Self],
        dist: Atomics<'a, Self>,
        work: PriorityQueue<'a, (u32, Self), Self>,
        prune: Prune,
    ) -> <Self::Relax as TaskSet>::State<'a>;
}

macro_rules! weight {
    ($w:ty, $module:ident, $unreached:expr, $zero:expr, $bands:expr) => {
        impl Weight for $w {
            const UNREACHED: $w = $unreached;
            const ZERO: $w = $zero;
            fn delta_of_bands(width: f64, bands: u32) -> $w {
                $bands(width, bands)
            }
            type Relax = $module::relax::Task;
            fn state<'a>(
                offsets: &'a [u32],
                cols: &'a [u32],
                weights: &'a [$w],
                dist: Atomics<'a, $w>,
                work: PriorityQueue<'a, (u32, $w), $w>,
                prune: Prune,
            ) -> $module::SsspState<'a> {
                $module::SsspState {
                    offsets: Slice::new(offsets),
                    cols: Slice::new(cols),
                    weights: Slice::new(weights),
                    dist,
                    work,
                    prune_above: prune.above(),
                }
            }
        }
    };
}
weight!(u32, int, u32::MAX, 0, |width: f64, bands: u32| {
    (width.clamp(1.0, f64::from(u32::MAX)) as u32).saturating_mul(bands)
});
weight!(f32, float, f32::INFINITY, 0.0, |width: f64, bands: u32| {
    let d = (width * f64::from(bands)) as f32;
    if d > 0.0 && d.is_finite() { d } else { 1.0 }
});

/// Host arrays of a run: the distances (`u32` or `f32`, the weights' type).
pub struct SsspArrays<W: Weight = u32> {
    pub dist: AtomicArray<W>,
    source: u32,
}

impl<W: Weight> SsspArrays<W> {
    /// Every vertex unreached but `source` (distance 0).
    pub fn new(vertices: usize, source: u32) -> SsspArrays<W> {
        let a = SsspArrays {
            dist: AtomicArray::filled(vertices, W::UNREACHED),
            source,
        };
        a.reset();
        a
    }

    /// Back to the start of a run.
    pub fn reset(&self) {
        self.dist.fill(W::UNREACHED);
        self.dist.view().store(self.source, W::ZERO);
    }

    /// The seed: the source at distance 0.
    pub fn seeds(&self) -> [(u32, W); 1] {
        [(self.source, W::ZERO)]
    }

    /// The state over a CSR with u32 offsets and one weight per column entry (0 or more:
    /// [`check_weights`] says), served in `order`. Each of the queue's three rings holds
    /// `capacity` waiting vertices (FIFO order
    /// uses only the near one). A vertex is queued once per improvement, so FIFO order can
    /// need more than the edge count on large-diameter weighted graphs (4.5x on
    /// grid:4096x4096,w=100 with persistent CTA workers on an H100); a run that needs more
    /// fails with the capacity it needs.
    pub fn state<'a>(
        &'a self,
        offsets: &'a [u32],
        cols: &'a [u32],
        weights: &'a [W],
        capacity: u64,
        order: Order<W>,
    ) -> <W::Relax as TaskSet>::State<'a> {
        self.state_with(
            offsets,
            cols,
            weights,
            capacity,
            order,
            Prune::default_for(order),
        )
    }

    /// [`SsspArrays::state`] with the pruning of stale tasks chosen ([`Prune`]). The distances
    /// are Dijkstra's whatever it is; only the work and the time differ.
    pub fn state_with<'a>(
        &'a self,
        offsets: &'a [u32],
        cols: &'a [u32],
        weights: &'a [W],
        capacity: u64,
        order: Order<W>,
        prune: Prune,
    ) -> <W::Relax as TaskSet>::State<'a> {
        let work = PriorityQueue::with_capacity(capacity);
        let work = match order {
            Order::Fifo => work.unordered(),
            Order::Priority { delta, slack } => work.delta(delta).advance_slack(slack),
        };
        W::state(offsets, cols, weights, self.dist.view(), work, prune)
    }
}

/// The advance slack a priority run of the bench and demo uses when none is given: the
/// threshold may advance while at most 512 items of the band are in flight, so the next band overlaps
/// the tail of the current one. On one H100 (persistent CTA workers) it cut the time of the
/// default delta on every graph measured but kron:22 (unchanged): luxembourg_osm 4.79 to 3.66
/// ms, delaunay_n16 1.20 to 1.04, geo:1M 12.6 to 11.0, grid:4096x4096 62.3 to 55.5; 4096 and
/// 32768 gave back work on the meshes (docs/results/2026-11-23-advance-slack-h100.md).
/// [`Order::priority`] keeps 0 (each advance waits for its band).
pub const DEFAULT_SLACK: u64 = 512;

/// The order an SSSP run serves improved vertices in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Order<W = u32> {
    /// As pushed.
    Fifo,
    /// Distances below a threshold first; the threshold advances by `delta` (above 0; a run
    /// given 0 fails with the queue's error), persistent runs once at most `slack` near items
    /// are in flight ([`PriorityQueue::advance_slack`]; 0: once the near band is done).
    Priority { delta: W, slack: u64 },
}

impl<W> Order<W> {
    /// Priority order with `delta` and no slack (each advance waits for the band to finish).
    pub fn priority(delta: W) -> Order<W> {
        Order::Priority { delta, slack: 0 }
    }

    /// `fifo`, or `priority` with `delta`.
    pub fn name(self) -> &'static str {
        match self {
            Order::Fifo => "fifo",
            Order::Priority { .. } => "priority",
        }
    }
}

/// Which stale tasks relax nothing. A task is stale when its vertex has got a shorter
/// distance since its push: that distance's own push is queued too and will relax the
/// out-edges again. Running the stale task anyway (with the shorter distance) spreads the
/// improvement sooner, at the cost of relaxing the edges twice; on a hub that is 100 K edges.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prune {
    /// Every stale task runs (FIFO order's default: the shorter distance's push may run much
    /// later).
    Never,
    /// No stale task runs.
    Always,
    /// Stale tasks of vertices with more than this many out-edges relax nothing; the others
    /// run.
    Above(u32),
}

impl Prune {
    /// The default of priority order: prune the stale tasks of vertices with more than
    /// [`PRUNE_ABOVE`] out-edges.
    pub const PRIORITY: Prune = Prune::Above(PRUNE_ABOVE);

    /// The default for `order`: [`Prune::Never`] in FIFO order, [`Prune::PRIORITY`] in
    /// priority order.
    pub fn default_for<W>(order: Order<W>) -> Prune {
        match order {
            Order::Fifo => Prune::Never,
            Order::Priority { .. } => Prune::PRIORITY,
        }
    }

    /// The state's `prune_above`: out-edges a stale task may have and still run.
    pub fn above(self) -> u32 {
        match self {
            Prune::Never => u32::MAX,
            Prune::Always => 0,
            Prune::Above(d) => d,
        }
    }

    /// `on`, `off` or `above:D` (the bench's `--prune-stale`).
    pub fn parse(s: &str) -> Option<Prune> {
        match s.trim() {
            "on" => Some(Prune::Always),
            "off" => Some(Prune::Never),
            other => other
                .strip_prefix("above:")
                .and_then(|d| d.parse().ok())
                .map(Prune::Above),
        }
    }
}

impl std::fmt::Display for Prune {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Prune::Never => f.write_str("off"),
            Prune::Always => f.write_str("on"),
            Prune::Above(d) => write!(f, "above:{d}"),
        }
    }
}

/// Out-edges above which a stale task of a priority run relaxes nothing ([`Prune::PRIORITY`]).
/// On one H100 (persistent CTA workers, default delta and slack) 32 against pruning every
/// stale task: delaunay_n16 1.060 -> 0.986 ms, geo:1M 10.98 -> 9.57, grid:4096x4096 54.8 ->
/// 53.5, luxembourg_osm unchanged, kron:22 11.44 -> 11.99 (its hubs' stale tasks stay
/// pruned; pruning none took 25.4 ms there). docs/results/2026-11-23d-prune-stale-h100.md.
pub const PRUNE_ABOVE: u32 = 32;

/// An edge weight shortest paths cannot take ([`check_weights`]).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error(
    "SSSP edge {u} -> {v} (column entry {entry}) has weight {value}: shortest paths need weights of 0 or more (a negative edge makes a negative cycle in an undirected graph, and a NaN no distance at all); fix or drop that edge"
)]
pub struct BadWeight {
    /// The edge's source and target.
    pub u: u32,
    pub v: u32,
    /// Its index in `cols` (and `weights`).
    pub entry: usize,
    pub value: f64,
}

/// Checks that every weight of the CSR `offsets`/`cols` is 0 or more (not NaN): what
/// [`SsspArrays::state`] assumes and does not check. u32 weights always pass. `weights` has
/// one weight per entry of `cols` (a shorter list is checked as far as it goes); the edge of a
/// bad weight is named by its source (from `offsets`) and target.
pub fn check_weights<W: Weight>(
    offsets: &[u32],
    cols: &[u32],
    weights: &[W],
) -> Result<(), BadWeight> {
    let usable = |w: f64| w >= 0.0; // false for a NaN too
    let Some(entry) = weights.iter().position(|&w| !usable(w.into())) else {
        return Ok(());
    };
    // The row holding `entry`: the last offset at or below it.
    let u = offsets
        .partition_point(|&o| o as usize <= entry)
        .saturating_sub(1);
    Err(BadWeight {
        u: u as u32,
        v: cols.get(entry).copied().unwrap_or(u32::MAX),
        entry,
        value: weights[entry].into(),
    })
}

/// The band that keeps the work low: twice the mean edge weight over the mean out-degree (at
/// least 1), about the largest weight over the degree, the band Meyer and Sanders' analysis of
/// delta-stepping suggests for random weights: a vertex's tasks mostly come after its final
/// distance. On one H100 it did 1.02-5.0 tasks per reached vertex on five graphs, but its many
/// advances (each drains the near ring and passes over the whole far ring) made it slower
/// than FIFO order on all but the grid (docs/results/2026-11-23-sssp-priority-h100.md).
pub fn band_delta(offsets: &[u32], weights: &[u32]) -> u32 {
    u32::delta_of_bands(band_width(offsets, weights), 1)
}

/// Twice the mean edge weight over the mean out-degree (at least 1); 0 without edges.
fn band_width<W: Weight>(offsets: &[u32], weights: &[W]) -> f64 {
    if weights.is_empty() {
        return 0.0;
    }
    let vertices = offsets.len().saturating_sub(1).max(1) as f64;
    let mean_weight = weights.iter().map(|&w| w.into()).sum::<f64>() / weights.len() as f64;
    let mean_degree = weights.len() as f64 / vertices;
    2.0 * mean_weight / mean_degree.max(1.0)
}

/// The delta a priority run uses when none is given: 64 bands of twice the mean weight over
/// the mean degree (u32: 64 [`band_delta`]s), the fastest of 1, 4,
/// 16 and 64 bands on every graph measured on one H100 (fewer advances, still 1.2-12 tasks per
/// vertex against FIFO's 2.7-191; docs/results/2026-11-23-sssp-priority-h100.md).
///
/// For less work, a sixteenth of it (4 bands): on three road-like graphs that fill an H100
/// (grid:4096x4096 with and without dropped edges, a 4 M-vertex geometric graph of degree 5)
/// that did 1.46-1.92 tasks per reached vertex, 1.4-1.8x the default's time and still 1.46-8.7x
/// faster than FIFO order (docs/results/2026-11-25b-road-bands-h100.md).
pub fn default_delta<W: Weight>(offsets: &[u32], weights: &[W]) -> W {
    W::delta_of_bands(band_width(offsets, weights), 64)
}
