//! Builds a CSR straight from an indexed edge generator, in parallel and without an edge
//! list: one pass counts degrees, a second regenerates the edges into place, then neighbour
//! lists are sorted and deduplicated. Peak memory is the CSR with duplicates plus one
//! counter per vertex.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

use crate::build::{BuildOptions, BuildReport, sort_neighbors};
use crate::csr::Csr;

const BLOCK: u64 = 1 << 16;

/// Edge `i` for `i` in `0..count` is `edge(i)` (`None` when generation drops it). The result
/// depends only on `edge`, not on the thread count.
pub(crate) fn assemble<F>(n: u32, count: u64, opts: BuildOptions, edge: F) -> (Csr, BuildReport)
where
    F: Fn(u64) -> Option<(u32, u32)> + Sync,
{
    let n = n as usize;
    let for_each_edge = |f: &(dyn Fn(u32, u32) + Sync)| -> (u64, u64) {
        (0..count.div_ceil(BLOCK))
            .into_par_iter()
            .map(|b| {
                let (mut kept, mut loops) = (0u64, 0u64);
                for i in b * BLOCK..((b + 1) * BLOCK).min(count) {
                    let Some((u, v)) = edge(i) else { continue };
                    if u == v && opts.drop_self_loops {
                        loops += 1;
                        continue;
                    }
                    kept += 1;
                    f(u, v);
                    if opts.symmetrize && u != v {
                        f(v, u);
                    }
                }
                (kept, loops)
            })
            .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
    };

    let degree: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
    let (kept, loops) = for_each_edge(&|u, _| {
        degree[u as usize].fetch_add(1, Relaxed);
    });
    let mut offsets = Vec::with_capacity(n + 1);
    offsets.push(0u64);
    let mut total = 0u64;
    for d in &degree {
        let deg = d.load(Relaxed);
        d.store(total, Relaxed); // now the fill cursor
        total += deg;
        offsets.push(total);
    }
    let cols: Vec<AtomicU32> = (0..total).map(|_| AtomicU32::new(0)).collect();
    for_each_edge(&|u, v| {
        let slot = degree[u as usize].fetch_add(1, Relaxed);
        cols[slot as usize].store(v, Relaxed);
    });
    drop(degree);
    // Same size and alignment: this collect reuses the allocation.
    let cols: Vec<u32> = cols.into_iter().map(AtomicU32::into_inner).collect();
    let mut csr = Csr {
        offsets,
        cols,
        weights: None,
    };
    let mirrored = if opts.symmetrize { total - kept } else { 0 };
    let duplicates_dropped = sort_neighbors(&mut csr, opts.drop_duplicates);
    let report = BuildReport {
        input_edges: kept + loops,
        self_loops_dropped: loops,
        mirrored,
        duplicates_dropped,
    };
    (csr, report)
}
