use atos::prelude::*;

#[atos::state]
pub struct G<'a> {
    pub work: Queue<'a, (u32, u32)>,
}

#[atos::task]
fn t(item: (u8, u8, u8, u8, u8), s: &G) {
    s.work.push((u32::from(item.0), u32::from(item.4)));
}

fn main() {}
