//! From an edge list to a CSR: mirror, drop self-loops, bucket by source in place, sort and
//! deduplicate neighbour lists.
//!
//! The bucketing permutes the edge arrays in place (an American-flag pass), so a build holds
//! the edge list and nothing of its size besides: the destination array becomes `cols`.

use std::cmp::Ordering;

use rayon::prelude::*;

use crate::csr::{Csr, MAX_VERTICES, Weights};

/// Directed edges `src[i] -> dst[i]` over `num_vertices` vertices, with optional weights.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EdgeList {
    pub num_vertices: u32,
    pub src: Vec<u32>,
    pub dst: Vec<u32>,
    pub weights: Option<Weights>,
}

/// How to turn an edge list into a CSR. Neighbour lists always come out sorted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BuildOptions {
    /// Add the reverse of every edge (an undirected graph stored both ways).
    pub symmetrize: bool,
    pub drop_self_loops: bool,
    /// Keep one entry per (u, v); with weights, the smallest weight survives.
    pub drop_duplicates: bool,
}

impl Default for BuildOptions {
    /// Undirected, simple: what BFS, coloring and components expect.
    fn default() -> Self {
        BuildOptions {
            symmetrize: true,
            drop_self_loops: true,
            drop_duplicates: true,
        }
    }
}

impl BuildOptions {
    /// Edges kept as given (directed), still without self-loops and duplicates.
    pub fn directed() -> Self {
        BuildOptions {
            symmetrize: false,
            ..BuildOptions::default()
        }
    }
}

/// What a build did to its input.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BuildReport {
    pub input_edges: u64,
    pub self_loops_dropped: u64,
    pub mirrored: u64,
    pub duplicates_dropped: u64,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum BuildError {
    #[error("edge {index} ({u}, {v}) names a vertex outside 0..{n}")]
    VertexOutOfRange { index: u64, u: u32, v: u32, n: u32 },
    #[error("{weights} weights for {edges} edges")]
    WeightCount { weights: u64, edges: u64 },
    #[error("{src} sources but {dst} destinations")]
    Ragged { src: u64, dst: u64 },
    #[error("{n} vertices is more than the {MAX_VERTICES} that u32 ids allow")]
    TooManyVertices { n: u64 },
}

impl EdgeList {
    pub fn new(num_vertices: u32) -> EdgeList {
        EdgeList {
            num_vertices,
            ..EdgeList::default()
        }
    }

    /// Appends an unweighted edge (the list must not carry weights).
    pub fn push(&mut self, u: u32, v: u32) {
        self.src.push(u);
        self.dst.push(v);
    }

    pub fn len(&self) -> usize {
        self.src.len()
    }

    pub fn is_empty(&self) -> bool {
        self.src.is_empty()
    }

    /// Builds the CSR. See [`BuildOptions`]; the report counts what was dropped or added.
    pub fn into_csr(self, opts: BuildOptions) -> Result<(Csr, BuildReport), BuildError> {
        let EdgeList {
            num_vertices: n,
            mut src,
            mut dst,
            mut weights,
        } = self;
        check_input(n, &src, &dst, weights.as_ref())?;
        let mut report = BuildReport {
            input_edges: src.len() as u64,
            ..BuildReport::default()
        };
        if opts.drop_self_loops {
            report.self_loops_dropped = drop_self_loops(&mut src, &mut dst, &mut weights);
        }
        if opts.symmetrize {
            report.mirrored = mirror(&mut src, &mut dst, &mut weights);
        }
        let offsets = bucket_by_source(n, &mut src, &mut dst, &mut weights);
        drop(src);
        let mut csr = Csr {
            offsets,
            cols: dst,
            weights,
        };
        report.duplicates_dropped = sort_neighbors(&mut csr, opts.drop_duplicates);
        Ok((csr, report))
    }
}

fn check_input(
    n: u32,
    src: &[u32],
    dst: &[u32],
    weights: Option<&Weights>,
) -> Result<(), BuildError> {
    if u64::from(n) > MAX_VERTICES {
        return Err(BuildError::TooManyVertices { n: u64::from(n) });
    }
    if src.len() != dst.len() {
        return Err(BuildError::Ragged {
            src: src.len() as u64,
            dst: dst.len() as u64,
        });
    }
    if let Some(w) = weights
        && w.len() != src.len()
    {
        return Err(BuildError::WeightCount {
            weights: w.len() as u64,
            edges: src.len() as u64,
        });
    }
    match src.iter().zip(dst).position(|(&u, &v)| u >= n || v >= n) {
        Some(i) => Err(BuildError::VertexOutOfRange {
            index: i as u64,
            u: src[i],
            v: dst[i],
            n,
        }),
        None => Ok(()),
    }
}

/// Runs `f` on the weight vector's slice, whatever its element type.
macro_rules! with_weights {
    ($weights:expr, |$w:ident| $body:expr) => {
        match $weights {
            None => {
                let $w: &mut Vec<()> = &mut Vec::new();
                $body
            }
            Some(Weights::U32($w)) => $body,
            Some(Weights::F32($w)) => $body,
        }
    };
}

fn drop_self_loops(src: &mut Vec<u32>, dst: &mut Vec<u32>, weights: &mut Option<Weights>) -> u64 {
    let before = src.len();
    with_weights!(weights, |w| {
        let has_w = !w.is_empty();
        let mut write = 0;
        for i in 0..src.len() {
            if src[i] != dst[i] {
                src[write] = src[i];
                dst[write] = dst[i];
                if has_w {
                    w[write] = w[i];
                }
                write += 1;
            }
        }
        src.truncate(write);
        dst.truncate(write);
        w.truncate(write);
    });
    (before - src.len()) as u64
}

/// Appends `v -> u` for every `u -> v` with `u != v`.
// The unit arm of `with_weights!` never pushes (`has_w` is false), but clippy sees the call.
#[allow(clippy::unit_arg)]
fn mirror(src: &mut Vec<u32>, dst: &mut Vec<u32>, weights: &mut Option<Weights>) -> u64 {
    let m = src.len();
    let loops = src.iter().zip(dst.iter()).filter(|(u, v)| u == v).count();
    src.reserve_exact(m - loops);
    dst.reserve_exact(m - loops);
    with_weights!(weights, |w| {
        let has_w = !w.is_empty();
        if has_w {
            w.reserve_exact(m - loops);
        }
        for i in 0..m {
            let (u, v) = (src[i], dst[i]);
            if u != v {
                src.push(v);
                dst.push(u);
                if has_w {
                    w.push(w[i]);
                }
            }
        }
    });
    (m - loops) as u64
}

/// Permutes the edges in place so that sources ascend; returns the CSR offsets.
fn bucket_by_source(
    n: u32,
    src: &mut [u32],
    dst: &mut [u32],
    weights: &mut Option<Weights>,
) -> Vec<u64> {
    let mut offsets = vec![0u64; n as usize + 1];
    for &s in src.iter() {
        offsets[s as usize + 1] += 1;
    }
    for v in 0..n as usize {
        offsets[v + 1] += offsets[v];
    }
    let mut cursor = offsets[..n as usize].to_vec();
    with_weights!(weights, |w| {
        let has_w = !w.is_empty();
        for v in 0..n as usize {
            let end = offsets[v + 1];
            while cursor[v] < end {
                let i = cursor[v] as usize;
                let s = src[i] as usize;
                if s == v {
                    cursor[v] += 1;
                    continue;
                }
                // Slots of bucket `s` before its cursor are final; the one at the cursor is not.
                let j = cursor[s] as usize;
                cursor[s] += 1;
                src.swap(i, j);
                dst.swap(i, j);
                if has_w {
                    w.swap(i, j);
                }
            }
        }
    });
    offsets
}

/// Orders weights so that deduplication keeps the smallest.
pub(crate) trait EdgeWeight: Copy + Send + Sync {
    fn order(a: &Self, b: &Self) -> Ordering;
}

impl EdgeWeight for () {
    fn order(_: &Self, _: &Self) -> Ordering {
        Ordering::Equal
    }
}

impl EdgeWeight for u32 {
    fn order(a: &Self, b: &Self) -> Ordering {
        a.cmp(b)
    }
}

impl EdgeWeight for f32 {
    fn order(a: &Self, b: &Self) -> Ordering {
        a.total_cmp(b)
    }
}

/// Sorts every neighbour list (weights move with their entries) and, with `dedup`, keeps one
/// entry per neighbour. Returns the number of entries removed.
pub(crate) fn sort_neighbors(csr: &mut Csr, dedup: bool) -> u64 {
    let Csr {
        offsets,
        cols,
        weights,
    } = csr;
    with_weights!(weights, |w| sort_neighbors_typed(offsets, cols, w, dedup))
}

fn sort_neighbors_typed<W: EdgeWeight>(
    offsets: &mut [u64],
    cols: &mut Vec<u32>,
    weights: &mut Vec<W>,
    dedup: bool,
) -> u64 {
    let n = offsets.len() - 1;
    let has_w = !weights.is_empty();
    let mut kept = vec![0u64; n];
    {
        let chunks = vertex_chunks(offsets);
        let mut jobs = Vec::with_capacity(chunks.len());
        let (mut cols_rest, mut w_rest, mut kept_rest) =
            (&mut cols[..], &mut weights[..], &mut kept[..]);
        for &(lo, hi) in &chunks {
            let len = (offsets[hi] - offsets[lo]) as usize;
            let (c, cr) = cols_rest.split_at_mut(len);
            let (w, wr) = w_rest.split_at_mut(if has_w { len } else { 0 });
            let (k, kr) = kept_rest.split_at_mut(hi - lo);
            (cols_rest, w_rest, kept_rest) = (cr, wr, kr);
            jobs.push((lo, c, w, k));
        }
        jobs.into_par_iter()
            .for_each_init(Vec::new, |scratch, (lo, c, w, k)| {
                let base = offsets[lo];
                for (i, kept) in k.iter_mut().enumerate() {
                    let range =
                        (offsets[lo + i] - base) as usize..(offsets[lo + i + 1] - base) as usize;
                    let seg_w = if has_w {
                        &mut w[range.clone()]
                    } else {
                        &mut [][..]
                    };
                    *kept = sort_segment(&mut c[range], seg_w, scratch, dedup);
                }
            });
    }
    let total_kept: u64 = kept.iter().sum();
    let removed = cols.len() as u64 - total_kept;
    if removed > 0 {
        let mut write = 0usize;
        for (v, &k) in kept.iter().enumerate() {
            let lo = offsets[v] as usize;
            cols.copy_within(lo..lo + k as usize, write);
            if has_w {
                weights.copy_within(lo..lo + k as usize, write);
            }
            offsets[v] = write as u64;
            write += k as usize;
        }
        offsets[n] = write as u64;
        cols.truncate(write);
        cols.shrink_to_fit();
        if has_w {
            weights.truncate(write);
            weights.shrink_to_fit();
        }
    }
    removed
}

/// Sorts one neighbour list; with `dedup` moves the distinct entries to the front and returns
/// how many there are.
fn sort_segment<W: EdgeWeight>(
    cols: &mut [u32],
    weights: &mut [W],
    scratch: &mut Vec<(u32, W)>,
    dedup: bool,
) -> u64 {
    if weights.is_empty() {
        cols.sort_unstable();
    } else {
        scratch.clear();
        scratch.extend(cols.iter().copied().zip(weights.iter().copied()));
        scratch.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(W::order(&a.1, &b.1)));
        for (i, &(c, w)) in scratch.iter().enumerate() {
            cols[i] = c;
            weights[i] = w;
        }
    }
    if !dedup || cols.is_empty() {
        return cols.len() as u64;
    }
    let mut write = 1;
    for i in 1..cols.len() {
        if cols[i] != cols[write - 1] {
            cols[write] = cols[i];
            if !weights.is_empty() {
                weights[write] = weights[i];
            }
            write += 1;
        }
    }
    write as u64
}

/// Splits vertices into ranges of roughly equal edge counts, several per thread.
fn vertex_chunks(offsets: &[u64]) -> Vec<(usize, usize)> {
    let n = offsets.len() - 1;
    let m = offsets[n];
    let pieces = (rayon::current_num_threads() * 16) as u64;
    let target = (m / pieces).max(4096);
    let mut chunks = Vec::new();
    let mut lo = 0;
    while lo < n {
        let goal = offsets[lo] + target;
        let hi = (offsets.partition_point(|&o| o <= goal) - 1).clamp(lo + 1, n);
        chunks.push((lo, hi));
        lo = hi;
    }
    chunks
}
