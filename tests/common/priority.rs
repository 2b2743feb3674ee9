//! A priority-queue program with f32 keys: SSSP over f32 weights (tests/priority.rs runs it
//! against Dijkstra; tests/nvrtc_compile.rs compiles it).

use atos::{Atomics, PriorityQueue, Slice, lanes};

#[atos::state]
pub struct FloatSssp<'a> {
    pub offsets: Slice<'a, u32>,
    pub cols: Slice<'a, u32>,
    pub weights: Slice<'a, f32>,
    pub dist: Atomics<'a, f32>,
    pub work: PriorityQueue<'a, u32, f32>,
}

#[atos::task(worker = "warp", fetch = 4)]
pub fn relax_f32(v: u32, s: &FloatSssp) {
    let d = s.dist.load(v);
    for e in lanes(s.offsets[v]..s.offsets[v + 1]) {
        let u = s.cols[e];
        let nd = d + s.weights[e];
        if s.dist.load(u) > nd && s.dist.fetch_min(u, nd) > nd {
            s.work.push(u, nd);
        }
    }
}
