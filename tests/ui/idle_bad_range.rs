use atos::prelude::*;

#[atos::state]
pub struct G<'a> {
    pub hits: Atomics<'a, u32>,
    pub work: Queue<'a, u32>,
    pub scale: f32,
}

#[atos::idle(range = "scale")]
fn rescan(i: u32, s: &G) {
    if s.hits.load(i) == 0 {
        s.work.push(i);
    }
}

fn main() {}
