//! Bulk-synchronous push PageRank (Atos ICPP'22, Algorithm 3): the BSP form that
//! [`apps::pagerank`](super::pagerank) (Algorithm 4) is measured against.
//!
//! Two task kinds alternate level by level under [`Strategy::Bsp`](crate::Strategy::Bsp), as a
//! BSP framework's *advance* and *filter* kernels do:
//!
//! - **advance** (queue `frontier`): a frontier vertex takes the residue it held when the level
//!   began, adds it to its rank and sends `damping * residue / out-degree` to every neighbour's
//!   `incoming` (atomic add). The first share to reach a neighbour in a level (the add that
//!   found `incoming` at zero) queues the neighbour for the filter, so each is filtered once.
//! - **filter** (queue `gather`): moves `incoming` into the vertex's residue and puts the vertex
//!   on the next frontier if the residue is above `epsilon`.
//!
//! Shares sent during a level are not seen until the next one (they wait in `incoming`), so an
//! advance always pushes the residue of the level's start: the synchronous (Jacobi) iteration
//! the asynchronous version relaxes. Each level is one launch and ends at a barrier; an
//! iteration is two levels. The model, the start (every vertex with residue `1 - damping`, all
//! on the first frontier), dangling vertices and the error bound are those of
//! [`apps::pagerank`](super::pagerank): the run ends when a filter level puts nothing on the
//! frontier, so every residue is at most `epsilon` and
//! `atos_graph::reference::pagerank::check_converged` applies.
//!
//! A per-vertex flag (as in the asynchronous version) keeps a vertex on the frontier at most
//! once, so both queues hold at most `n` items under any strategy. Under a persistent strategy
//! the program still computes PageRank (advances and filters then overlap), but it is no
//! longer bulk-synchronous: measure it with `Strategy::Bsp`.

use super::pagerank::PageRankArrays;
use crate::{AtomicArray, Atomics, Queue, Slice, lanes};

#[atos::state]
pub struct PageRankBspState<'a> {
    pub offsets: Slice<'a, u32>,
    pub cols: Slice<'a, u32>,
    pub rank: Atomics<'a, f32>,
    pub residue: Atomics<'a, f32>,
    /// Shares sent to the vertex during the current advance level.
    pub incoming: Atomics<'a, f32>,
    /// 1 while the vertex waits in `frontier`.
    pub queued: Atomics<'a, u32>,
    pub frontier: Queue<'a, u32>,
    pub gather: Queue<'a, u32>,
    pub epsilon: f32,
    pub damping: f32,
}

/// The advance: pushes the vertex's residue along its out-edges into `incoming`.
#[atos::task(queue = "frontier", worker = "warp", fetch = 1)]
pub fn advance(v: u32, s: &PageRankBspState) {
    let _was_queued = s.queued.swap(v, 0);
    let r = s.residue.swap(v, 0.0);
    let _old_rank = s.rank.fetch_add(v, r);
    let lo = s.offsets[v];
    let degree = s.offsets[v + 1] - lo;
    let share = s.damping * r / degree as f32;
    // Nothing to send (no residue, no out-edges, or a share that underflows to zero, as with
    // an epsilon of ~1e-40): an empty range. The balanced shape (`let`s, then one `lanes`
    // loop) lets a warp or CTA worker spread several vertices' edges over all its threads.
    let hi = if share > 0.0 { lo + degree } else { lo };
    for e in lanes(lo..hi) {
        let u = s.cols[e];
        // share > 0, so exactly one add per level finds zero: it queues the filter.
        if s.incoming.fetch_add(u, share) == 0.0 {
            s.gather.push(u);
        }
    }
}

/// The filter: the level's shares join the residue; above the tolerance, the vertex is on the
/// next frontier.
#[atos::task(queue = "gather", worker = "thread", fetch = 64)]
pub fn filter(u: u32, s: &PageRankBspState) {
    let got = s.incoming.swap(u, 0.0);
    let r = s.residue.fetch_add(u, got) + got;
    if r > s.epsilon && s.queued.swap(u, 1) == 0 {
        s.frontier.push(u);
    }
}

/// The program: advance and filter.
pub type Tasks = (advance::Task, filter::Task);

/// Host arrays of a run: the asynchronous version's ranks, residues, flags and seeds, plus the
/// level's incoming shares.
pub struct PageRankBspArrays {
    pub ranks: PageRankArrays,
    pub incoming: AtomicArray<f32>,
}

impl PageRankBspArrays {
    /// Every vertex with residue `1 - damping`, on the first frontier.
    pub fn new(vertices: usize, damping: f32) -> PageRankBspArrays {
        PageRankBspArrays {
            ranks: PageRankArrays::new(vertices, damping),
            incoming: AtomicArray::filled(vertices, 0.0),
        }
    }

    /// Back to the start of a run.
    pub fn reset(&self, damping: f32) {
        self.ranks.reset(damping);
        self.incoming.fill(0.0);
    }

    /// The state over `offsets`/`cols` (a CSR with u32 offsets), for an `epsilon` and
    /// `damping` that [`check_tolerance`](super::pagerank::check_tolerance) accepts.
    pub fn state<'a>(
        &'a self,
        offsets: &'a [u32],
        cols: &'a [u32],
        epsilon: f32,
        damping: f32,
    ) -> PageRankBspState<'a> {
        let n = self.incoming.len();
        PageRankBspState {
            offsets: Slice::new(offsets),
            cols: Slice::new(cols),
            rank: self.ranks.rank.view(),
            residue: self.ranks.residue.view(),
            incoming: self.incoming.view(),
            queued: self.ranks.queued.view(),
            // A level holds each vertex at most once in each queue.
            frontier: Queue::with_capacity(n as u64 + 1),
            gather: Queue::with_capacity(n as u64 + 1),
            epsilon,
            damping,
        }
    }
}
