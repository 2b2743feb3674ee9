use atos::prelude::*;

#[atos::state]
pub struct G<'a> {
    pub name: String,
    pub work: Queue<'a, u32>,
}

fn main() {}
