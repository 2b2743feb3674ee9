//! A task that touches every DSL feature, used by the NVRTC and CPU-executor tests.

use atos::prelude::*;

#[atos::state]
pub struct Features<'a> {
    pub weights: Slice<'a, i32>,
    pub codes: Slice<'a, u8>,
    pub sums: Atomics<'a, i64>,
    pub flags: Atomics<'a, u32>,
    pub mass: Atomics<'a, f32>,
    /// `[0, 8)`: float `fetch_min`s, `[8, 16)`: float `fetch_max`s.
    pub extremes: Atomics<'a, f64>,
    pub marks: Atomics<'a, bool>,
    pub small: Atomics<'a, u16>,
    pub tiny: Atomics<'a, u8>,
    /// `[0, limit / 2)`: signed `fetch_min`s, `[limit / 2, limit)`: signed `fetch_max`s.
    pub signed: Atomics<'a, i32>,
    /// `[0, limit / 2)`: 64-bit `fetch_add`s and `accumulate`s, `[limit / 2, limit)`: 64-bit
    /// `fetch_max`s.
    pub wide: Atomics<'a, u64>,
    /// What the reductions across lanes give.
    pub reduced: Atomics<'a, i64>,
    pub work: Queue<'a, u32>,
    pub limit: u32,
    pub scale: f32,
    pub shift: u8,
}

/// The arrays a feature run writes, and the run itself (on whichever executor `run` uses).
pub struct FeatureRun {
    pub weights: Vec<i32>,
    pub codes: Vec<u8>,
    pub sums: AtomicArray<i64>,
    pub flags: AtomicArray<u32>,
    pub mass: AtomicArray<f32>,
    pub extremes: AtomicArray<f64>,
    pub marks: AtomicArray<bool>,
    pub small: AtomicArray<u16>,
    pub tiny: AtomicArray<u8>,
    pub signed: AtomicArray<i32>,
    pub wide: AtomicArray<u64>,
    pub reduced: AtomicArray<i64>,
    pub limit: u32,
}

impl FeatureRun {
    /// What the feature task's loop that only reads and its `u8` and `u16` loops add to
    /// `sums[v]`, in plain Rust (tests/cpu_executor.rs; gpu_suite, which includes this file, compares with
    /// the CPU executor instead).
    #[allow(dead_code)]
    pub fn read_loops(&self, v: u32) -> i64 {
        let (mut mix, mut quarter) = (0u64, 0.0f32);
        for j in v % 7..v % 7 + v % 13 {
            let w = self.weights[(j & 3) as usize];
            let c = self.codes[(((w + 100) as u32 + j) & 31) as usize];
            mix += (w + 100) as u64 * (c as u64 + 1);
            quarter += j as f32 * 0.25;
        }
        let bytes: u32 = (0..(v % 5) * 60)
            .map(|b| self.codes[(b & 31) as usize] as u32)
            .sum();
        let halves: u32 = (0..(v % 3) * 300).map(|h| h & 7).sum();
        mix as i64 + quarter as i64 * 3 + bytes as i64 + halves as i64
    }

    /// The weights the GPU comparisons use (97 values in -100..=110, signs mixed).
    pub fn mixed_weights() -> Vec<i32> {
        (0..97).map(|i| (i * 37 % 211) - 100).collect()
    }

    pub fn new(weights: Vec<i32>, limit: u32) -> FeatureRun {
        let n = limit as usize;
        FeatureRun {
            weights,
            codes: (0..61u32).map(|i| (i * 97 % 256) as u8).collect(),
            sums: AtomicArray::filled(n, 0),
            flags: AtomicArray::filled(n, 0),
            mass: AtomicArray::filled(n, 0.0),
            extremes: AtomicArray::from_vec(
                (0..16)
                    .map(|i| if i < 8 { f64::MAX } else { f64::MIN })
                    .collect(),
            ),
            marks: AtomicArray::filled(n, false),
            small: AtomicArray::filled(n, 7),
            tiny: AtomicArray::filled(n, 0),
            signed: AtomicArray::from_vec(
                (0..n)
                    .map(|i| if i < n / 2 { i32::MAX } else { i32::MIN })
                    .collect(),
            ),
            wide: AtomicArray::filled(n, 0),
            reduced: AtomicArray::filled(n, 0),
            limit,
        }
    }

    /// Runs the feature task from vertex 0 with `run`; returns how many tasks it popped.
    pub fn run(&self, run: impl FnOnce(&Features) -> atos::Stats) -> u64 {
        let state = Features {
            weights: Slice::new(&self.weights),
            codes: Slice::new(&self.codes),
            sums: self.sums.view(),
            flags: self.flags.view(),
            mass: self.mass.view(),
            extremes: self.extremes.view(),
            marks: self.marks.view(),
            small: self.small.view(),
            tiny: self.tiny.view(),
            signed: self.signed.view(),
            wide: self.wide.view(),
            reduced: self.reduced.view(),
            work: Queue::with_capacity(u64::from(self.limit)),
            limit: self.limit,
            scale: 3.0,
            shift: 3,
        };
        run(&state).popped
    }

    /// Every written array as bit patterns, named, for an exact CPU/GPU comparison.
    pub fn bits(&self) -> Vec<(&'static str, Vec<u64>)> {
        fn b<T: atos::AtomicElem>(a: &AtomicArray<T>) -> Vec<u64> {
            a.to_vec().into_iter().map(atos::Elem::to_bits).collect()
        }
        vec![
            ("sums", b(&self.sums)),
            ("flags", b(&self.flags)),
            ("mass", b(&self.mass)),
            ("extremes", b(&self.extremes)),
            ("marks", b(&self.marks)),
            ("small", b(&self.small)),
            ("tiny", b(&self.tiny)),
            ("signed", b(&self.signed)),
            ("wide", b(&self.wide)),
            ("reduced", b(&self.reduced)),
        ]
    }
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
    let h = x as f64 * f64::EPSILON * 4.0e15 + f64::MIN_POSITIVE;
    let big = f > f32::MAX;
    let capped = if big || f < f32::MIN {
        0.0
    } else {
        f.min(f32::INFINITY)
    };
    let capped = capped.max(f32::NEG_INFINITY);
    bits as i64
        + (h * 1000.0) as i64
        + capped as i64
        + (w >> 20) as i64
        + (f * 8.0) as i64
        + (g * 65536.0) as i64
        + std::cmp::max(v, 7) as i64
        + f.min(2.5) as i64
        + (g - 40.0).max(f) as i64
}

/// Reversed and stepped loops (with `continue`), folded into one number.
#[atos::device]
pub fn walks(v: u32) -> u64 {
    let mut order = 0u64;
    for i in (0..v % 7).rev() {
        if i == 3 {
            continue;
        }
        order = order * 10 + i as u64;
    }
    for i in (v % 3..20u32).step_by(v as usize % 4 + 1) {
        if i == 11 {
            continue;
        }
        order += i as u64 * 1000;
    }
    for i in (4_294_967_290u32..u32::MAX).step_by(4) {
        order += (i - 4_294_967_290) as u64;
    }
    order
}

/// A device function taking the state, called from a `lanes` loop (each lane's effect its own).
#[atos::device]
pub fn set_flag(s: &Features, v: u32, i: u32) {
    let bit = 1u32 << i;
    s.flags.fetch_or(v, bit << 16);
}

/// A device function taking the state, called from uniform code (its pushes run once).
#[atos::device]
pub fn push_children(s: &Features, v: u32) -> u32 {
    let mut pushed = 0u32;
    for child in 1..3 {
        let c = 2 * v + child;
        if c < s.limit {
            s.work.push(c);
            pushed += 1;
        }
    }
    pushed
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
    // Task `v` owns `flags[v]`: swap, compare-and-swap, sub and and on it are deterministic.
    let before = s.flags.swap(v, steps + 5);
    let seen = s.flags.compare_and_swap(v, steps + 5, before);
    s.flags.fetch_and(v, !(1u32 << 31));
    s.sums.fetch_sub(v, (seen - before) as i64);
    s.mass.fetch_add(v, s.scale * 0.5);
    // `lower` / `raise` on the element task `v` owns: the answers are deterministic (both
    // move it when it is above 0), and it ends where it was.
    let cur = s.flags.load(v);
    if s.flags.lower(v, cur / 2) {
        s.sums.fetch_add(v, 10);
    }
    if s.flags.raise(v, cur) {
        s.sums.fetch_add(v, 100);
    }
    if s.mass.raise(v, -1.0) || !s.mass.lower(v, f32::MAX) {
        s.sums.fetch_add(v, 1000);
    }
    // Float moves: `mass[v]` (owned by task `v`) goes down to 0.25 and back up to where it was.
    let m = s.mass.load(v);
    if s.mass.lower(v, 0.25) {
        s.sums.fetch_add(v, 10_000);
    }
    if s.mass.raise(v, m) {
        s.sums.fetch_add(v, 100_000);
    }
    for i in lanes(0..4u32) {
        set_flag(s, v, i);
        // Dropped results in a lane (`red` on the GPU): lane i adds 2i to `sums[v]` and i/4 to
        // `mass[v]` in all (12 and 1.5 over the 4 lanes), the same in any interleaving
        // (quarters are exact in f32).
        s.sums.fetch_add(v, i as i64 * 3);
        s.mass.fetch_add(v, i as f32 * 0.5);
        s.sums.fetch_sub(v, i as i64);
        s.mass.fetch_sub(v, i as f32 * 0.25);
        // `accumulate` per lane: 1 + 2 + 3 + 4 into `wide[v / 2]`, which only takes adds.
        s.wide.accumulate(v / 2, i as u64 + 1);
    }
    // Float min/max, bool and narrow atomics: each element's operations commute, so the
    // result does not depend on the order tasks run in.
    let x = (v % 97) as f64 * 0.37 - 11.0;
    s.extremes.fetch_min(v % 8, x);
    s.extremes
        .fetch_max(8 + v % 8, if v % 5 == 0 { f64::NAN } else { x });
    // `or` into the first half, `xor` into the second: or and xor on one element do not commute.
    s.marks.fetch_or(v / 2, v % 3 == 0);
    s.marks.fetch_xor(v / 2 + s.limit / 2, v % 3 == 1);
    let code = s.codes[v % s.codes.len() as u32];
    let narrow: u8 = code.wrapping_mul(3).wrapping_add(s.shift) << s.shift;
    s.small.fetch_add(
        v / 3,
        u16::from(narrow)
            .wrapping_mul(300)
            .wrapping_add(code.leading_zeros() as u16),
    );
    s.tiny.fetch_max(v / 4, narrow ^ (v as u8));
    s.tiny.fetch_max(v / 4, code >> 1);
    // Signed min/max (negative values included) and 64-bit add/max, each half of its array
    // taking one operation, so every element's operations commute (spread over devices they
    // reach other devices' elements).
    let half = s.limit / 2;
    let sv = ((v * 7919) % 20001) as i32 - 10_000;
    s.signed.fetch_min(v / 2, sv);
    s.signed.fetch_max(half + v / 2, -sv);
    s.wide.fetch_add(v / 2, (v as u64) << 33 | 5);
    // From uniform code (once per task), into an element further away: spread over devices,
    // combined there and delivered by drains after batches and at the end.
    s.wide.accumulate(v / 6, v as u64 + 1);
    s.wide
        .fetch_max(half + v / 2, (v as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    // Reductions across lanes, read by uniform code after the loop. The float sum adds
    // multiples of 0.5 below 2^23, so every order gives the same bits.
    let mut lo = u32::MAX;
    let mut hi = 0i32;
    let mut total = 0i64;
    let mut big = false;
    let mut all_small = true;
    let mut parity = 0u32;
    let mut half = 0.0f32;
    let mut nearest = f64::INFINITY;
    for i in lanes(0..v % 45) {
        let x = s.weights[(v + i) % s.weights.len() as u32];
        lo = lo.min(x as u32);
        hi = std::cmp::max(hi, x);
        total += x as i64;
        big |= x > 90;
        all_small &= x < 50;
        parity ^= i;
        half += i as f32 * 0.5;
        nearest = (x as f64 * 0.3).min(nearest);
    }
    let facts = total * 3 + (lo % 1000) as i64 + hi as i64 + big as i64 * 7 + all_small as i64 * 11;
    s.reduced.store(
        v,
        facts + parity as i64 + half as i64 + (nearest.min(1e6) * 10.0) as i64 + walks(v) as i64,
    );
    // A loop that only reads: unchecked, it runs 4 strides a trip with branch-free index checks
    // (docs/dsl.md, "Loops that only read"). Its lengths (0 to 12, from starts 0 to 6) leave
    // every remainder of 4 on threads; neither index is the loop variable itself, so both are
    // checked in the loop. Quarters sum exactly in any order.
    let mut mix = 0u64;
    let mut quarter = 0.0f32;
    for j in lanes(v % 7..v % 7 + v % 13) {
        let w = s.weights[j & 3];
        let c = s.codes[((w + 100) as u32 + j) & 31];
        mix += (w + 100) as u64 * (c as u64 + 1);
        quarter += j as f32 * 0.25;
    }
    // `u8` and `u16` indices count in 32 bits: a CTA's stride of 256 is 0 as a u8, and a warp's
    // 32 from 224 wraps a u8 back below the end (up to 239 here).
    let mut bytes = 0u32;
    for b in lanes(0u8..(v % 5) as u8 * 60) {
        bytes += s.codes[(b & 31) as u32] as u32;
    }
    let mut halves = 0u32;
    for h in lanes(0u16..(v % 3) as u16 * 300) {
        halves += (h & 7) as u32;
    }
    s.sums.fetch_add(
        v,
        mix as i64 + quarter as i64 * 3 + bytes as i64 + halves as i64,
    );
    // Every read-modify-write with its previous value used, on the element task `v` owns:
    // each answer is known from the one before, and the sum of the differences is 0.
    let r0 = s.reduced.fetch_add(v, 1);
    let r1 = s.reduced.fetch_sub(v, 1);
    let r2 = s.reduced.fetch_max(v, r1 - 1);
    let r3 = s.reduced.fetch_min(v, r2 + 1);
    let r4 = s.reduced.fetch_xor(v, 6);
    let r5 = s.reduced.fetch_or(v, 0);
    let r6 = s.reduced.fetch_and(v, r5);
    s.reduced.fetch_xor(v, 6);
    s.sums.fetch_add(
        v,
        (r1 - r0 - 1) + (r2 - r0) + (r3 - r0) + (r4 - r0) + ((r4 ^ r5) - 6) + (r6 - r5),
    );
    // Dropped max and min per lane (`red` on the GPU). The store just before the first loop is
    // the leader's alone; the loop's `worker.sync()` must put it first, as the CPU does, or
    // the store lands last and `reduced[v]` ends at `kept - 1`.
    let kept = s.reduced.load(v);
    s.reduced.store(v, kept - 1);
    for i in lanes(0..2u32) {
        s.reduced
            .fetch_max(v, kept.max((v % 7) as i64 * 100_000_000) + i as i64 - 1);
    }
    for i in lanes(0..2u32) {
        s.reduced
            .fetch_min(v, 900_000_000 - (v % 5) as i64 - i as i64);
    }
    if s.flags.load(v) >> 16 != 15 {
        return;
    }
    let pushed = push_children(s, v);
    s.sums.fetch_add(v, pushed as i64 * 1_000_000);
}
