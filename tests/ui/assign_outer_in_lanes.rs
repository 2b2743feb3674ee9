use atos::prelude::*;

#[atos::state]
pub struct G<'a> {
    pub cols: Slice<'a, u32>,
    pub depth: Atomics<'a, u32>,
    pub work: Queue<'a, u32>,
}

#[atos::task]
fn t(v: u32, s: &G) {
    let mut total = 0u32;
    for e in lanes(0..v) {
        total = total * 2 + s.cols[e];
    }
    s.depth.store(v, total);
}

fn main() {}
