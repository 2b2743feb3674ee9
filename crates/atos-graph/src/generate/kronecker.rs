//! Graph500 Kronecker (R-MAT) graphs.

use super::assemble::assemble;
use super::rng::{permutation, stream};
use crate::build::{BuildOptions, BuildReport};
use crate::csr::Csr;

/// Graph500 initiator probabilities (D = 1 - A - B - C = 0.05).
pub const A: f64 = 0.57;
pub const B: f64 = 0.19;
pub const C: f64 = 0.19;

/// 2^scale vertices, `edge_factor * 2^scale` generated edges, each placed by `scale`
/// recursive quadrant choices with the Graph500 probabilities; vertex labels are then
/// permuted (so degree does not follow id) and the graph is symmetrized without self-loops
/// or duplicates, as the Graph500 kernels see it.
pub fn kronecker(scale: u32, edge_factor: u32, seed: u64) -> (Csr, BuildReport) {
    assert!(
        (1..=31).contains(&scale),
        "kronecker scale {scale} outside 1..=31"
    );
    let n = 1u32 << scale;
    let count = u64::from(n) * u64::from(edge_factor);
    // 16-bit thresholds: four levels per 64-bit draw, probabilities exact to 2^-16.
    let t = |p: f64| (p * 65536.0).round() as u64;
    let (ta, tab, tabc) = (t(A), t(A + B), t(A + B + C));
    let perm = permutation(n, seed ^ 0xA5A5_5A5A_0F0F_F0F0);
    assemble(n, count, BuildOptions::default(), |i| {
        let mut rng = stream(seed, i);
        let (mut u, mut v) = (0u32, 0u32);
        let mut bits = 0u64;
        for level in 0..scale {
            if level % 4 == 0 {
                bits = rng.next_u64();
            }
            let r = bits & 0xFFFF;
            bits >>= 16;
            let (du, dv) = match r {
                r if r < ta => (0, 0),
                r if r < tab => (0, 1),
                r if r < tabc => (1, 0),
                _ => (1, 1),
            };
            u |= du << level;
            v |= dv << level;
        }
        Some((perm[u as usize], perm[v as usize]))
    })
}
