use atos::prelude::*;

#[atos::state]
pub struct G<'a> {
    pub flag: Atomics<'a, u32>,
    pub work: Queue<'a, u32>,
}

// A device function's name becomes a CUDA function: no raw identifiers, named or called.
#[atos::device]
fn r#helper(x: u32) -> u32 {
    x + 1
}

#[atos::task]
fn t(v: u32, s: &G) {
    s.flag.store(v, r#helper(v));
}

fn main() {}
