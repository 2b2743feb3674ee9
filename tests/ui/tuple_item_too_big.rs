use atos::prelude::*;

#[atos::state]
pub struct G<'a> {
    pub work: Queue<'a, (u64, u32)>,
}

#[atos::task]
fn t((a, b, c): (u64, u64, u32), s: &G) {
    s.work.push((a + b, c));
}

fn main() {}
