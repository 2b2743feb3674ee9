//! Asynchronous push PageRank (Atos ICPP'22, Algorithm 4).
//!
//! Each vertex holds a rank and a residue (`f32`). A task takes its vertex's residue (an atomic
//! swap to zero), adds it to the rank and pushes `damping * residue / out-degree` to every
//! neighbour's residue (atomic add). A neighbour whose residue crosses the tolerance `epsilon`
//! is queued unless it already waits in the queue (a per-vertex flag taken with `swap`, cleared
//! when its task starts), so a vertex is queued at most once at a time. The idle hook re-scans
//! the vertices (each idle worker a window of `fetch` of them, the paper's `Check_Size`) and
//! queues those still above `epsilon`: the run ends exactly when the queue is empty, nothing is
//! in flight and a full re-scan found nothing, so every residue is at most `epsilon`.
//!
//! With `PageRankState::push_crossings` off, the push queues nothing: each edge is one
//! `accumulate` (on one GPU a `red`, an atomic add nothing waits on), and the re-scan alone
//! finds the vertices above `epsilon` (the original's persistent `pr` kernels work that way).
//! The end is the same. On one H100 that form is faster on kron:22 and slower on meshes, where
//! the push's queueing beats waiting for the next sweep
//! (`docs/results/2026-11-23-pagerank-balanced-h100.md`). Spread over several GPUs it is the
//! form that combines: each device sums its shares for another device's vertex in its combine
//! copy, and the re-scan's sweep delivers them, one add per vertex instead of one per edge
//! (docs/runtime.md, "Combined adds").
//!
//! The model is atos-graph's reference (`reference::pagerank`): ranks are not normalized
//! (`x[v] = (1 - d) + d * sum of x[u] / outdeg(u)`), every vertex starts with residue `1 - d`,
//! and a vertex without out-edges keeps what reaches it (its rank flows nowhere), as the
//! original Atos `pr` does. At the end the L1 distance to the exact ranks is at most what the
//! residues left can still add, their sum over `1 - d` (so at most `n * epsilon / (1 - d)`
//! with every residue at most `epsilon`), plus `f32` rounding: what
//! `atos_graph::reference::pagerank::check_converged` checks after every test and GPU run.

use crate::{AtomicArray, Atomics, Queue, Slice, lanes};

#[atos::state]
pub struct PageRankState<'a> {
    pub offsets: Slice<'a, u32>,
    pub cols: Slice<'a, u32>,
    pub rank: Atomics<'a, f32>,
    pub residue: Atomics<'a, f32>,
    /// 1 while the vertex waits in `work`.
    pub queued: Atomics<'a, u32>,
    pub work: Queue<'a, u32>,
    pub n: u32,
    pub epsilon: f32,
    pub damping: f32,
    /// Queue a neighbour whose residue crosses `epsilon` from the push (`true`, Algorithm 4 as
    /// written), or leave every queueing to the re-scan (`false`: each edge is then one atomic
    /// add whose result nobody reads, as the original's persistent `pr` kernels do).
    pub push_crossings: bool,
}

/// Moves `v`'s residue into its rank and spreads the damped share over its out-edges.
///
/// Written in the balanced shape (`let`s, then one `lanes` loop): a warp or CTA worker that
/// fetches several vertices lays their edges end to end over all its threads, which is what
/// low-degree graphs need. A vertex with nothing to send (its residue already taken, no
/// out-edges, or a share that underflows to zero) gets an empty range.
#[atos::task(worker = "warp", fetch = 1)]
pub fn push_rank(v: u32, s: &PageRankState) {
    // Cleared before the residue is taken: a share arriving from here on may queue `v` again.
    let _was_queued = s.queued.swap(v, 0);
    let r = s.residue.swap(v, 0.0);
    let _old_rank = s.rank.fetch_add(v, r);
    let lo = s.offsets[v];
    let degree = s.offsets[v + 1] - lo;
    // r / 0 is infinite or NaN for a vertex without out-edges: its range is empty either way.
    let share = s.damping * r / degree as f32;
    let hi = if share > 0.0 { lo + degree } else { lo };
    for e in lanes(lo..hi) {
        let u = s.cols[e];
        if s.push_crossings {
            let old = s.residue.fetch_add(u, share);
            if old + share > s.epsilon && s.queued.swap(u, 1) == 0 {
                s.work.push(u);
            }
        } else {
            s.residue.accumulate(u, share);
        }
    }
}

/// The re-scan: a vertex still above the tolerance and not queued gets a task.
#[atos::idle(range = "n", worker = "thread", fetch = 64)]
pub fn rescan(i: u32, s: &PageRankState) {
    if s.residue.load(i) > s.epsilon && s.queued.swap(i, 1) == 0 {
        s.work.push(i);
    }
}

/// The program: the push task and the re-scan.
pub type Tasks = (push_rank::Task, rescan::Task);

/// A tolerance or damping factor a run cannot take ([`check_tolerance`]).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ToleranceError {
    #[error("PageRank damping {0}: use a number above 0 and below 1 (0.85 is usual)")]
    Damping(f32),
    #[error(
        "PageRank tolerance {epsilon:e}: use a normal f32 of at least {:e}, below which f32 rounding can keep residues from shrinking and the run from ending, and below 1 - damping = {ceiling}, where every residue starts, so that something runs",
        f32::MIN_POSITIVE
    )]
    Epsilon { epsilon: f32, ceiling: f32 },
}

/// Checks the `epsilon` and `damping` a state is built with ([`PageRankArrays::state`] and
/// `pagerank_bsp`'s take them on trust): damping strictly between 0 and 1, and epsilon a
/// normal f32 (at least `f32::MIN_POSITIVE`, about 1.2e-38) below `1 - damping`. An audit's
/// CPU runs with subnormal tolerances (1e-45, 2e-45) did not end, nor stop at the bench's
/// timeout; with NaN every comparison is false, and its run returned with residues of 0.23
/// unspent; at `1 - damping` or above no vertex's residue is above the tolerance, so nothing
/// runs.
pub fn check_tolerance(epsilon: f32, damping: f32) -> Result<(), ToleranceError> {
    if !(damping > 0.0 && damping < 1.0) {
        return Err(ToleranceError::Damping(damping));
    }
    let ceiling = 1.0 - damping;
    if !(epsilon >= f32::MIN_POSITIVE && epsilon < ceiling) {
        return Err(ToleranceError::Epsilon { epsilon, ceiling });
    }
    Ok(())
}

/// Host arrays of a run: ranks, residues and flags, every vertex seeded.
pub struct PageRankArrays {
    pub rank: AtomicArray<f32>,
    pub residue: AtomicArray<f32>,
    pub queued: AtomicArray<u32>,
    pub seeds: Vec<u32>,
}

impl PageRankArrays {
    /// Every vertex with residue `1 - damping`, queued.
    pub fn new(vertices: usize, damping: f32) -> PageRankArrays {
        let a = PageRankArrays {
            rank: AtomicArray::filled(vertices, 0.0),
            residue: AtomicArray::filled(vertices, 0.0),
            queued: AtomicArray::filled(vertices, 0),
            seeds: (0..vertices as u32).collect(),
        };
        a.reset(damping);
        a
    }

    /// Back to the start of a run: rank 0, residue `1 - damping`, every vertex queued.
    pub fn reset(&self, damping: f32) {
        self.rank.fill(0.0);
        self.residue.fill(1.0 - damping);
        self.queued.fill(1);
    }

    /// The state over `offsets`/`cols` (a CSR with u32 offsets), for an `epsilon` and
    /// `damping` that [`check_tolerance`] accepts.
    pub fn state<'a>(
        &'a self,
        offsets: &'a [u32],
        cols: &'a [u32],
        epsilon: f32,
        damping: f32,
    ) -> PageRankState<'a> {
        let n = self.rank.len();
        PageRankState {
            offsets: Slice::new(offsets),
            cols: Slice::new(cols),
            rank: self.rank.view(),
            residue: self.residue.view(),
            queued: self.queued.view(),
            // A vertex waits at most once at a time.
            work: Queue::with_capacity(n as u64 + 1),
            n: n as u32,
            epsilon,
            damping,
            push_crossings: true,
        }
    }
}
