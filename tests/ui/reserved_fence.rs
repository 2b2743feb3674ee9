use atos::prelude::*;

#[atos::state]
pub struct G<'a> {
    pub flag: Atomics<'a, u32>,
    pub work: Queue<'a, u32>,
}

// `fence` is `atos::fence()` in device code: a device function may not take the name.
#[atos::device]
fn fence(x: u32) -> u32 {
    x + 1
}

#[atos::task]
fn t(v: u32, s: &G) {
    s.flag.store(v, fence(v));
}

fn main() {}
