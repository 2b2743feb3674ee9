//! Deterministic randomness: SplitMix64, and a counter-based hash so that item `i` of a
//! generated graph depends only on (seed, i) — the same graph for any thread count.

/// SplitMix64: a small, well-mixed generator for reproducible graphs.
#[derive(Clone, Debug)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix(self.0)
    }

    /// Uniform in [0, 1).
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in 0..bound (multiply-shift; bias below 2^-32 for bounds under 2^32).
    pub fn below(&mut self, bound: u32) -> u32 {
        (((self.next_u64() >> 32) * u64::from(bound)) >> 32) as u32
    }
}

/// The SplitMix64 finalizer.
pub fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A generator for item `index` of the stream named by `seed`.
pub fn stream(seed: u64, index: u64) -> SplitMix64 {
    SplitMix64(mix(seed ^ 0x5851_F42D_4C95_7F2D).wrapping_add(mix(index)))
}

/// A random permutation of 0..n (Fisher-Yates).
pub fn permutation(n: u32, seed: u64) -> Vec<u32> {
    let mut perm: Vec<u32> = (0..n).collect();
    let mut rng = SplitMix64(seed);
    for i in (1..n).rev() {
        let j = rng.below(i + 1);
        perm.swap(i as usize, j as usize);
    }
    perm
}
