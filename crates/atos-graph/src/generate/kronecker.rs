//! Graph500 Kronecker (R-MAT) graphs.

use super::assemble::assemble;
use super::rng::{mix, stream};
use crate::build::{BuildOptions, BuildReport};
use crate::csr::Csr;

/// Graph500 initiator probabilities (D = 1 - A - B - C = 0.05).
pub const A: f64 = 0.57;
pub const B: f64 = 0.19;
pub const C: f64 = 0.19;

/// 2^scale vertices, `edge_factor * 2^scale` generated edges, each placed by `scale`
/// recursive quadrant choices with the Graph500 probabilities; vertex labels are then
/// scrambled by a keyed bijection (so degree does not follow id) and the graph is symmetrized without self-loops
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
    let label = Scramble::new(scale, seed);
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
            // Quadrants in order (0,0), (0,1), (1,0), (1,1), chosen without branches: a
            // mispredicted branch per level cost more than the rest of generation together.
            let du = u32::from(r >= tab);
            let dv = u32::from(r >= ta) ^ du ^ u32::from(r >= tabc);
            u |= du << level;
            v |= dv << level;
        }
        Some((label.apply(u), label.apply(v)))
    })
}

/// A keyed bijection on `0..2^bits` (multiply by odd keys, xor-shift right; each step is
/// invertible on `bits`-bit words): labels permuted without a 4n-byte table, and without
/// the random lookups into one that would dominate generation time.
struct Scramble {
    bits: u32,
    mask: u64,
    keys: [u64; 3],
}

impl Scramble {
    fn new(bits: u32, seed: u64) -> Scramble {
        let key = |i: u64| mix(seed ^ 0xA5A5_5A5A_0F0F_F0F0 ^ i) | 1;
        Scramble {
            bits,
            mask: (1u64 << bits) - 1,
            keys: [key(1), key(2), key(3)],
        }
    }

    fn apply(&self, v: u32) -> u32 {
        let mut x = u64::from(v);
        for k in self.keys {
            x = x.wrapping_mul(k) & self.mask;
            x ^= x >> (self.bits / 2 + 1);
        }
        x as u32
    }
}

#[cfg(test)]
mod tests {
    use super::Scramble;

    #[test]
    fn scramble_is_a_permutation() {
        for bits in [1, 2, 5, 12] {
            let s = Scramble::new(bits, 7);
            let mut seen = vec![false; 1 << bits];
            for v in 0..1u32 << bits {
                let x = s.apply(v) as usize;
                assert!(!seen[x], "bits {bits}: {x} twice");
                seen[x] = true;
            }
        }
        // Not the identity, and different per seed.
        let (a, b) = (Scramble::new(12, 1), Scramble::new(12, 2));
        assert!((0..4096).filter(|&v| a.apply(v) == v).count() < 50);
        assert!((0..4096).any(|v| a.apply(v) != b.apply(v)));
    }
}
