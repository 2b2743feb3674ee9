//! Owner-computes BFS: the speculative BFS of [`crate::apps::bfs`] written so that each
//! relaxation runs where its vertex lives.
//!
//! `visit` sends `(u, depth + 1)` for each edge to the `relax` queue; `relax` is an inline task
//! (`#[atos::task(inline)]`), so a push of a vertex this device owns runs the relaxation at once
//! in the pushing lane, exactly the plain BFS's `lower`. Only a vertex another GPU
//! owns travels, as an 8-byte item to that GPU's receive ring, where its owner relaxes it with
//! local atomics. On one GPU every relaxation runs inline and nothing is queued in `relax`; spread
//! over several, a task body touches only its own device's depths, and the one link crossing
//! per remote edge is a push (batched by [`crate::Aggregation`] if asked), not a round trip.
//!
//! Depths equal the plain BFS's: the same relaxation, only where and when it runs differs.

use crate::apps::bfs::{BfsRun, initial_depths};
use crate::{AtomicArray, Atomics, Queue, QueueMode, Slice, lanes};

#[atos::state]
pub struct BfsOwnerState<'a> {
    pub offsets: Slice<'a, u32>,
    pub cols: Slice<'a, u32>,
    pub depth: Atomics<'a, u32>,
    /// Vertices whose depth just dropped.
    pub frontier: Queue<'a, u32>,
    /// A vertex and a depth a path reached it with.
    pub relax: Queue<'a, (u32, u32)>,
}

/// Offers every neighbour of `v` the depth `v`'s depth plus one.
#[atos::task(queue = "frontier", worker = "warp", fetch = 1)]
pub fn visit(v: u32, s: &BfsOwnerState) {
    let next = s.depth.load(v) + 1;
    for e in lanes(s.offsets[v]..s.offsets[v + 1]) {
        s.relax.push((s.cols[e], next));
    }
}

/// Lowers `u`'s depth to `d` if that is shorter, and queues `u` when it did (a plain load
/// first: most offers reach vertices already as close).
#[atos::task(queue = "relax", worker = "thread", fetch = 64, inline)]
pub fn relax((u, d): (u32, u32), s: &BfsOwnerState) {
    if s.depth.lower(u, d) {
        s.frontier.push(u);
    }
}

/// The program: `visit` first (the source is its seed), then `relax`.
pub type Tasks = (visit::Task, relax::Task);

/// The state over a CSR and its depths; both queues hold `capacity` items (a ring's relax
/// queue holds only the offers waiting for another device at once: on one device, none).
pub fn state<'a>(
    offsets: &'a [u32],
    cols: &'a [u32],
    depth: &'a AtomicArray<u32>,
    capacity: u64,
    mode: QueueMode,
) -> BfsOwnerState<'a> {
    BfsOwnerState {
        offsets: Slice::new(offsets),
        cols: Slice::new(cols),
        depth: depth.view(),
        frontier: Queue::new(mode, capacity),
        relax: Queue::new(mode, capacity),
    }
}

/// Vertices popped from `frontier` per vertex reached: the workload ratio of the plain BFS
/// (the offers in `relax` are its edges, not tasks of their own).
pub fn workload_ratio(stats: &crate::Stats, reached: u64) -> f64 {
    stats.queue("frontier").map_or(0, |q| q.popped) as f64 / reached.max(1) as f64
}

/// BFS from `source` on the CPU executor (persistent runs relax inline as the GPU does;
/// level-by-level runs queue every offer). A malformed CSR or a source that is not a vertex
/// is a [`RunError::Input`](crate::RunError) before anything runs.
pub fn run_cpu(
    cpu: &crate::CpuExecutor,
    offsets: &[u32],
    cols: &[u32],
    source: u32,
    capacity: u64,
) -> Result<BfsRun, crate::RunError> {
    let n = super::graph_check::traversal("BFS", offsets, cols, source)?;
    let depth = initial_depths(n, source);
    let state = state(offsets, cols, &depth, capacity, QueueMode::Ring);
    let stats = cpu.run(Tasks::default(), &state, &[source])?;
    Ok(BfsRun {
        depths: depth.to_vec(),
        stats,
    })
}
