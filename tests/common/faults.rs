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
        let y = x as i32;
        s.out.store(v, (-y - 1) as u32 + (y << 31) as u32); // FAULT:neg-sub-shift
    }
    if s.mode == 4 {
        s.out.store(v, x.wrapping_mul(1000) + (x >> 1)); // never faults
    }
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
