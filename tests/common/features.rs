//! A task that touches every DSL feature, used by the NVRTC and CPU-executor tests.

use atos::prelude::*;

#[atos::state]
pub struct Features<'a> {
    pub weights: Slice<'a, i32>,
    pub sums: Atomics<'a, i64>,
    pub flags: Atomics<'a, u32>,
    pub mass: Atomics<'a, f32>,
    pub work: Queue<'a, u32>,
    pub limit: u32,
    pub scale: f32,
}

#[atos::device]
pub fn clamp_to(x: i32, hi: i32) -> i32 {
    if x > hi { hi } else { x }
}

#[atos::device]
pub fn collatz_steps(start: u64) -> u32 {
    let mut n = start;
    let mut steps = 0u32;
    while n != 1 {
        n = if n % 2 == 0 { n / 2 } else { 3 * n + 1 };
        steps += 1;
    }
    steps
}

/// The scalar methods of `ops::METHODS` and `std` helpers, folded into one number.
#[atos::device]
pub fn bits_and_floats(v: u32, x: f32) -> i64 {
    let wide = u64::from(v) * 2654435761;
    let bits = v.count_ones()
        + wide.leading_zeros()
        + v.trailing_zeros()
        + (v as i32).wrapping_mul(-7).count_ones()
        + (wide as i64).trailing_zeros();
    let w = v.wrapping_sub(1000).wrapping_add(v.wrapping_mul(3));
    let f = (x * v as f32).sqrt().mul_add(0.25, -(x.abs()));
    // `a * b + c` with an inexact product: fused and unfused results differ for many `v`, and
    // `* 65536.0` (exact) keeps the last bits visible (see `every_feature_computes_what_the_rust_says`).
    let g = v as f32 * 0.1 + 0.7;
    bits as i64
        + (w >> 20) as i64
        + (f * 8.0) as i64
        + (g * 65536.0) as i64
        + std::cmp::max(v, 7) as i64
        + f.min(2.5) as i64
        + (g - 40.0).max(f) as i64
}

/// Each task `v` records facts about itself and pushes `2v+1`, `2v+2` below `limit`: a binary
/// tree, so every vertex below `limit` is visited exactly once.
#[atos::task(worker = "warp", fetch = 2)]
pub fn features(v: u32, s: &Features) {
    let w = s.weights[v % s.weights.len() as u32];
    let clamped = clamp_to(w * 3 - 7, 100);
    s.sums.fetch_add(v, clamped as i64 - 1);
    s.sums.fetch_add(v, bits_and_floats(v, s.scale));
    let steps = collatz_steps(v as u64 + 1);
    s.flags.store(v, steps);
    s.mass.fetch_add(v, s.scale * 0.5);
    for i in lanes(0..4u32) {
        let bit = 1u32 << i;
        s.flags.fetch_or(v, bit << 16);
    }
    if s.flags.load(v) >> 16 != 15 {
        return;
    }
    for child in 1..3 {
        let c = 2 * v + child;
        if c < s.limit {
            s.work.push(c);
        }
    }
}
