//! 2D grids: mesh-like, high diameter, and road-like once edges are removed at random.

use super::assemble::assemble;
use super::rng::stream;
use crate::build::{BuildOptions, BuildReport};
use crate::csr::Csr;

/// A `width x height` grid, each vertex joined to its 4 neighbours; each edge is removed
/// with probability `drop` (decided by the seed and the edge alone).
pub fn grid(width: u32, height: u32, drop: f64, seed: u64) -> (Csr, BuildReport) {
    let n = width * height;
    // Edge 2i joins vertex i to its right neighbour, edge 2i + 1 to the one below.
    assemble(n, 2 * u64::from(n), BuildOptions::default(), |e| {
        let i = (e / 2) as u32;
        let (x, y) = (i % width, i / width);
        let j = if e % 2 == 0 {
            (x + 1 < width).then_some(i + 1)?
        } else {
            (y + 1 < height).then_some(i + width)?
        };
        if drop > 0.0 && stream(seed, e).next_f64() < drop {
            return None;
        }
        Some((i, j))
    })
}
