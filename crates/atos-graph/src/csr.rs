//! Compressed sparse rows: u32 vertex ids, u64 offsets (more than 2^32 edges fit), optional
//! u32 or f32 edge weights.

use std::ops::Range;

use rayon::prelude::*;

/// The largest vertex count: ids run over `0..MAX_VERTICES`, which leaves `u32::MAX` free as
/// the "none" value of parents, depths and labels.
pub const MAX_VERTICES: u64 = u32::MAX as u64;

/// Edge weights, one per entry of `cols`.
#[derive(Clone, Debug, PartialEq)]
pub enum Weights {
    U32(Vec<u32>),
    F32(Vec<f32>),
}

/// Which kind of weights a graph carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WeightKind {
    U32,
    F32,
}

impl Weights {
    pub fn kind(&self) -> WeightKind {
        match self {
            Weights::U32(_) => WeightKind::U32,
            Weights::F32(_) => WeightKind::F32,
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Weights::U32(w) => w.len(),
            Weights::F32(w) => w.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Weight `e` widened to f64 (exact for u32 and f32).
    pub fn get(&self, e: usize) -> f64 {
        match self {
            Weights::U32(w) => f64::from(w[e]),
            Weights::F32(w) => f64::from(w[e]),
        }
    }
}

impl std::fmt::Display for WeightKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            WeightKind::U32 => "u32",
            WeightKind::F32 => "f32",
        })
    }
}

/// A graph in CSR form: the neighbours of `v` are `cols[offsets[v]..offsets[v + 1]]`, and
/// `weights`, when present, runs parallel to `cols`.
#[derive(Clone, Debug, PartialEq)]
pub struct Csr {
    pub offsets: Vec<u64>,
    pub cols: Vec<u32>,
    pub weights: Option<Weights>,
}

/// A CSR whose arrays contradict each other.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum CsrError {
    #[error("offsets is empty: a CSR over n vertices has n + 1 offsets, starting at 0")]
    NoOffsets,
    #[error("offsets[0] is {0}, not 0")]
    FirstOffset(u64),
    #[error("offsets decrease at vertex {vertex}: {from} then {to}")]
    Decreasing { vertex: u64, from: u64, to: u64 },
    #[error("the last offset is {last} but there are {cols} column entries")]
    LastOffset { last: u64, cols: u64 },
    #[error("entry {entry} names vertex {col}, outside 0..{n}")]
    ColOutOfRange { entry: u64, col: u32, n: u64 },
    #[error("{weights} weights for {cols} column entries")]
    WeightCount { weights: u64, cols: u64 },
    #[error("{n} vertices is more than the {MAX_VERTICES} that u32 ids allow")]
    TooManyVertices { n: u64 },
    #[error("f32 weight of entry {entry} is {value}, not a finite number")]
    NonFiniteWeight { entry: u64, value: f32 },
    #[error(
        "the graph has {edges} edges, more than the {} that u32 offsets hold; use the u64 offsets directly",
        u32::MAX
    )]
    OffsetsTooWide { edges: u64 },
}

impl Csr {
    /// A graph with `n` vertices and no edges.
    pub fn empty(n: u32) -> Csr {
        Csr {
            offsets: vec![0; n as usize + 1],
            cols: Vec::new(),
            weights: None,
        }
    }

    pub fn num_vertices(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Directed entries (an undirected edge stored both ways counts twice).
    pub fn num_edges(&self) -> usize {
        self.cols.len()
    }

    pub fn edge_range(&self, v: u32) -> Range<usize> {
        self.offsets[v as usize] as usize..self.offsets[v as usize + 1] as usize
    }

    pub fn neighbors(&self, v: u32) -> &[u32] {
        &self.cols[self.edge_range(v)]
    }

    pub fn degree(&self, v: u32) -> u64 {
        self.offsets[v as usize + 1] - self.offsets[v as usize]
    }

    pub fn weight_kind(&self) -> Option<WeightKind> {
        self.weights.as_ref().map(Weights::kind)
    }

    /// Bytes held by the three arrays (what a device copy needs).
    pub fn size_bytes(&self) -> u64 {
        let w = self.weights.as_ref().map_or(0, |w| 4 * w.len() as u64);
        8 * self.offsets.len() as u64 + 4 * self.cols.len() as u64 + w
    }

    /// The offsets narrowed to u32, for kernels that index edges with 32 bits.
    pub fn offsets_u32(&self) -> Result<Vec<u32>, CsrError> {
        let edges = self.cols.len() as u64;
        if edges > u64::from(u32::MAX) {
            return Err(CsrError::OffsetsTooWide { edges });
        }
        Ok(self.offsets.iter().map(|&o| o as u32).collect())
    }

    /// Checks that the arrays describe a graph: what a loader runs on bytes it did not build.
    pub fn check(&self) -> Result<(), CsrError> {
        let first = *self.offsets.first().ok_or(CsrError::NoOffsets)?;
        if first != 0 {
            return Err(CsrError::FirstOffset(first));
        }
        let n = self.num_vertices() as u64;
        if n > MAX_VERTICES {
            return Err(CsrError::TooManyVertices { n });
        }
        for (v, pair) in self.offsets.windows(2).enumerate() {
            if pair[1] < pair[0] {
                return Err(CsrError::Decreasing {
                    vertex: v as u64,
                    from: pair[0],
                    to: pair[1],
                });
            }
        }
        let last = *self.offsets.last().unwrap_or(&0);
        let cols = self.cols.len() as u64;
        if last != cols {
            return Err(CsrError::LastOffset { last, cols });
        }
        if let Some(entry) = self.cols.iter().position(|&c| u64::from(c) >= n) {
            return Err(CsrError::ColOutOfRange {
                entry: entry as u64,
                col: self.cols[entry],
                n,
            });
        }
        match &self.weights {
            Some(w) if w.len() as u64 != cols => Err(CsrError::WeightCount {
                weights: w.len() as u64,
                cols,
            }),
            Some(Weights::F32(w)) => match w.iter().position(|x| !x.is_finite()) {
                Some(entry) => Err(CsrError::NonFiniteWeight {
                    entry: entry as u64,
                    value: w[entry],
                }),
                None => Ok(()),
            },
            _ => Ok(()),
        }
    }

    /// Whether every entry `u -> v` has its reverse `v -> u` (neighbour lists must be sorted).
    pub fn is_symmetric(&self) -> bool {
        // One binary search per entry, each in a row far from the last: in parallel. On one core
        // it was 60% of kron:20's PageRank reference on 2 cores, and a kron:24 PageRank bench did
        // not finish in 200 s on the H100 machine; in parallel that bench took 54 s
        // (docs/results/2026-11-24c-h100-call1.md, -call2.md).
        (0..self.num_vertices() as u32).into_par_iter().all(|u| {
            self.neighbors(u)
                .iter()
                .all(|&v| self.neighbors(v).binary_search(&u).is_ok())
        })
    }

    /// Whether every neighbour list is sorted (what the builders produce).
    pub fn is_sorted(&self) -> bool {
        (0..self.num_vertices() as u32).all(|v| self.neighbors(v).is_sorted())
    }
}
