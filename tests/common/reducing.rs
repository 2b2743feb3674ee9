//! A task of the extended balanced shape, written to check it: statements before the `lanes`
//! loop (an atomic whose result is unused, `let`s), a loop that reduces with every operation and
//! every type a balanced batch combines in shared memory, and a tail that reads the results,
//! stores them and pushes the item's next round (as colouring's `assign` queues its next
//! window). Run on the CPU executor in CI (`tests/balanced_reductions.rs`) and on the GPU in
//! `examples/gpu_suite.rs` (included there by path) for every worker kind and strategy, each
//! against [`reference`].

use atos::prelude::*;
use atos::{RunError, Stats};

#[atos::state]
pub struct Reducing<'a> {
    pub offsets: Slice<'a, u32>,
    pub vals: Slice<'a, i32>,
    /// Tasks run per vertex (the prefix's atomic).
    pub visits: Atomics<'a, u32>,
    /// [`FACTS`] results per (vertex, round).
    pub out: Atomics<'a, i64>,
    pub work: Queue<'a, (u32, u32)>,
    pub rounds: u32,
}

/// Results a task stores: one per reduction.
pub const FACTS: usize = 8;

/// Folds vertex `v`'s values (each scaled by the round) with min, max, sum, or, and, xor over
/// u32, i32, u64, i64 and bool; stores what each gives; queues round `round + 1` until
/// `rounds`.
#[atos::task(worker = "cta", fetch = 8)]
pub fn fold((v, round): (u32, u32), s: &Reducing) {
    s.visits.fetch_add(v, 1);
    let lo = s.offsets[v];
    let hi = s.offsets[v + 1];
    let scale = round as i32 + 1;
    let mut smallest = u32::MAX;
    let mut largest = i64::MIN;
    let mut total = 0u64;
    let mut mask = 0u64;
    let mut odd = false;
    let mut all_positive = true;
    let mut flips = 0i32;
    let mut least = i32::MAX;
    for e in lanes(lo..hi) {
        let x = s.vals[e].wrapping_mul(scale);
        smallest = smallest.min(x as u32);
        largest = largest.max(x as i64 * 3);
        total += (x as u32 as u64) << 7;
        mask |= 1u64 << ((x as u32) % 64);
        odd ^= x % 2 != 0;
        all_positive &= x > 0;
        flips ^= x;
        least = std::cmp::min(least, x);
    }
    let at = (v * s.rounds + round) * 8;
    s.out.store(at, smallest as i64);
    s.out.store(at + 1, largest);
    s.out.store(at + 2, total as i64);
    s.out.store(at + 3, mask as i64);
    s.out.store(at + 4, odd as i64);
    s.out.store(at + 5, all_positive as i64);
    s.out.store(at + 6, flips as i64);
    s.out.store(at + 7, least as i64);
    if round + 1 < s.rounds {
        s.work.push((v, round + 1));
    }
}

/// The input: `n` vertices whose ranges are 0 to 40 values long, every 97th 10,000 (39 strides
/// of a CTA of 256, above the 16 at which a persistent CTA group shares its chunk with idle
/// groups, which then add their parts of the reductions to its own: docs/runtime.md, "Shared
/// ranges") and vertex 0 empty; values of both signs.
pub fn input(n: u32) -> (Vec<u32>, Vec<i32>) {
    let mut offsets = vec![0u32];
    for v in 0..n {
        let len = match v {
            0 => 0,
            v if v % 97 == 5 => 10_000,
            v => (v * 7919 + 3) % 41,
        };
        offsets.push(offsets.last().unwrap() + len);
    }
    let total = *offsets.last().unwrap();
    let vals = (0..total)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 7) as i32 % 1_000_003 - 400_000)
        .collect();
    (offsets, vals)
}

/// What each (vertex, round) must store, computed item by item.
pub fn reference(offsets: &[u32], vals: &[i32], rounds: u32) -> Vec<i64> {
    let n = offsets.len() - 1;
    let mut out = vec![0i64; n * rounds as usize * FACTS];
    for v in 0..n {
        for round in 0..rounds {
            let scale = round as i32 + 1;
            let (mut smallest, mut largest, mut total, mut mask) = (u32::MAX, i64::MIN, 0u64, 0u64);
            let (mut odd, mut all_positive, mut flips, mut least) = (false, true, 0i32, i32::MAX);
            for &x in &vals[offsets[v] as usize..offsets[v + 1] as usize] {
                let x = x.wrapping_mul(scale);
                smallest = smallest.min(x as u32);
                largest = largest.max(x as i64 * 3);
                total += (x as u32 as u64) << 7;
                mask |= 1u64 << ((x as u32) % 64);
                odd ^= x % 2 != 0;
                all_positive &= x > 0;
                flips ^= x;
                least = least.min(x);
            }
            let at = (v * rounds as usize + round as usize) * FACTS;
            out[at..at + FACTS].copy_from_slice(&[
                smallest as i64,
                largest,
                total as i64,
                mask as i64,
                odd as i64,
                all_positive as i64,
                flips as i64,
                least as i64,
            ]);
        }
    }
    out
}

/// Runs the program over [`input`]`(n)` with `rounds` rounds from every vertex at round 0;
/// returns the stored results and the visits per vertex, or a message saying what differs
/// from [`reference`].
pub fn check(
    n: u32,
    rounds: u32,
    run: impl FnOnce(&Reducing, &[(u32, u32)]) -> Result<Stats, RunError>,
) -> Result<Stats, String> {
    let (offsets, vals) = input(n);
    let visits = AtomicArray::<u32>::filled(n as usize, 0);
    let out = AtomicArray::<i64>::filled(n as usize * rounds as usize * FACTS, -1);
    let state = Reducing {
        offsets: Slice::new(&offsets),
        vals: Slice::new(&vals),
        visits: visits.view(),
        out: out.view(),
        work: Queue::with_capacity(u64::from(n) + 1),
        rounds,
    };
    let seeds: Vec<(u32, u32)> = (0..n).map(|v| (v, 0)).collect();
    let stats = run(&state, &seeds).map_err(|e| e.to_string())?;
    let want = reference(&offsets, &vals, rounds);
    let got = out.to_vec();
    if let Some(i) = (0..want.len()).find(|&i| got[i] != want[i]) {
        let (task, fact) = (i / FACTS, i % FACTS);
        return Err(format!(
            "vertex {} round {} fact {fact}: {} against {} ({} values)",
            task / rounds as usize,
            task % rounds as usize,
            got[i],
            want[i],
            offsets[task / rounds as usize + 1] - offsets[task / rounds as usize]
        ));
    }
    if let Some(v) = visits.to_vec().iter().position(|&c| c != rounds) {
        return Err(format!(
            "vertex {v} ran {} tasks, not {rounds}",
            visits.to_vec()[v]
        ));
    }
    Ok(stats)
}

// ---- every operation on every type ----

/// The state of the per-type folds ([`fold_u32`] and the others): [`TYPED_FACTS`] results per
/// vertex.
#[atos::state]
pub struct Typed<'a> {
    pub offsets: Slice<'a, u32>,
    pub vals: Slice<'a, i32>,
    pub out: Atomics<'a, i64>,
    pub work: Queue<'a, u32>,
}

/// Results a per-type fold stores: min, max, sum, and, or, xor.
pub const TYPED_FACTS: usize = 6;

/// Defines `$task`, which folds vertex `v`'s values as `$ty` (`|x| $value` of each `i32`, its
/// sums of `|y| $addend`, small enough not to overflow) with each of the six operations, and
/// `$reference`, the same fold item by item: one expression for both. [`fold`] covers each
/// operation and each type at least once; these cover every operation with every integer
/// type, so that each of the 24 combinations a shared batch merges with a global atomic
/// (worker.cuh, `shared_combine`) runs.
macro_rules! fold_type {
    ($task:ident, $reference:ident, $ty:ident, |$x:ident| $value:expr, |$y:ident| $addend:expr) => {
        #[atos::task(worker = "cta", fetch = 8)]
        pub fn $task(v: u32, s: &Typed) {
            let lo = s.offsets[v];
            let hi = s.offsets[v + 1];
            let mut least = $ty::MAX;
            let mut most = $ty::MIN;
            let mut sum: $ty = 0;
            let mut all: $ty = !0;
            let mut any: $ty = 0;
            let mut flips: $ty = 0;
            for e in lanes(lo..hi) {
                let $x = s.vals[e];
                let $y: $ty = $value;
                least = least.min($y);
                most = most.max($y);
                sum += $addend;
                all &= $y;
                any |= $y;
                flips ^= $y;
            }
            let at = v * 6;
            s.out.store(at, least as i64);
            s.out.store(at + 1, most as i64);
            s.out.store(at + 2, sum as i64);
            s.out.store(at + 3, all as i64);
            s.out.store(at + 4, any as i64);
            s.out.store(at + 5, flips as i64);
        }

        /// What `$task` must store for each vertex, computed item by item.
        pub fn $reference(offsets: &[u32], vals: &[i32]) -> Vec<i64> {
            let mut out = Vec::with_capacity((offsets.len() - 1) * TYPED_FACTS);
            for w in offsets.windows(2) {
                let (mut least, mut most, mut sum) = ($ty::MAX, $ty::MIN, 0 as $ty);
                let (mut all, mut any, mut flips) = (!(0 as $ty), 0 as $ty, 0 as $ty);
                for &$x in &vals[w[0] as usize..w[1] as usize] {
                    let $y: $ty = $value;
                    least = least.min($y);
                    most = most.max($y);
                    sum += $addend;
                    all &= $y;
                    any |= $y;
                    flips ^= $y;
                }
                out.extend([least, most, sum, all, any, flips].map(|r| r as i64));
            }
            out
        }
    };
}

// Values up to about 1.4 M in magnitude (`input`), at most 10,000 per vertex: the sums' addends
// are shifted down so that no sum overflows its type.
fold_type!(fold_u32, reference_u32, u32, |x| x as u32, |y| y >> 20);
fold_type!(fold_i32, reference_i32, i32, |x| x, |y| y >> 12);
fold_type!(
    fold_u64,
    reference_u64,
    u64,
    |x| x as i64 as u64 ^ 0x9e37_79b9_0000_0000,
    |y| y >> 20
);
fold_type!(
    fold_i64,
    reference_i64,
    i64,
    |x| x as i64 * 4_000_000_007,
    |y| y >> 8
);

/// Runs `run` (one of the per-type folds, with its `reference`) over [`input`]`(n)`, every
/// vertex seeded once; the run's stats, or a message saying what differs.
pub fn typed_check(
    n: u32,
    reference: fn(&[u32], &[i32]) -> Vec<i64>,
    run: impl FnOnce(&Typed, &[u32]) -> Result<Stats, RunError>,
) -> Result<Stats, String> {
    let (offsets, vals) = input(n);
    let out = AtomicArray::<i64>::filled(n as usize * TYPED_FACTS, -1);
    let state = Typed {
        offsets: Slice::new(&offsets),
        vals: Slice::new(&vals),
        out: out.view(),
        work: Queue::with_capacity(u64::from(n) + 1),
    };
    let seeds: Vec<u32> = (0..n).collect();
    let stats = run(&state, &seeds).map_err(|e| e.to_string())?;
    let (want, got) = (reference(&offsets, &vals), out.to_vec());
    if let Some(i) = (0..want.len()).find(|&i| got[i] != want[i]) {
        let v = i / TYPED_FACTS;
        return Err(format!(
            "vertex {v} fact {}: {} against {} ({} values)",
            i % TYPED_FACTS,
            got[i],
            want[i],
            offsets[v + 1] - offsets[v]
        ));
    }
    Ok(stats)
}

// ---- a tail after a shared chunk ----

#[atos::state]
pub struct Marks<'a> {
    pub offsets: Slice<'a, u32>,
    pub seen: Atomics<'a, u32>,
    pub misses: Atomics<'a, u32>,
    pub work: Queue<'a, u32>,
}

/// The lane of the item's last index sets its flag; the tail must see it. A persistent CTA
/// group shares a chunk of 16 strides or more (an item of [`LONG`] indices) with idle groups,
/// so that lane is often another group's: the tail runs after `share_end` and its barrier.
#[atos::task(worker = "cta", fetch = 8)]
pub fn mark(v: u32, s: &Marks) {
    let lo = s.offsets[v];
    let hi = s.offsets[v + 1];
    for e in lanes(lo..hi) {
        if e + 1 == hi {
            s.seen.store(v, 1);
        }
    }
    if hi > lo && s.seen.load(v) == 0 {
        s.misses.fetch_add(0u32, 1);
    }
}

/// The range of every 13th vertex of [`marks_check`]: above the 4,096 indices a 256-thread
/// group posts.
pub const LONG: u32 = 20_000;

/// Runs [`mark`] over `n` vertices (every 13th of [`LONG`] indices, the others 0 to 40);
/// returns the misses, which must be 0, with the run's stats, or the vertex whose flag is
/// wrong.
pub fn marks_check(
    n: u32,
    run: impl FnOnce(&Marks, &[u32]) -> Result<Stats, RunError>,
) -> Result<(u32, Stats), String> {
    let mut offsets = vec![0u32];
    for v in 0..n {
        let len = if v % 13 == 7 { LONG } else { (v * 31 + 5) % 41 };
        offsets.push(offsets.last().unwrap() + len);
    }
    let seen = AtomicArray::<u32>::filled(n as usize, 0);
    let misses = AtomicArray::<u32>::filled(1, 0);
    let state = Marks {
        offsets: Slice::new(&offsets),
        seen: seen.view(),
        misses: misses.view(),
        work: Queue::with_capacity(u64::from(n) + 1),
    };
    let seeds: Vec<u32> = (0..n).collect();
    let stats = run(&state, &seeds).map_err(|e| e.to_string())?;
    let seen = seen.to_vec();
    if let Some(v) = (0..n as usize).find(|&v| (seen[v] == 1) != (offsets[v + 1] > offsets[v])) {
        return Err(format!("vertex {v}: flag {}", seen[v]));
    }
    Ok((misses.to_vec()[0], stats))
}
