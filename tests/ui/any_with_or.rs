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
    let mut found = false;
    for e in lanes(0..v) {
        found = found || s.cols[e] == 7;
    }
    if found {
        s.work.push(v);
    }
}

fn main() {}
