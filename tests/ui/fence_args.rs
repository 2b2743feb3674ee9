use atos::prelude::*;

#[atos::state]
pub struct G<'a> {
    pub flag: Atomics<'a, u32>,
    pub work: Queue<'a, u32>,
}

#[atos::task]
fn t(v: u32, s: &G) {
    s.flag.store(v, 1);
    atos::fence(1);
}

fn main() {}
