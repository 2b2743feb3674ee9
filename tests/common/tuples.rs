//! Programs whose task items are tuples, written as a user would: N-Queens (a 3-word board
//! state), SSSP with `(vertex, distance)` items and float distances, and a 4-part item of mixed
//! widths taken whole. Each runs on the CPU executor in CI and on the GPU in
//! `examples/gpu_suite.rs` (included there by path), for every worker kind and strategy.

use atos::prelude::*;
use atos::{RunError, Stats};
use atos_graph::Csr;

// ---- N-Queens: the board (columns and both diagonals taken) travels with the item ----

#[atos::state]
pub struct Queens<'a> {
    pub n: u32,
    pub solutions: Atomics<'a, u64>,
    pub boards: Queue<'a, (u32, u32, u32)>,
}

/// Places the next row's queen in every free column: a full board counts a solution, any other
/// goes back to the queue. The row is the number of queens placed.
#[atos::task(worker = "warp", fetch = 4)]
pub fn place((cols, left, right): (u32, u32, u32), s: &Queens) {
    let row = cols.count_ones();
    let taken = cols | left | right;
    for c in lanes(0..s.n) {
        let bit = 1u32 << c;
        if taken & bit == 0 {
            if row + 1 == s.n {
                s.solutions.fetch_add(0u32, 1);
            } else {
                s.boards
                    .push((cols | bit, (left | bit) << 1, (right | bit) >> 1));
            }
        }
    }
}

/// Solutions of `n` queens and the tasks run.
pub fn queens_run(
    n: u32,
    run: impl FnOnce(&Queens, &[(u32, u32, u32)]) -> Result<Stats, RunError>,
) -> (u64, u64) {
    let solutions = AtomicArray::<u64>::filled(1, 0);
    let state = Queens {
        n,
        solutions: solutions.view(),
        boards: Queue::with_capacity(1 << 20),
    };
    let stats = run(&state, &[(0, 0, 0)]).unwrap();
    (solutions.to_vec()[0], stats.popped)
}

/// Solutions and search-tree nodes with fewer than `n` queens (the tasks a run pops).
pub fn queens_reference(n: u32) -> (u64, u64) {
    fn go(n: u32, cols: u32, left: u32, right: u32, out: &mut (u64, u64)) {
        out.1 += 1;
        let row = cols.count_ones();
        let mask = (1u32 << n) - 1;
        let mut free = !(cols | left | right) & mask;
        while free != 0 {
            let bit = free & free.wrapping_neg();
            free ^= bit;
            if row + 1 == n {
                out.0 += 1;
            } else {
                go(n, cols | bit, (left | bit) << 1, (right | bit) >> 1, out);
            }
        }
    }
    let mut out = (0, 0);
    go(n, 0, 0, 0, &mut out);
    out
}

// ---- SSSP with (vertex, distance) items: stale items are dropped on arrival ----

#[atos::state]
pub struct FloatSssp<'a> {
    pub offsets: Slice<'a, u32>,
    pub cols: Slice<'a, u32>,
    pub weights: Slice<'a, f32>,
    pub dist: Atomics<'a, f32>,
    pub work: Queue<'a, (u32, f32)>,
}

/// Relaxes `v`'s edges from the distance the item carries, unless a shorter one arrived since.
#[atos::task(worker = "thread", fetch = 2)]
pub fn relax_item((v, d): (u32, f32), s: &FloatSssp) {
    if d > s.dist.load(v) {
        return;
    }
    for e in s.offsets[v]..s.offsets[v + 1] {
        let u = s.cols[e];
        let nd = d + s.weights[e];
        if s.dist.fetch_min(u, nd) > nd {
            s.work.push((u, nd));
        }
    }
}

/// Integer-valued weights 1..=9 (exact in f32, so every order of relaxation gives Dijkstra's
/// distances bit for bit).
pub fn float_weights(g: &Csr) -> Vec<f32> {
    (0..g.num_edges())
        .map(|e| ((e * 7 + 3) % 9 + 1) as f32)
        .collect()
}

/// Distances from vertex 0 (`f32::INFINITY` where unreached).
pub fn float_sssp_run(
    g: &Csr,
    run: impl FnOnce(&FloatSssp, &[(u32, f32)]) -> Result<Stats, RunError>,
) -> Vec<f32> {
    let weights = float_weights(g);
    let offsets = g.offsets_u32().unwrap();
    let mut start = vec![f32::INFINITY; g.num_vertices()];
    start[0] = 0.0;
    let dist = AtomicArray::from_vec(start);
    let state = FloatSssp {
        offsets: Slice::new(&offsets),
        cols: Slice::new(&g.cols),
        weights: Slice::new(&weights),
        dist: dist.view(),
        work: Queue::with_capacity(g.num_edges() as u64 + 1),
    };
    run(&state, &[(0, 0.0)]).unwrap();
    dist.to_vec()
}

/// Dijkstra's distances from vertex 0 with [`float_weights`].
pub fn float_dijkstra(g: &Csr) -> Vec<f32> {
    let weights = float_weights(g);
    let mut dist = vec![f32::INFINITY; g.num_vertices()];
    let mut heap = std::collections::BinaryHeap::new();
    dist[0] = 0.0;
    heap.push(std::cmp::Reverse((0u64, 0u32)));
    while let Some(std::cmp::Reverse((d, v))) = heap.pop() {
        if d as f32 > dist[v as usize] {
            continue;
        }
        for e in g.edge_range(v) {
            let v = v as usize;
            let u = g.cols[e] as usize;
            let nd = dist[v] + weights[e];
            if nd < dist[u] {
                dist[u] = nd;
                heap.push(std::cmp::Reverse((nd as u64, u as u32)));
            }
        }
    }
    dist
}

// ---- a 4-part item of mixed widths, taken whole, read by index and pushed whole ----

#[atos::state]
pub struct Mixed<'a> {
    pub sum: Atomics<'a, u64>,
    pub negatives: Atomics<'a, u32>,
    pub echoes: Atomics<'a, u64>,
    pub work: Queue<'a, (i32, bool, u16, u64)>,
    pub echo: Queue<'a, (i32, bool, u16, u64)>,
}

/// Counts down from the item's first part, doubling the last and stepping the third (wrapping
/// at 16 bits); every item is also echoed whole to the second queue.
#[atos::task(queue = "work", worker = "cta", fetch = 2)]
pub fn count_down(item: (i32, bool, u16, u64), s: &Mixed) {
    if item.1 {
        s.negatives.fetch_add(0u32, 1);
    }
    s.sum.fetch_add(0u32, item.3 + u64::from(item.2));
    s.echo.push(item);
    let next = item.0 - 1;
    if next > -4 {
        s.work
            .push((next, next < 0, item.2.wrapping_add(1000), item.3 * 2));
        s.work.push((next - 1, next - 1 < 0, item.2, item.3 + 1));
    }
}

/// Checks an echoed item against what its sender held: the parts arrive as they were sent.
#[atos::task(queue = "echo", worker = "thread")]
pub fn echo((count, negative, step, value): (i32, bool, u16, u64), s: &Mixed) {
    if negative == (count < 0) {
        s.echoes
            .fetch_add(0u32, value ^ u64::from(step) ^ (count as u64));
    }
}

/// (sum, negatives, echoes) from the seeds.
pub fn mixed_run(
    seeds: &[(i32, bool, u16, u64)],
    run: impl FnOnce(&Mixed, &[(i32, bool, u16, u64)]) -> Result<Stats, RunError>,
) -> (u64, u32, u64) {
    let sum = AtomicArray::<u64>::filled(1, 0);
    let negatives = AtomicArray::<u32>::filled(1, 0);
    let echoes = AtomicArray::<u64>::filled(1, 0);
    let state = Mixed {
        sum: sum.view(),
        negatives: negatives.view(),
        echoes: echoes.view(),
        work: Queue::with_capacity(1 << 16),
        echo: Queue::with_capacity(1 << 16),
    };
    run(&state, seeds).unwrap();
    (sum.to_vec()[0], negatives.to_vec()[0], echoes.to_vec()[0])
}

/// What [`mixed_run`] must return, by plain recursion (the sums are order-free).
pub fn mixed_reference(seeds: &[(i32, bool, u16, u64)]) -> (u64, u32, u64) {
    fn go(item: (i32, bool, u16, u64), out: &mut (u64, u32, u64)) {
        if item.1 {
            out.1 += 1;
        }
        out.0 = out.0.wrapping_add(item.3 + u64::from(item.2));
        if item.1 == (item.0 < 0) {
            out.2 = out
                .2
                .wrapping_add(item.3 ^ u64::from(item.2) ^ (item.0 as u64));
        }
        let next = item.0 - 1;
        if next > -4 {
            go((next, next < 0, item.2.wrapping_add(1000), item.3 * 2), out);
            go((next - 1, next - 1 < 0, item.2, item.3 + 1), out);
        }
    }
    let mut out = (0, 0, 0);
    for s in seeds {
        go(*s, &mut out);
    }
    out
}

/// Seeds of [`mixed_run`]: a flag that disagrees with the count (never echoed), a third part
/// near the top of `u16` (wraps), a last part past 32 bits.
pub const MIXED_SEEDS: [(i32, bool, u16, u64); 3] = [
    (6, false, 65_000, 1),
    (3, true, 7, 1 << 40),
    (-2, true, 0, 5),
];
