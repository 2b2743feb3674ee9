use atos::prelude::*;

#[atos::state]
pub struct G<'a> {
    pub cols: Slice<'a, u32>,
    pub depth: Atomics<'a, u32>,
    pub work: Queue<'a, u32>,
}

#[atos::task]
fn t(v: f32, s: &G) {
    s.work.push(1);
}

fn main() {}
