use atos::prelude::*;

#[atos::state]
pub struct G<'a> {
    pub cols: Slice<'a, u32>,
    pub hits: Atomics<'a, u32>,
    pub work: Queue<'a, u32>,
}

#[atos::task]
fn t(v: u32, s: &G) {
    for mut e in lanes(0..v) {
        let a = s.cols[e];
        e += 1;
        s.hits.fetch_add(a, s.cols[e]);
    }
}

fn main() {}
