use atos::prelude::*;

#[atos::state]
pub struct G {
    pub n: u32,
}

fn main() {}
