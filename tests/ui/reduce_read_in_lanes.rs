use atos::prelude::*;

#[atos::state]
pub struct G<'a> {
    pub cols: Slice<'a, u32>,
    pub depth: Atomics<'a, u32>,
    pub rank: Atomics<'a, f32>,
    pub work: Queue<'a, u32>,
}

#[atos::task]
fn t(v: u32, s: &G) {
    let mut best = u32::MAX;
    for e in lanes(0..v) {
        if best > 3 {
            s.work.push(e);
        }
        best = best.min(s.cols[e]);
    }
    s.depth.store(v, best);
}

fn main() {}
