use atos::prelude::*;

#[atos::state]
pub struct G<'a> {
    pub cols: Slice<'a, u32>,
    pub depth: Atomics<'a, u32>,
    pub work: Queue<'a, u32>,
}

#[atos::task]
fn t(v: u32, s: &G) {
    for e in lanes(0..v) {
        for f in lanes(0..e) {
            s.work.push(f);
        }
    }
}

fn main() {}
