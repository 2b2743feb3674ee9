//! Builds a CSR straight from an indexed edge generator, in parallel: each edge is generated
//! twice in all (once to count, once to place), whatever the thread count.
//!
//! 1. Threads take chunks of the edge indices, generate them and count each entry (an edge,
//!    and its reverse when symmetrizing) by the *part* of the rows it lands in (one part per
//!    thread).
//! 2. They generate their chunks again and write each entry as a `(row, col)` pair into its
//!    part's region of one pair array, at positions the counts fixed.
//! 3. Each part counts its rows' degrees and, once the offsets are known, fills its rows'
//!    columns from its own region, staged per block of rows so that counter updates and column
//!    writes stay within a small window of memory.
//! 4. Neighbour lists are sorted and deduplicated.
//!
//! Peak memory is the CSR with duplicates, one counter per vertex and the pairs (8 bytes per
//! entry). The build this replaced kept no pairs but had every thread regenerate every edge in
//! both passes, so its generation did not shrink with more threads: kron:24 took 62.9 s on 16
//! cores (`docs/results/2026-11-24c-h100-call1/convert.txt`). Locked increments to shared
//! counters, tried before that, were slower still.

use rayon::prelude::*;

use crate::build::{BuildOptions, BuildReport, sort_neighbors, split_at_bounds};
use crate::csr::Csr;

/// Edge `i` for `i` in `0..count` is `edge(i)` (`None` when generation drops it). The result
/// depends only on `edge`, not on the thread count.
pub(crate) fn assemble<F>(n: u32, count: u64, opts: BuildOptions, edge: F) -> (Csr, BuildReport)
where
    F: Fn(u64) -> Option<(u32, u32)> + Sync,
{
    let n = n as usize;
    let threads = rayon::current_num_threads();
    let parts = threads.clamp(1, n.max(1));
    let bounds: Vec<usize> = (0..=parts).map(|p| p * n / parts).collect();
    let part_of = |row: u32| bounds.partition_point(|&b| b <= row as usize) - 1;
    // A few chunks per thread, so that uneven generation costs even out.
    let chunks = ((threads * 4) as u64).clamp(1, count.max(1));
    let chunk_range = |c: u64| c * count / chunks..(c + 1) * count / chunks;

    // Calls `put(row, col)` for every entry of edge `i`: whether the edge was kept, and
    // whether it was a dropped self-loop.
    let entries = |i: u64, put: &mut dyn FnMut(u32, u32)| -> (bool, bool) {
        let Some((u, v)) = edge(i) else {
            return (false, false);
        };
        if u == v && opts.drop_self_loops {
            return (false, true);
        }
        put(u, v);
        if opts.symmetrize && u != v {
            put(v, u);
        }
        (true, false)
    };

    // 1. Entries per (chunk, part), and the kept edges and dropped loops.
    let counted: Vec<(Vec<u64>, u64, u64)> = (0..chunks)
        .into_par_iter()
        .map(|c| {
            let mut per_part = vec![0u64; parts];
            let (mut kept, mut loops) = (0u64, 0u64);
            for i in chunk_range(c) {
                let (k, l) = entries(i, &mut |row, _| per_part[part_of(row)] += 1);
                kept += u64::from(k);
                loops += u64::from(l);
            }
            (per_part, kept, loops)
        })
        .collect();
    let kept: u64 = counted.iter().map(|c| c.1).sum();
    let loops: u64 = counted.iter().map(|c| c.2).sum();

    // 2. The pairs, part by part and, within a part, chunk by chunk.
    let mut region = Vec::with_capacity(parts * chunks as usize + 1);
    region.push(0usize);
    for p in 0..parts {
        for c in &counted {
            region.push(region.last().unwrap() + c.0[p] as usize);
        }
    }
    let total = *region.last().unwrap();
    let mut pairs = vec![(0u32, 0u32); total];
    let mut by_chunk: Vec<Vec<&mut [(u32, u32)]>> = (0..chunks).map(|_| Vec::new()).collect();
    for (k, piece) in split_at_bounds(&mut pairs, &region).into_iter().enumerate() {
        by_chunk[k % chunks as usize].push(piece);
    }
    by_chunk
        .into_par_iter()
        .enumerate()
        .for_each(|(c, mut out)| {
            let mut cursor = vec![0usize; parts];
            for i in chunk_range(c as u64) {
                entries(i, &mut |row, col| {
                    let p = part_of(row);
                    out[p][cursor[p]] = (row, col);
                    cursor[p] += 1;
                });
            }
        });
    let part_bounds: Vec<usize> = (0..=parts).map(|p| region[p * chunks as usize]).collect();

    // 3. Degrees, offsets, then columns, each part from its own pairs.
    let apply_part = |p: usize, apply: &mut dyn FnMut(usize, u32)| {
        let mut staged = Staging::new(bounds[p], bounds[p + 1]);
        for &(row, col) in &pairs[part_bounds[p]..part_bounds[p + 1]] {
            staged.push(row, col, apply);
        }
        staged.flush_all(apply);
    };
    let mut degree = vec![0u64; n];
    split_at_bounds(&mut degree, &bounds)
        .into_par_iter()
        .enumerate()
        .for_each(|(p, slice)| apply_part(p, &mut |row, _| slice[row - bounds[p]] += 1));

    let mut offsets = Vec::with_capacity(n + 1);
    offsets.push(0u64);
    let mut filled = 0u64;
    for d in degree.iter_mut() {
        let deg = *d;
        *d = filled; // now the fill cursor
        filled += deg;
        offsets.push(filled);
    }
    debug_assert_eq!(filled, total as u64);
    let mut cols = vec![0u32; total];
    let col_bounds: Vec<usize> = bounds.iter().map(|&b| offsets[b] as usize).collect();
    split_at_bounds(&mut cols, &col_bounds)
        .into_par_iter()
        .zip(split_at_bounds(&mut degree, &bounds))
        .enumerate()
        .for_each(|(p, (out, cursor))| {
            let (lo, base) = (bounds[p], col_bounds[p] as u64);
            apply_part(p, &mut |row, col| {
                let slot = &mut cursor[row - lo];
                out[(*slot - base) as usize] = col;
                *slot += 1;
            });
        });
    drop(pairs);
    drop(degree);
    let mut csr = Csr {
        offsets,
        cols,
        weights: None,
    };
    let mirrored = if opts.symmetrize { filled - kept } else { 0 };
    let duplicates_dropped = sort_neighbors(&mut csr, opts.drop_duplicates);
    let report = BuildReport {
        input_edges: kept + loops,
        self_loops_dropped: loops,
        mirrored,
        duplicates_dropped,
    };
    (csr, report)
}

/// Entries gathered per block of rows before they are applied, so that counter updates and
/// column writes land in a narrow range of memory at a time instead of anywhere.
struct Staging {
    lo: usize,
    shift: u32,
    len: Vec<u16>,
    slots: Vec<(u32, u32)>,
}

const ROWS_PER_BLOCK_LOG2: u32 = 8;
const STAGED_PER_BLOCK: usize = 256;

impl Staging {
    fn new(lo: usize, hi: usize) -> Staging {
        let blocks = ((hi - lo) >> ROWS_PER_BLOCK_LOG2) + 1;
        Staging {
            lo,
            shift: ROWS_PER_BLOCK_LOG2,
            len: vec![0; blocks],
            slots: vec![(0, 0); blocks * STAGED_PER_BLOCK],
        }
    }

    fn push(&mut self, row: u32, col: u32, apply: &mut dyn FnMut(usize, u32)) {
        let b = (row as usize - self.lo) >> self.shift;
        let k = self.len[b] as usize;
        self.slots[b * STAGED_PER_BLOCK + k] = (row, col);
        self.len[b] += 1;
        if k + 1 == STAGED_PER_BLOCK {
            self.flush(b, apply);
        }
    }

    fn flush(&mut self, b: usize, apply: &mut dyn FnMut(usize, u32)) {
        let start = b * STAGED_PER_BLOCK;
        for &(row, col) in &self.slots[start..start + self.len[b] as usize] {
            apply(row as usize, col);
        }
        self.len[b] = 0;
    }

    fn flush_all(&mut self, apply: &mut dyn FnMut(usize, u32)) {
        for b in 0..self.len.len() {
            self.flush(b, apply);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::assemble;
    use crate::build::{BuildOptions, EdgeList};
    use crate::generate::SplitMix64;

    /// The same CSR and report as building the generated edges as an edge list, for every
    /// option combination, on 1, 2 and 5 threads (one part per row when threads outnumber
    /// vertices, more chunks than edges, no edges at all, dropped edges included).
    #[test]
    fn assemble_matches_the_edge_list_build() {
        let mut rng = SplitMix64(5);
        for trial in 0..32 {
            let (n, count) = match trial {
                0 => (1, 5),
                1 => (7, 0),
                _ => (1 + rng.below(40), u64::from(rng.below(200))),
            };
            let edges: Vec<Option<(u32, u32)>> = (0..count)
                .map(|_| (rng.below(8) != 0).then(|| (rng.below(n), rng.below(n))))
                .collect();
            for bits in 0..8 {
                let opts = BuildOptions {
                    symmetrize: bits & 1 != 0,
                    drop_self_loops: bits & 2 != 0,
                    drop_duplicates: bits & 4 != 0,
                };
                let mut list = EdgeList::new(n);
                for &(u, v) in edges.iter().flatten() {
                    list.push(u, v);
                }
                let want = list.into_csr(opts).unwrap();
                for threads in [1, 2, 5] {
                    let got = rayon::ThreadPoolBuilder::new()
                        .num_threads(threads)
                        .build()
                        .unwrap()
                        .install(|| assemble(n, count, opts, |i| edges[i as usize]));
                    assert_eq!(
                        got, want,
                        "trial {trial}, options {opts:?}, {threads} threads"
                    );
                }
            }
        }
    }
}
