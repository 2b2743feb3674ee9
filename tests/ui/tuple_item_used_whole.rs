use atos::prelude::*;

#[atos::state]
pub struct G<'a> {
    pub work: Queue<'a, (u32, f32)>,
    pub seen: Atomics<'a, u32>,
}

#[atos::task]
fn t(item: (u32, f32), s: &G) {
    let copy = item;
    s.seen.store(copy.0, 1);
}

fn main() {}
