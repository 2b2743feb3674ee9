//! Device twins of host code, checked on a GPU.
//!
//! - The priority keys' `encode_key`, `next_threshold` and `advance_band` (atos/queue.cuh) are
//!   hand-written twins of `atos_codegen::keys`: a persistent run advances with the CUDA copy, a windowed
//!   run and the CPU executor with the Rust one. [`check_key_twins`] runs the CUDA copy over
//!   edge cases and random inputs and compares every answer with the Rust one, bit for bit.
//! - A spread unit's idle sweep splits each window into combine-copy deliveries and hook
//!   indices with `split_sweep` (queue.cuh); the CPU executor with `SweepWindow::split`.
//!   [`check_sweep_twins`] compares the two over every window shape.
//!
//! CI compiles [`KEY_TWINS_SOURCE`] and [`SWEEP_TWINS_SOURCE`] (no GPU there);
//! `examples/gpu_suite` runs both checks on the GPU.

use atos_codegen::Scalar;
use atos_codegen::keys::{advance_band, encode, next_threshold};
use atos_codegen::layout::EVERY_KEY;
use cudarc::driver::{LaunchConfig, PushKernelArg};

use super::{Gpu, GpuError, driver_err, nvrtc};

/// The kernel: case `i` is `(kind, t, delta, pass_min)` at `input[4 i..]` (kind 0: u32 keys,
/// 1: f32 keys); it writes `next_threshold(t, delta, pass_min)`, `encode_key` of `t`'s low 32
/// bits (as the key type) and `advance_band` with the two keys in both roles (threshold `t`,
/// band end `pass_min`, far minimum `t`), the next ring held and not, to `output[6 i..]`.
pub const KEY_TWINS_SOURCE: &str = r#"#include <atos/prelude.cuh>
#include <atos/layout.cuh>
#include <atos/queue.cuh>
extern "C" __global__ void atos_key_twins(const unsigned long long* input, unsigned long long* output, unsigned n) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned long long* in = input + 4ull * i;
    unsigned long long* out = output + 6ull * i;
    const unsigned long long kind = in[0], t = in[1], delta = in[2], pass_min = in[3];
    if (kind == 0) {
        out[0] = atos::next_threshold<uint32_t>(t, delta, pass_min);
        out[1] = atos::encode_key((uint32_t)t);
        atos::advance_band<uint32_t>(t, pass_min, delta, t, true, out[2], out[3]);
        atos::advance_band<uint32_t>(t, pass_min, delta, t, false, out[4], out[5]);
    } else {
        out[0] = atos::next_threshold<float>(t, delta, pass_min);
        out[1] = atos::encode_key(__uint_as_float((uint32_t)t));
        atos::advance_band<float>(t, pass_min, delta, t, true, out[2], out[3]);
        atos::advance_band<float>(t, pass_min, delta, t, false, out[4], out[5]);
    }
}
"#;

/// The random cases' generator, xorshift64* from `seed` (not 0): the same cases every run.
fn xorshift64_star(mut s: u64) -> impl FnMut() -> u64 {
    move || {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        s.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

/// One input of the check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyCase {
    pub key: Scalar,
    pub t: u64,
    pub delta: u64,
    pub pass_min: u64,
}

impl KeyCase {
    /// What `atos_codegen::keys` answers, as the kernel writes it: the next threshold, `t`'s
    /// low bits encoded, then `advance_band` (threshold `t`, band end `pass_min`, far minimum
    /// `t`) with the next ring held, then not.
    pub fn expected(&self) -> [u64; 6] {
        let band = |held| advance_band(self.key, self.t, self.pass_min, self.delta, self.t, held);
        let ((t1, u1), (t2, u2)) = (band(true), band(false));
        [
            next_threshold(self.key, self.t, self.delta, self.pass_min),
            encode(self.key, self.t & 0xffff_ffff),
            t1,
            u1,
            t2,
            u2,
        ]
    }
}

/// The cases: every combination of edge values per key type, then `random` cases drawn from
/// a fixed seed.
pub fn key_cases(random: usize) -> Vec<KeyCase> {
    let fk = |x: f32| encode(Scalar::F32, u64::from(x.to_bits()));
    let fb = |x: f32| u64::from(x.to_bits());
    let u_keys: Vec<u64> = vec![
        0,
        1,
        5,
        99,
        1 << 31,
        u64::from(u32::MAX) - 1,
        u64::from(u32::MAX),
        EVERY_KEY,
        EVERY_KEY + 7,
    ];
    let u_deltas: Vec<u64> = vec![1, 2, 5, 1 << 31, u64::from(u32::MAX)];
    let floats = [
        f32::NEG_INFINITY,
        -3.0e38,
        -2.5,
        -1e-40,
        -0.0,
        0.0,
        1e-45,
        1e-40,
        1e-30,
        1.0,
        1.5,
        1e10,
        3.0e38,
        f32::MAX,
        f32::INFINITY,
        f32::NAN,
    ];
    let mut f_keys: Vec<u64> = floats.iter().map(|&x| fk(x)).collect();
    f_keys.extend([EVERY_KEY - 1, EVERY_KEY]);
    let f_deltas: Vec<u64> = [
        1e-45,
        1e-7,
        0.5,
        1.0,
        1000.0,
        3.0e38,
        f32::INFINITY,
        f32::NAN,
    ]
    .iter()
    .map(|&x| fb(x))
    .collect();
    let mut cases = Vec::new();
    for (key, keys, deltas) in [
        (Scalar::U32, &u_keys, &u_deltas),
        (Scalar::F32, &f_keys, &f_deltas),
    ] {
        for &t in keys.iter() {
            for &delta in deltas.iter() {
                for &pass_min in keys.iter() {
                    cases.push(KeyCase {
                        key,
                        t,
                        delta,
                        pass_min,
                    });
                }
            }
        }
    }
    let mut next = xorshift64_star(0x9E37_79B9_7F4A_7C15);
    for i in 0..random {
        let key = if i % 2 == 0 { Scalar::U32 } else { Scalar::F32 };
        let mut word = || {
            let r = next();
            // Mostly keys below EVERY_KEY, sometimes at or past it.
            if r.is_multiple_of(16) {
                EVERY_KEY + (r >> 60)
            } else {
                r >> 32
            }
        };
        let (t, pass_min) = (word(), word());
        let delta = (next() >> 32).max(1);
        cases.push(KeyCase {
            key,
            t,
            delta,
            pass_min,
        });
    }
    cases
}

/// What a twin check found.
#[derive(Clone, Debug)]
pub struct TwinReport {
    pub cases: usize,
    /// The first few differences, each with its case and both answers.
    pub mismatches: Vec<String>,
    /// How many cases differed in all.
    pub mismatched: usize,
}

impl TwinReport {
    /// Compares each case's device answer (`words` per case in `got`) with `expected`.
    fn compare<C: std::fmt::Debug>(
        cases: &[C],
        got: &[u64],
        words: usize,
        expected: impl Fn(&C) -> Vec<u64>,
    ) -> TwinReport {
        let mut report = TwinReport {
            cases: cases.len(),
            mismatches: Vec::new(),
            mismatched: 0,
        };
        for (c, got) in cases.iter().zip(got.chunks_exact(words)) {
            let want = expected(c);
            if got != want.as_slice() {
                report.mismatched += 1;
                if report.mismatches.len() < 10 {
                    report
                        .mismatches
                        .push(format!("{c:?}: GPU {got:#x?}, host {want:#x?}"));
                }
            }
        }
        report
    }
}

/// Compiles `source`, runs its kernel `name(input, output, n)` with one thread per case over
/// `n` cases (`input` holds 4 words per case), and returns `output` (`words` per case).
fn run_twin_kernel(
    gpu: &Gpu,
    source: &str,
    name: &str,
    input: &[u64],
    n: usize,
    words: usize,
) -> Result<Vec<u64>, GpuError> {
    assert_eq!(input.len(), 4 * n, "4 input words per case");
    let compiled = nvrtc::compile_cubin(source, gpu.arch())?;
    let ctx = gpu.ctx();
    let module = ctx
        .load_module(cudarc::nvrtc::Ptx::from_binary(compiled.cubin.to_vec()))
        .map_err(driver_err("loading a twins module"))?;
    let function = module
        .load_function(name)
        .map_err(driver_err("finding a twins kernel"))?;
    let cases = u32::try_from(n).expect("fewer than 2^32 cases");
    let stream = ctx.default_stream();
    let d_in = stream
        .clone_htod(input)
        .map_err(driver_err("copying the cases"))?;
    let mut d_out = stream
        .alloc_zeros::<u64>(words * n)
        .map_err(driver_err("allocating the answers"))?;
    let mut launch = stream.launch_builder(&function);
    launch.arg(&d_in).arg(&mut d_out).arg(&cases);
    // SAFETY: the twin kernels read 4 words per case from `d_in` (4 n words, asserted above)
    // and write `words` per case to `d_out`, sized for `n` cases, indexing in 64 bits; each
    // takes exactly these three arguments and returns for threads past `n`.
    unsafe { launch.launch(LaunchConfig::for_num_elems(cases)) }
        .map_err(driver_err("running a twins kernel"))?;
    stream
        .clone_dtoh(&d_out)
        .map_err(driver_err("reading the answers"))
}

/// Runs the CUDA `encode_key`, `next_threshold` and `advance_band` on `gpu` over [`key_cases`]
/// and compares each answer with `atos_codegen::keys`.
pub fn check_key_twins(gpu: &Gpu, random: usize) -> Result<TwinReport, GpuError> {
    let cases = key_cases(random);
    let input: Vec<u64> = cases
        .iter()
        .flat_map(|c| [u64::from(c.key == Scalar::F32), c.t, c.delta, c.pass_min])
        .collect();
    let out = run_twin_kernel(
        gpu,
        KEY_TWINS_SOURCE,
        "atos_key_twins",
        &input,
        cases.len(),
        6,
    )?;
    Ok(TwinReport::compare(&cases, &out, 6, |c| {
        c.expected().to_vec()
    }))
}

/// The kernel: case `i` is `(pos, n, copies, first)` at `input[4 i..]`; it writes
/// `split_sweep`'s `lo, n, deliver_lo, deliver_n` to `output[4 i..]`.
pub const SWEEP_TWINS_SOURCE: &str = r#"#include <atos/prelude.cuh>
#include <atos/layout.cuh>
#include <atos/queue.cuh>
extern "C" __global__ void atos_sweep_twins(const unsigned long long* input, unsigned long long* output, unsigned n) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned long long* in = input + 4ull * i;
    unsigned long long* out = output + 4ull * i;
    const atos::SweepParts p = atos::split_sweep(in[0], in[1], in[2], in[3]);
    out[0] = p.lo;
    out[1] = p.n;
    out[2] = p.deliver_lo;
    out[3] = p.deliver_n;
}
"#;

/// One window of a device's sweep, as `grab_window` hands them out: positions
/// `[pos, pos + n)` of `copies` copy positions and then the share of hook indices from `first`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SweepCase {
    pub pos: u64,
    pub n: u64,
    pub copies: u64,
    pub first: u64,
}

impl SweepCase {
    /// What the CPU executor answers (`SweepWindow::split`): `lo, n, deliver_lo, deliver_n`.
    pub fn expected(&self) -> [u64; 4] {
        let w = crate::cpu::SweepWindow::split(0, self.pos, self.n, self.copies, self.first);
        [w.lo, w.n, w.deliver_lo, w.deliver_n]
    }
}

/// Every window of small sweeps (0 to 5 copy positions, shares of 0 to 5 indices, from 0 or
/// from 2^40), empty windows and windows past a sweep's end, then `random` windows of large
/// sweeps, from a fixed seed.
pub fn sweep_cases(random: usize) -> Vec<SweepCase> {
    let mut cases = Vec::new();
    for copies in 0..=5u64 {
        for share in 0..=5u64 {
            for first in [0, 1 << 40] {
                let size = copies + share;
                for pos in 0..size {
                    for n in 1..=size - pos {
                        cases.push(SweepCase {
                            pos,
                            n,
                            copies,
                            first,
                        });
                    }
                }
            }
        }
    }
    // Windows `grab_window` never hands out, for `split_sweep`'s whole domain: empty ones, and
    // ones starting at or past the end of the sweep.
    for copies in 0..=3u64 {
        for pos in 0..=copies + 3 {
            for n in 0..=2u64 {
                cases.push(SweepCase {
                    pos,
                    n,
                    copies,
                    first: 7,
                });
            }
        }
    }
    let small = cases.len();
    let mut next = xorshift64_star(0x2545_F491_4F6C_DD1D);
    while cases.len() < small + random {
        let copies = if next().is_multiple_of(4) {
            0
        } else {
            next() >> 34
        };
        let share = next() >> 34;
        let size = copies + share;
        if size == 0 {
            continue;
        }
        let pos = next() % size;
        let n = 1 + next() % (size - pos).min(1 << 16);
        cases.push(SweepCase {
            pos,
            n,
            copies,
            first: next() >> 20,
        });
    }
    cases
}

/// Runs the CUDA `split_sweep` on `gpu` over [`sweep_cases`] and compares each answer with the
/// CPU executor's `SweepWindow::split`.
pub fn check_sweep_twins(gpu: &Gpu, random: usize) -> Result<TwinReport, GpuError> {
    let cases = sweep_cases(random);
    let input: Vec<u64> = cases
        .iter()
        .flat_map(|c| [c.pos, c.n, c.copies, c.first])
        .collect();
    let out = run_twin_kernel(
        gpu,
        SWEEP_TWINS_SOURCE,
        "atos_sweep_twins",
        &input,
        cases.len(),
        4,
    )?;
    Ok(TwinReport::compare(&cases, &out, 4, |c| {
        c.expected().to_vec()
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cases_cover_both_key_types_and_the_edges() {
        let cases = key_cases(1000);
        assert!(
            cases
                .iter()
                .any(|c| c.key == Scalar::U32 && c.t >= EVERY_KEY)
        );
        assert!(
            cases
                .iter()
                .any(|c| c.key == Scalar::F32 && c.pass_min < EVERY_KEY && c.pass_min > c.t)
        );
        assert_eq!(key_cases(1000), cases, "the same cases every time");
        // keys.rs's own answers never leave the encoded range, and from a threshold below
        // it an advance opens the held band or moves strictly up.
        assert!(cases.iter().all(|c| c.expected()[0] <= EVERY_KEY));
        assert!(
            cases
                .iter()
                .filter(|c| c.t < EVERY_KEY)
                .all(|c| c.expected()[2] >= c.t && c.expected()[4] > c.t)
        );
    }

    #[test]
    fn the_sweep_cases_cover_every_window_shape() {
        let cases = sweep_cases(1000);
        let shapes = |f: &dyn Fn(&SweepCase) -> bool| cases.iter().filter(|c| f(c)).count();
        // Deliveries only, ending before the copies do; ending at their end; straddling the
        // copies and the indices; indices only; and sweeps without copies.
        assert!(shapes(&|c| c.pos + c.n < c.copies) > 100);
        assert!(shapes(&|c| c.pos < c.copies && c.pos + c.n == c.copies) > 10);
        assert!(shapes(&|c| c.pos < c.copies && c.pos + c.n > c.copies) > 10);
        assert!(shapes(&|c| c.pos >= c.copies && c.copies > 0) > 10);
        assert!(shapes(&|c| c.copies == 0) > 100);
        assert!(shapes(&|c| c.n == 0) > 10);
        assert_eq!(sweep_cases(1000), cases, "the same cases every time");
        // The split covers the window: every position is a delivery or an index.
        for c in &cases {
            let [lo, n, dlo, dn] = c.expected();
            assert_eq!(n + dn, c.n, "{c:?}");
            assert_eq!(dlo, c.pos, "{c:?}");
            if n > 0 {
                assert_eq!(lo, c.first + (c.pos + dn - c.copies), "{c:?}");
            }
        }
    }
}
