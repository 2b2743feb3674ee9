use atos::prelude::*;

#[atos::state]
pub struct G<'a> {
    pub cols: Slice<'a, u32>,
    pub depth: Atomics<'a, u32>,
    pub rank: Atomics<'a, f32>,
    pub work: Queue<'a, u32>,
}

fn helper(x: u32) -> u32 {
    x + 1
}

#[atos::task]
fn t(v: u32, s: &G) {
    s.depth.store(v, helper(v));
}

fn main() {}
