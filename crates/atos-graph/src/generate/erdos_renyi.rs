//! Erdős–Rényi random graphs.

use super::assemble::assemble;
use super::rng::stream;
use crate::build::{BuildOptions, BuildReport};
use crate::csr::Csr;

/// G(n, m) with m = n * avg_degree / 2 endpoint pairs drawn uniformly (with replacement);
/// self-loops and repeats are then dropped, so the average degree comes out a hair below
/// `avg_degree`.
pub fn erdos_renyi(n: u32, avg_degree: f64, seed: u64) -> (Csr, BuildReport) {
    let count = (f64::from(n) * avg_degree / 2.0).round() as u64;
    assemble(n, count, BuildOptions::default(), |i| {
        let mut rng = stream(seed, i);
        Some((rng.below(n), rng.below(n)))
    })
}
