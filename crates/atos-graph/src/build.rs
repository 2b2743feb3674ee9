//! From an edge list to a CSR: drop self-loops, sort (undirected: as `(min, max)` pairs),
//! deduplicate, scatter into rows. Also the per-row sort and deduplication that builders
//! which fill rows directly (the generators, relabelling) finish with.

use std::cmp::Ordering;

use rayon::prelude::*;

use crate::csr::{Csr, MAX_VERTICES, Weights};

/// Directed edges `pairs[i] = [u, v]` over `num_vertices` vertices, with optional weights
/// (one per pair).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EdgeList {
    pub num_vertices: u32,
    pub pairs: Vec<[u32; 2]>,
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
        self.pairs.push([u, v]);
    }

    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// Builds the CSR. See [`BuildOptions`]; the report counts what was dropped or added.
    ///
    /// Edges are sorted (for undirected builds as `(min, max)` pairs, so that an edge given
    /// both ways is one edge), deduplicated, then scattered into rows; rows come out sorted
    /// without a per-row sort. Unweighted builds sort the pairs in place (and reuse their
    /// memory for `cols` when directed); weighted builds sort an index, then move pairs and
    /// weights into that order in place. Peak memory is about twice the CSR.
    pub fn into_csr(self, opts: BuildOptions) -> Result<(Csr, BuildReport), BuildError> {
        check_input(self.num_vertices, &self.pairs, self.weights.as_ref())?;
        let EdgeList {
            num_vertices: n,
            mut pairs,
            weights,
        } = self;
        let mut report = BuildReport {
            input_edges: pairs.len() as u64,
            ..BuildReport::default()
        };
        let csr = match weights {
            None => {
                if opts.drop_self_loops {
                    pairs.retain(|p| p[0] != p[1]);
                    report.self_loops_dropped = report.input_edges - pairs.len() as u64;
                }
                let (offsets, cols) = build_unweighted(n, pairs, opts, &mut report);
                Csr {
                    offsets,
                    cols,
                    weights: None,
                }
            }
            Some(Weights::U32(w)) => {
                let (offsets, cols, w) = build_weighted(n, pairs, w, opts, &mut report);
                Csr {
                    offsets,
                    cols,
                    weights: Some(Weights::U32(w)),
                }
            }
            Some(Weights::F32(w)) => {
                let (offsets, cols, w) = build_weighted(n, pairs, w, opts, &mut report);
                Csr {
                    offsets,
                    cols,
                    weights: Some(Weights::F32(w)),
                }
            }
        };
        Ok((csr, report))
    }
}

fn check_input(n: u32, pairs: &[[u32; 2]], weights: Option<&Weights>) -> Result<(), BuildError> {
    if u64::from(n) > MAX_VERTICES {
        return Err(BuildError::TooManyVertices { n: u64::from(n) });
    }
    if let Some(w) = weights
        && w.len() != pairs.len()
    {
        return Err(BuildError::WeightCount {
            weights: w.len() as u64,
            edges: pairs.len() as u64,
        });
    }
    match pairs.iter().position(|p| p[0] >= n || p[1] >= n) {
        Some(i) => Err(BuildError::VertexOutOfRange {
            index: i as u64,
            u: pairs[i][0],
            v: pairs[i][1],
            n,
        }),
        None => Ok(()),
    }
}

/// Directed entries a sorted pair list stands for: both ways when symmetric, except loops.
fn entries(pairs: &[[u32; 2]], symmetric: bool) -> u64 {
    if symmetric {
        pairs.iter().map(|p| 1 + u64::from(p[0] != p[1])).sum()
    } else {
        pairs.len() as u64
    }
}

/// Writes `[min, max]` for undirected builds and counts the edges that will be mirrored.
fn canonicalize(pairs: &mut [[u32; 2]], opts: BuildOptions, report: &mut BuildReport) {
    if opts.symmetrize {
        for p in pairs.iter_mut() {
            if p[0] > p[1] {
                p.swap(0, 1);
            }
        }
        report.mirrored = pairs.iter().filter(|p| p[0] != p[1]).count() as u64;
    }
}

/// Row offsets for sorted pairs; `cursor` gets a copy to fill rows with.
fn offsets_of(n: u32, pairs: impl Iterator<Item = [u32; 2]>, symmetric: bool) -> Vec<u64> {
    let mut offsets = vec![0u64; n as usize + 1];
    for [a, b] in pairs {
        offsets[a as usize + 1] += 1;
        if symmetric && a != b {
            offsets[b as usize + 1] += 1;
        }
    }
    for v in 0..n as usize {
        offsets[v + 1] += offsets[v];
    }
    offsets
}

fn build_unweighted(
    n: u32,
    mut pairs: Vec<[u32; 2]>,
    opts: BuildOptions,
    report: &mut BuildReport,
) -> (Vec<u64>, Vec<u32>) {
    let sym = opts.symmetrize;
    canonicalize(&mut pairs, opts, report);
    pairs.par_sort_unstable();
    if opts.drop_duplicates {
        let before = entries(&pairs, sym);
        pairs.dedup();
        report.duplicates_dropped = before - entries(&pairs, sym);
    }
    pairs.shrink_to_fit();
    let offsets = offsets_of(n, pairs.iter().copied(), sym);
    if sym {
        let (cols, _) = scatter_rows::<()>(&offsets, &pairs, None, true);
        (offsets, cols)
    } else {
        // Sorted by source already: the destinations, compacted in place, are `cols`.
        let m = pairs.len();
        let mut flat: Vec<u32> = bytemuck::allocation::cast_vec(pairs);
        for i in 0..m {
            flat[i] = flat[2 * i + 1];
        }
        flat.truncate(m);
        flat.shrink_to_fit();
        (offsets, flat)
    }
}

fn build_weighted<W: EdgeWeight + Default>(
    n: u32,
    mut pairs: Vec<[u32; 2]>,
    mut weights: Vec<W>,
    opts: BuildOptions,
    report: &mut BuildReport,
) -> (Vec<u64>, Vec<u32>, Vec<W>) {
    let sym = opts.symmetrize;
    if opts.drop_self_loops {
        let mut write = 0;
        for i in 0..pairs.len() {
            if pairs[i][0] != pairs[i][1] {
                pairs[write] = pairs[i];
                weights[write] = weights[i];
                write += 1;
            }
        }
        report.self_loops_dropped = (pairs.len() - write) as u64;
        pairs.truncate(write);
        weights.truncate(write);
    }
    canonicalize(&mut pairs, opts, report);
    // Sort an index by (pair, weight), then put pairs and weights in that order in place:
    // the first of equal pairs carries the smallest weight.
    let mut order: Vec<usize> = (0..pairs.len()).collect();
    order.par_sort_unstable_by(|&i, &j| {
        pairs[i]
            .cmp(&pairs[j])
            .then(W::order(&weights[i], &weights[j]))
    });
    gather_in_place(&mut pairs, &mut weights, order);
    if opts.drop_duplicates {
        let before = entries(&pairs, sym);
        let mut write = 0;
        for i in 0..pairs.len() {
            if write == 0 || pairs[i] != pairs[write - 1] {
                pairs[write] = pairs[i];
                weights[write] = weights[i];
                write += 1;
            }
        }
        pairs.truncate(write);
        weights.truncate(write);
        report.duplicates_dropped = before - entries(&pairs, sym);
    }
    pairs.shrink_to_fit();
    weights.shrink_to_fit();
    let offsets = offsets_of(n, pairs.iter().copied(), sym);
    let (cols, w) = scatter_rows(&offsets, &pairs, Some(&weights), sym);
    (offsets, cols, w)
}

/// Rearranges `a` and `b` so that element `k` is the one that was at `order[k]`.
fn gather_in_place<A: Copy, B: Copy>(a: &mut [A], b: &mut [B], mut order: Vec<usize>) {
    for start in 0..order.len() {
        if order[start] == start {
            continue;
        }
        let (first_a, first_b) = (a[start], b[start]);
        let mut j = start;
        loop {
            let src = order[j];
            order[j] = j; // done
            if src == start {
                (a[j], b[j]) = (first_a, first_b);
                break;
            }
            (a[j], b[j]) = (a[src], b[src]);
            j = src;
        }
    }
}

/// Fills rows from sorted pairs, both ways when `offsets` was counted symmetric (pairs
/// `[min, max]`). Row x then receives its smaller neighbours (from pairs `[y, x]`) in
/// ascending order before its larger ones (pairs `[x, z]`): rows come out sorted.
fn scatter_rows<W: Copy + Default>(
    offsets: &[u64],
    pairs: &[[u32; 2]],
    weights: Option<&[W]>,
    symmetric: bool,
) -> (Vec<u32>, Vec<W>) {
    let n = offsets.len() - 1;
    let total = offsets[n] as usize;
    let mut cursor = offsets[..n].to_vec();
    let mut cols = vec![0u32; total];
    let mut out_w = vec![W::default(); if weights.is_some() { total } else { 0 }];
    let mut put = |row: u32, col: u32, i: usize| {
        let slot = cursor[row as usize] as usize;
        cols[slot] = col;
        if let Some(w) = weights {
            out_w[slot] = w[i];
        }
        cursor[row as usize] += 1;
    };
    for (i, &[a, b]) in pairs.iter().enumerate() {
        put(a, b, i);
        if symmetric && a != b {
            put(b, a, i);
        }
    }
    (cols, out_w)
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

/// Runs `$body` with `$w` bound to the weight vector, whatever its element type (an empty
/// `Vec<()>` when there are none).
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
        let rows = row_bounds(offsets);
        let col_bounds = entry_bounds(offsets, &rows);
        let no_weights = vec![0; rows.len()];
        let weight_bounds = if has_w { &col_bounds } else { &no_weights };
        let jobs: Vec<_> = split_at_bounds(cols, &col_bounds)
            .into_iter()
            .zip(split_at_bounds(weights, weight_bounds))
            .zip(split_at_bounds(&mut kept, &rows))
            .zip(rows.iter().copied())
            .collect();
        jobs.into_par_iter()
            .for_each_init(Vec::new, |scratch, (((c, w), k), lo)| {
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

/// Vertex bounds `0 = b0 < b1 < ... = n` of ranges with roughly equal edge counts, several
/// per thread: the unit of parallel work over rows.
pub(crate) fn row_bounds(offsets: &[u64]) -> Vec<usize> {
    let n = offsets.len() - 1;
    let pieces = (rayon::current_num_threads() * 16) as u64;
    let target = (offsets[n] / pieces).max(4096);
    let mut bounds = vec![0];
    let mut lo = 0;
    while lo < n {
        let goal = offsets[lo] + target;
        lo = (offsets.partition_point(|&o| o <= goal) - 1).clamp(lo + 1, n);
        bounds.push(lo);
    }
    bounds
}

/// The entry (column) bounds of the rows between vertex bounds.
pub(crate) fn entry_bounds(offsets: &[u64], rows: &[usize]) -> Vec<usize> {
    rows.iter().map(|&v| offsets[v] as usize).collect()
}

/// `data[bounds[p]..bounds[p + 1]]` for each p, as disjoint mutable slices.
pub(crate) fn split_at_bounds<'a, T>(data: &'a mut [T], bounds: &[usize]) -> Vec<&'a mut [T]> {
    let mut pieces = Vec::with_capacity(bounds.len().saturating_sub(1));
    let mut rest = &mut data[bounds.first().copied().unwrap_or(0)..];
    for pair in bounds.windows(2) {
        let (head, tail) = rest.split_at_mut(pair[1] - pair[0]);
        pieces.push(head);
        rest = tail;
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::SplitMix64;

    /// The obvious build: collect every entry, sort, dedup.
    fn naive(n: u32, pairs: &[[u32; 2]], w: &[u32], opts: BuildOptions) -> Csr {
        let mut entries: Vec<(u32, u32, u32)> = Vec::new();
        for (i, &[u, v]) in pairs.iter().enumerate() {
            if u == v && opts.drop_self_loops {
                continue;
            }
            entries.push((u, v, w[i]));
            if opts.symmetrize && u != v {
                entries.push((v, u, w[i]));
            }
        }
        entries.sort();
        if opts.drop_duplicates {
            entries.dedup_by(|b, a| (a.0, a.1) == (b.0, b.1));
        }
        let mut offsets = vec![0u64; n as usize + 1];
        for e in &entries {
            offsets[e.0 as usize + 1] += 1;
        }
        for v in 0..n as usize {
            offsets[v + 1] += offsets[v];
        }
        Csr {
            offsets,
            cols: entries.iter().map(|e| e.1).collect(),
            weights: Some(Weights::U32(entries.iter().map(|e| e.2).collect())),
        }
    }

    #[test]
    fn every_option_combination_matches_the_naive_build() {
        let mut rng = SplitMix64(11);
        for trial in 0..40 {
            let n = 1 + rng.below(30);
            let m = rng.below(120) as usize;
            let pairs: Vec<[u32; 2]> = (0..m).map(|_| [rng.below(n), rng.below(n)]).collect();
            let w: Vec<u32> = (0..m).map(|_| rng.below(5)).collect();
            for bits in 0..8 {
                let opts = BuildOptions {
                    symmetrize: bits & 1 != 0,
                    drop_self_loops: bits & 2 != 0,
                    drop_duplicates: bits & 4 != 0,
                };
                let want = naive(n, &pairs, &w, opts);
                let weighted = EdgeList {
                    num_vertices: n,
                    pairs: pairs.clone(),
                    weights: Some(Weights::U32(w.clone())),
                };
                let (got, report) = weighted.into_csr(opts).unwrap();
                assert_eq!(got, want, "trial {trial} {opts:?}");
                let plain = EdgeList {
                    num_vertices: n,
                    pairs: pairs.clone(),
                    weights: None,
                };
                let (got_plain, report_plain) = plain.into_csr(opts).unwrap();
                assert_eq!(got_plain.offsets, want.offsets, "trial {trial} {opts:?}");
                assert_eq!(got_plain.cols, want.cols, "trial {trial} {opts:?}");
                assert_eq!(report, report_plain);
                let entries =
                    2 * report.mirrored + (m as u64 - report.self_loops_dropped - report.mirrored);
                let expect_entries = if opts.symmetrize {
                    entries
                } else {
                    m as u64 - report.self_loops_dropped
                };
                assert_eq!(
                    expect_entries - report.duplicates_dropped,
                    got.num_edges() as u64,
                    "trial {trial} {opts:?}"
                );
            }
        }
    }

    #[test]
    fn out_of_range_and_mismatched_weights_are_errors() {
        let e = EdgeList {
            num_vertices: 2,
            pairs: vec![[0, 5]],
            weights: None,
        };
        assert_eq!(
            e.into_csr(BuildOptions::default()),
            Err(BuildError::VertexOutOfRange {
                index: 0,
                u: 0,
                v: 5,
                n: 2
            })
        );
        let e = EdgeList {
            num_vertices: 2,
            pairs: vec![[0, 1]],
            weights: Some(Weights::U32(vec![])),
        };
        assert!(matches!(
            e.into_csr(BuildOptions::default()),
            Err(BuildError::WeightCount { .. })
        ));
    }
}
