//! BFS with the depth as priority: the speculative BFS task on a [`PriorityQueue`] keyed by
//! the depth a push found, so the scheduler serves shallow vertices first.
//!
//! With `delta` 1 the order is level by level (a vertex runs once its depth is final, as under
//! bulk-synchronous BFS) but without a barrier between levels: the groups that finish a level
//! early start on the far items of the next. A larger delta lets several levels run at once,
//! with the speculation of [`crate::apps::bfs`] inside the band. Depths equal the plain BFS's
//! in every order: the same `fetch_min` relaxation, only the order differs.

use crate::{AtomicArray, Atomics, PriorityQueue, Slice, lanes};

#[atos::state]
pub struct BfsPriorityState<'a> {
    pub offsets: Slice<'a, u32>,
    pub cols: Slice<'a, u32>,
    pub depth: Atomics<'a, u32>,
    /// Vertices keyed by the depth their push found.
    pub work: PriorityQueue<'a, u32, u32>,
}

/// Relaxes `v`'s neighbours with its current depth plus one; pushes each one it improved,
/// keyed by that depth.
#[atos::task(worker = "warp", fetch = 1)]
pub fn visit(v: u32, s: &BfsPriorityState) {
    let next = s.depth.load(v) + 1;
    for e in lanes(s.offsets[v]..s.offsets[v + 1]) {
        let u = s.cols[e];
        if s.depth.lower(u, next) {
            s.work.push(u, next);
        }
    }
}

/// The delta a run uses when none is given: one level per band.
pub const DEFAULT_DELTA: u32 = 1;

/// The state over a CSR and its depths (from [`crate::apps::bfs::initial_depths`]); each of
/// the queue's rings holds `capacity` waiting vertices; the threshold advances by `delta`
/// levels.
pub fn state<'a>(
    offsets: &'a [u32],
    cols: &'a [u32],
    depth: &'a AtomicArray<u32>,
    capacity: u64,
    delta: u32,
) -> BfsPriorityState<'a> {
    BfsPriorityState {
        offsets: Slice::new(offsets),
        cols: Slice::new(cols),
        depth: depth.view(),
        // Keys below 1 first: the source's task, whose pushes carry depth 1.
        work: PriorityQueue::with_capacity(capacity)
            .delta(delta.max(1))
            .start(1),
    }
}
