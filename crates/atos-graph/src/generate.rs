//! Deterministic graph generators, and the short specs that name them (`grid:64x64`, `rmat:14`).

use crate::csr::{BuildError, BuildOptions, Csr};

/// A 2D grid: each vertex joined to its 4 neighbours (high diameter, road-like).
pub fn grid(width: u32, height: u32) -> Result<Csr, BuildError> {
    let n = width
        .checked_mul(height)
        .ok_or(BuildError::TooManyEdges { edges: u64::MAX })?;
    let mut edges = Vec::with_capacity(2 * n as usize);
    for y in 0..height {
        for x in 0..width {
            let v = y * width + x;
            if x + 1 < width {
                edges.push((v, v + 1));
            }
            if y + 1 < height {
                edges.push((v, v + width));
            }
        }
    }
    Csr::from_edges(n, &edges, BuildOptions::default())
}

/// SplitMix64: a small, well-mixed deterministic generator for reproducible graphs.
#[derive(Clone, Debug)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// An R-MAT (Kronecker) scale-free graph with 2^scale vertices and `edge_factor * 2^scale`
/// generated edges (Graph500 parameters A=0.57, B=0.19, C=0.19), symmetrized, vertex ids
/// permuted so high-degree vertices are not clustered at low ids.
pub fn rmat(scale: u32, edge_factor: u32, seed: u64) -> Result<Csr, BuildError> {
    let n = 1u32 << scale;
    let m = u64::from(n) * u64::from(edge_factor);
    let (a, b, c) = (0.57, 0.19, 0.19);
    let mut rng = SplitMix64(seed);
    let mut edges = Vec::with_capacity(m as usize);
    for _ in 0..m {
        let (mut u, mut v) = (0u32, 0u32);
        for bit in 0..scale {
            let r = rng.next_f64();
            let (du, dv) = if r < a {
                (0, 0)
            } else if r < a + b {
                (0, 1)
            } else if r < a + b + c {
                (1, 0)
            } else {
                (1, 1)
            };
            u |= du << bit;
            v |= dv << bit;
        }
        edges.push((u, v));
    }
    let mut perm: Vec<u32> = (0..n).collect();
    for i in (1..n as usize).rev() {
        let j = (rng.next_u64() % (i as u64 + 1)) as usize;
        perm.swap(i, j);
    }
    for e in &mut edges {
        *e = (perm[e.0 as usize], perm[e.1 as usize]);
    }
    Csr::from_edges(n, &edges, BuildOptions::default())
}

#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    #[error(
        "unknown graph spec `{0}`: use `grid:WxH`, `rmat:SCALE` (edge factor 16) or a file path"
    )]
    Unknown(String),
    #[error("bad graph spec `{spec}`: {reason}")]
    Bad { spec: String, reason: String },
    #[error(transparent)]
    Build(#[from] BuildError),
}

/// Generates the graph a spec names: `grid:WxH` or `rmat:SCALE[:SEED]`.
pub fn from_spec(spec: &str) -> Result<Csr, SpecError> {
    let bad = |reason: &str| SpecError::Bad {
        spec: spec.into(),
        reason: reason.into(),
    };
    if let Some(dims) = spec.strip_prefix("grid:") {
        let (w, h) = dims
            .split_once('x')
            .ok_or_else(|| bad("expected WxH, e.g. grid:4096x4096"))?;
        let w: u32 = w.parse().map_err(|_| bad("width is not a number"))?;
        let h: u32 = h.parse().map_err(|_| bad("height is not a number"))?;
        if w == 0 || h == 0 {
            return Err(bad("width and height must be positive"));
        }
        return Ok(grid(w, h)?);
    }
    if let Some(rest) = spec.strip_prefix("rmat:") {
        let mut parts = rest.split(':');
        let scale: u32 = parts
            .next()
            .unwrap_or("")
            .parse()
            .map_err(|_| bad("scale is not a number"))?;
        if !(1..=26).contains(&scale) {
            return Err(bad("scale must be between 1 and 26"));
        }
        let seed: u64 = match parts.next() {
            Some(s) => s.parse().map_err(|_| bad("seed is not a number"))?,
            None => 1,
        };
        return Ok(rmat(scale, 16, seed)?);
    }
    Err(SpecError::Unknown(spec.into()))
}
