use atos::prelude::*;

#[atos::state]
pub struct G<'a> {
    pub hits: Atomics<'a, u32>,
    pub work: Queue<'a, u32>,
}

#[atos::task(worker = "thread", inline = true)]
fn count(v: u32, s: &G) {
    s.hits.fetch_add(v, 1);
}

fn main() {}
