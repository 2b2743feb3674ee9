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
    if s.depth.compare_exchange(v, u32::MAX, 0).is_ok() {
        s.work.push(v);
    }
}

fn main() {}
