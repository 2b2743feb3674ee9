//! A task that faults on purpose, one way per `mode`: the GPU reports what a debug build of
//! the Rust panics on, naming the line (`atos_codegen::faults`). Runs on the CPU executor in CI
//! and on the GPU in `examples/gpu_suite.rs` (included there by path).

use atos::prelude::*;
use atos::{RunError, Stats};

#[atos::state]
pub struct Faulty<'a> {
    pub vals: Slice<'a, u32>,
    pub out: Atomics<'a, u32>,
    pub work: Queue<'a, u32>,
    pub mode: u32,
}

#[atos::task(worker = "warp")]
pub fn faulty(v: u32, s: &Faulty) {
    let x = s.vals[v];
    if s.mode == 0 {
        s.out.store(v, x * 1000); // FAULT:mul
    }
    if s.mode == 1 {
        s.out.store(v, s.vals[v + 100]); // FAULT:index
    }
    if s.mode == 2 {
        s.out.store(v, 100 / x); // FAULT:div
    }
    if s.mode == 3 {
        let y = i32::MIN.wrapping_add(x as i32).wrapping_sub(1);
        s.out.store(v, (-y) as u32); // FAULT:neg
    }
    if s.mode == 4 {
        s.out.store(v, x.wrapping_mul(1000) + (x >> 1)); // never faults
    }
    if s.mode == 5 {
        s.out.store(v, ((x as i32) - i32::MAX - 3) as u32); // FAULT:sub
    }
    if s.mode == 6 {
        s.out.store(v, x << (x as i32 - 10)); // FAULT:shl
    }
    if s.mode == 7 {
        let k = (x % 16) as u8;
        s.out.store(v, u32::from((x as u8) >> k)); // FAULT:shr
    }
    if s.mode == 8 {
        // A lanes loop's leading index, checked once for the range (emit.rs,
        // hoist_index_checks): v = 63 reaches one past the end.
        let mut sum = 0u32;
        for e in lanes(v..v + 2) {
            let y = s.vals[e]; // FAULT:range
            sum += y;
        }
        s.out.store(v, sum);
    }
    if s.mode == 9 {
        // A lanes loop that only reads runs 4 strides a trip and reports an index fault after
        // its last iteration (emit.rs, reads_only): v = 63 reads one past the end at odd e.
        let mut best = 0u32;
        for e in lanes(0..1100u32) {
            let y = s.vals[v + (e & 1)]; // FAULT:quiet
            best = best.max(y);
        }
        s.out.store(v, best);
    }
}

/// Every faulting mode: its marker, Rust's panic message, and whether it is an overflow (which
/// only a debug build, or checked mode, reports).
pub const FAULTS: [(u32, &str, &str, bool); 9] = [
    (0, "mul", "attempt to multiply with overflow", true),
    (1, "index", "index out of bounds", false),
    (2, "div", "attempt to divide by zero", false),
    (3, "neg", "attempt to negate with overflow", true),
    (5, "sub", "attempt to subtract with overflow", true),
    (6, "shl", "attempt to shift left with overflow", true),
    (7, "shr", "attempt to shift right with overflow", true),
    (8, "range", "index out of bounds", false),
    (9, "quiet", "index out of bounds", false),
];

/// What mode 4 (no fault) writes.
pub fn clean() -> Vec<u32> {
    values()
        .iter()
        .map(|x| x.wrapping_mul(1000) + (x >> 1))
        .collect()
}

/// The 1-based line of this file holding `// FAULT:<marker>`.
pub fn line_of(marker: &str) -> u32 {
    let tag = format!("// FAULT:{marker}");
    include_str!("faults.rs")
        .lines()
        .position(|l| l.trim_end().ends_with(&tag))
        .expect("a marked line") as u32
        + 1
}

/// 64 values: small ones, one zero (index 7) and one past `u32::MAX / 1000` (index 40).
pub fn values() -> Vec<u32> {
    (0..64u32)
        .map(|i| match i {
            7 => 0,
            40 => 5_000_000,
            _ => i + 1,
        })
        .collect()
}

/// Runs `mode` over every value; returns the run's outcome and the output array.
pub fn faulty_run(
    mode: u32,
    run: impl FnOnce(&Faulty, &[u32]) -> Result<Stats, RunError>,
) -> (Result<Stats, RunError>, Vec<u32>) {
    let vals = values();
    let out = AtomicArray::<u32>::filled(vals.len(), 0);
    let state = Faulty {
        vals: Slice::new(&vals),
        out: out.view(),
        work: Queue::with_capacity(64),
        mode,
    };
    let seeds: Vec<u32> = (0..vals.len() as u32).collect();
    let r = run(&state, &seeds);
    (r, out.to_vec())
}
