use atos::prelude::*;

#[atos::state]
pub struct G<'a> {
    pub small: Atomics<'a, i8>,
    pub work: Queue<'a, u32>,
}

fn main() {}
