use atos::prelude::*;

#[atos::state]
pub struct G<'a> {
    pub cols: Slice<'a, u32>,
    pub depth: Atomics<'a, u32>,
    pub work: Queue<'a, u32>,
}

#[atos::task(worker = "warp", batch = 4)]
fn t(v: u32, s: &G) {
    s.work.push(v);
}

fn main() {}
