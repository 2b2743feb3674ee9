use atos::prelude::*;

#[atos::state]
pub struct G<'a> {
    pub cols: Slice<'a, u32>,
    pub depth: Atomics<'a, u32>,
    pub work: Queue<'a, u32>,
}

#[atos::task]
fn t(v: u32, s: &G) {
    match v {
        0 => s.work.push(1),
        _ => {}
    }
}

fn main() {}
