//! kron:22's colouring work per side of a split, in latency-bound "trips" (written 2026-12-07,
//! docs/results/2026-12-07g-low-degrees-model.md). A CPU model, not a GPU measurement.
//!
//! A vertex `v` of degree `d`, first-fit colour `c` (CPU greedy in id order) reads its
//! neighbours `c / 64 + 1` times (one pass per 64-colour window). A worker reads 4 strides of
//! its lanes per trip: a thread 4 edges, a warp 128, a CTA of 256 threads 1,024. Each vertex
//! also costs 2 trips of its own (its offsets, its store). A persistent CTA group claims a batch
//! (`subs` sub-workers x `fetch` items, contiguous per sub-worker, in id order) and waits for the
//! slowest sub-worker, so a side's time is the sum over batches of the slowest sub-worker's
//! trips; "imbalance" is that over the mean. The sides' totals are divided by 792 groups (6
//! blocks of 256 on 132 SMs). Checks, queue round trips and conflicts are not modelled.
use atos_graph::reference::coloring::{ColoringOrder, greedy_coloring};

fn side(list: &[usize], subs: usize, fetch: usize, cost: &dyn Fn(usize) -> u64) -> (u64, f64) {
    let (mut slowest, mut total) = (0u64, 0u64);
    for batch in list.chunks(subs * fetch) {
        let mut m = 0;
        for part in batch.chunks(fetch) {
            let t: u64 = part.iter().map(|&v| cost(v)).sum();
            m = m.max(t);
            total += t;
        }
        slowest += m;
    }
    (slowest, slowest as f64 / (total as f64 / subs as f64))
}

fn main() {
    let g = atos_graph::load::load("kron:22").unwrap();
    let n = g.num_vertices();
    let c = greedy_coloring(&g, ColoringOrder::Natural);
    let deg: Vec<u64> = (0..n as u32).map(|v| g.degree(v)).collect();
    let windows = |v: usize| (c[v] / 64 + 1) as u64;
    let thread = |v: usize| windows(v) * deg[v].div_ceil(4) + 2;
    let warp = |v: usize| windows(v) * deg[v].div_ceil(128) + 2;
    let cta = |v: usize| windows(v) * deg[v].div_ceil(1024) + 2;
    let mut hist = [0u64; 20];
    for &d in &deg {
        hist[(64 - d.leading_zeros()) as usize] += 1;
    }
    println!("vertices by bit length of the degree (0: no edges, 1: 1, 2: 2-3, 3: 4-7, ...): {hist:?}");
    let reads: u64 = (0..n).map(|v| deg[v] * windows(v)).sum();
    println!("first fit's neighbour reads: {reads} = {:.2} x the {} edges", reads as f64 / g.num_edges() as f64, g.num_edges());
    let sides = |low: Option<u64>, big: u64| {
        let few: Vec<usize> = (0..n).filter(|&v| low.is_some_and(|l| deg[v] <= l)).collect();
        let mid: Vec<usize> = (0..n).filter(|&v| !low.is_some_and(|l| deg[v] <= l) && deg[v] <= big).collect();
        let hubs: Vec<usize> = (0..n).filter(|&v| deg[v] > big).collect();
        (few, mid, hubs)
    };
    println!("\nsplit (warps up to the split degree, CTAs above), warp fetch swept:");
    for big in [128u64, 1024, 4096] {
        let (_, mid, hubs) = sides(None, big);
        let (hs, _) = side(&hubs, 1, 1, &cta);
        for fetch in [4usize, 8, 16, 32, 64] {
            let (ws, wi) = side(&mid, 8, fetch, &warp);
            println!("  split {big} warp/{fetch}: warps {} vertices {ws} trips (imbalance {wi:.2}), CTAs {} hubs {hs}; per group {:.0}",
                mid.len(), hubs.len(), (ws + hs) as f64 / 792.0);
        }
    }
    println!("\ntiered (threads up to low, warps/8 up to 4,096, CTAs above):");
    for low in [0u64, 4, 8, 16, 32, 64] {
        let (few, mid, hubs) = sides(Some(low), 4096);
        let (hs, _) = side(&hubs, 1, 1, &cta);
        let (ws, wi) = side(&mid, 8, 8, &warp);
        for fetch in [1usize, 4, 16] {
            let (ts, ti) = side(&few, 256, fetch, &thread);
            println!("  low {low} thread/{fetch}: threads {} vertices {ts} trips (imbalance {ti:.2}), warps {} {ws} ({wi:.2}), CTAs {hs}; per group {:.0}",
                few.len(), mid.len(), (ts + ws + hs) as f64 / 792.0);
        }
    }
}
