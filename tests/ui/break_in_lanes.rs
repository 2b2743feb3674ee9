use atos::prelude::*;

#[atos::state]
pub struct G<'a> {
    pub cols: Slice<'a, u32>,
    pub hits: Atomics<'a, u32>,
    pub work: Queue<'a, u32>,
}

#[atos::task]
fn t(v: u32, s: &G) {
    for e in lanes(0..v) {
        if s.cols[e] == 0 {
            break;
        }
        s.hits.fetch_add(e, 1);
    }
}

fn main() {}
