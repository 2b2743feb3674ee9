use atos::prelude::*;

#[atos::state]
pub struct G<'a> {
    pub near: Queue<'a, u32>,
    pub far: Queue<'a, u32>,
}

#[atos::task]
fn t(v: u32, s: &G) {
    s.far.push(v);
}

fn main() {}
