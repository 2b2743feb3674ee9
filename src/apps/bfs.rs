//! Speculative BFS (Atos ICPP'22, Listing 4 / Algorithm 2).
//!
//! A task is a vertex whose depth just dropped. It relaxes its neighbours with `lower`
//! (`fetch_min` asked only whether it improved, so a plain load skips the neighbours already as
//! close) and pushes each one it improved. There are no levels and no barriers: a vertex can be
//! processed more than once when a shorter path reaches it later, which is the speculation
//! the workload ratio (vertices popped / vertices reached) measures.

use crate::{Atomics, Queue, QueueMode, Slice, lanes};

/// Depth of a vertex no path has reached.
pub const UNREACHED: u32 = u32::MAX;

#[atos::state]
pub struct BfsState<'a> {
    pub offsets: Slice<'a, u32>,
    pub cols: Slice<'a, u32>,
    pub depth: Atomics<'a, u32>,
    pub work: Queue<'a, u32>,
}

#[atos::task(worker = "warp", fetch = 1)]
pub fn bfs(v: u32, s: &BfsState) {
    let next = s.depth.load(v) + 1;
    for e in lanes(s.offsets[v]..s.offsets[v + 1]) {
        let u = s.cols[e];
        // `lower` = `fetch_min(u, next) > next`, with a plain load first: most edges reach
        // vertices already as close, and a load is far cheaper than an atomic. On several GPUs
        // a device's filter copy of the depths answers most of these for the other's vertices.
        if s.depth.lower(u, next) {
            s.work.push(u);
        }
    }
}

/// A queue large enough for BFS on a graph with `vertices` and `edges` (directed) in either
/// mode, in practice: speculation pushes a vertex once per improvement of its depth, so a
/// linear queue (which holds every push) needs the pushes per vertex times the vertices, and a
/// ring only the vertices waiting at once (far fewer). No capacity bounds speculation in
/// general; `vertices + edges + 1` allows `1 + edges / vertices` pushes per vertex, which a
/// road graph (2 edges per vertex) needs: one thread per task on luxembourg_osm pushed 239,372
/// items through a linear queue, more than its 239,332 edges (an H200, 2026-11-28). A run that
/// needs more fails with the capacity it needs instead of writing past the end.
pub fn default_queue_capacity(vertices: usize, edges: usize) -> u64 {
    vertices as u64 + edges as u64 + 1
}

/// Result of one BFS run: depths per vertex and the run's stats.
pub struct BfsRun {
    pub depths: Vec<u32>,
    pub stats: crate::Stats,
}

impl BfsRun {
    /// Vertices with a finite depth.
    pub fn reached(&self) -> u64 {
        self.depths.iter().filter(|&&d| d != UNREACHED).count() as u64
    }

    /// Number of vertices whose depth differs from `reference`.
    pub fn mismatches(&self, reference: &[u32]) -> usize {
        mismatches(&self.depths, reference)
    }

    /// Tasks processed per vertex reached (1.0 = no speculation wasted; the papers' ratio).
    pub fn workload_ratio(&self) -> f64 {
        self.stats.popped as f64 / self.reached().max(1) as f64
    }
}

/// Where a BFS runs.
pub enum Executor<'p> {
    Cpu(&'p crate::CpuExecutor),
    Gpu(&'p crate::Program<bfs::Task>),
}

/// Number of vertices whose depth differs from `reference` (every vertex when the lengths
/// differ).
pub fn mismatches<T: PartialEq>(depths: &[T], reference: &[T]) -> usize {
    if depths.len() != reference.len() {
        return depths.len().max(reference.len());
    }
    depths.iter().zip(reference).filter(|(a, b)| a != b).count()
}

/// Depths before a run from `source`: 0 there, unreached elsewhere.
pub fn initial_depths(vertices: usize, source: u32) -> crate::AtomicArray<u32> {
    let depth = crate::AtomicArray::filled(vertices, UNREACHED);
    depth.view().store(source, 0);
    depth
}

/// The BFS state over a CSR, its depths and a queue of `mode` and `capacity`.
pub fn state<'a>(
    offsets: &'a [u32],
    cols: &'a [u32],
    depth: &'a crate::AtomicArray<u32>,
    capacity: u64,
    mode: QueueMode,
) -> BfsState<'a> {
    BfsState {
        offsets: Slice::new(offsets),
        cols: Slice::new(cols),
        depth: depth.view(),
        work: Queue::new(mode, capacity),
    }
}

/// BFS from `source` over the CSR `offsets`/`cols` with a queue of `mode` and `capacity`. A
/// malformed CSR or a source that is not a vertex is a [`RunError::Input`](crate::RunError)
/// before anything runs.
pub fn run(
    exec: &Executor,
    offsets: &[u32],
    cols: &[u32],
    source: u32,
    capacity: u64,
    mode: QueueMode,
) -> Result<BfsRun, crate::RunError> {
    let n = super::graph_check::traversal("BFS", offsets, cols, source)?;
    let depth = initial_depths(n, source);
    let state = state(offsets, cols, &depth, capacity, mode);
    let stats = match exec {
        Executor::Cpu(cpu) => cpu.run(bfs::Task, &state, &[source])?,
        Executor::Gpu(program) => program.run(&state, &[source])?,
    };
    Ok(BfsRun {
        depths: depth.to_vec(),
        stats,
    })
}
