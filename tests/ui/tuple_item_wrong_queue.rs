use atos::prelude::*;

#[atos::state]
pub struct G<'a> {
    pub work: Queue<'a, (u32, u32)>,
}

#[atos::task]
fn t((v, d): (u32, f32), s: &G) {
    s.work.push((v, d as u32));
}

fn main() {}
