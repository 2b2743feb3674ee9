//! Programs of the program-model issue, written as a user would: each runs on the CPU
//! executor in CI and on the GPU in `examples/gpu_suite.rs` (included there by path).

use atos::prelude::*;
use atos::{RunError, Stats};
use atos_graph::Csr;

// ---- 1. uniform code after a `lanes` loop sees every lane's effects ----

#[atos::state]
pub struct FlagState<'a> {
    pub seen: Atomics<'a, u32>,
    pub misses: Atomics<'a, u32>,
    pub work: Queue<'a, u32>,
}

/// The last index of the `lanes` loop (a lane other than the leader on warps and CTAs) sets
/// the flag; the uniform code after the loop must see it.
#[atos::task(worker = "cta")]
pub fn flag(v: u32, s: &FlagState) {
    for i in lanes(0..256u32) {
        if i == 255 {
            s.seen.store(v, 1);
        }
    }
    if s.seen.load(v) == 0 {
        s.misses.fetch_add(0u32, 1);
    }
}

/// [`flag`] with a reduction in the loop: on a CTA the reduction's own barrier, not a
/// `lanes_end`, is what orders the lanes' stores before the uniform code after the loop.
#[atos::task(worker = "cta")]
pub fn flag_reduced(v: u32, s: &FlagState) {
    let mut count = 0u32;
    for i in lanes(0..256u32) {
        if i == 255 {
            s.seen.store(v, 1);
        }
        count += 1;
    }
    if s.seen.load(v) == 0 || count != 256 {
        s.misses.fetch_add(0u32, 1);
    }
}

/// Runs `tasks` flag tasks; returns the misses.
pub fn flag_run(
    tasks: u32,
    run: impl FnOnce(&FlagState, &[u32]) -> Result<Stats, RunError>,
) -> u32 {
    let seen = AtomicArray::<u32>::filled(tasks as usize, 0);
    let misses = AtomicArray::<u32>::filled(1, 0);
    let state = FlagState {
        seen: seen.view(),
        misses: misses.view(),
        work: Queue::with_capacity(u64::from(tasks)),
    };
    let seeds: Vec<u32> = (0..tasks).collect();
    let stats = run(&state, &seeds).unwrap();
    assert_eq!(stats.popped, u64::from(tasks));
    misses.to_vec()[0]
}

// ---- 2. two queues: near/far relaxation (SSSP-style) ----

#[atos::state]
pub struct NearFar<'a> {
    pub offsets: Slice<'a, u32>,
    pub cols: Slice<'a, u32>,
    pub weights: Slice<'a, u32>,
    pub dist: Atomics<'a, u32>,
    pub near: Queue<'a, u32>,
    pub far: Queue<'a, u32>,
    pub delta: u32,
}

/// Relaxes `v`'s edges; light edges' targets go to `near`, heavy ones' to `far`.
#[atos::task(queue = "near", worker = "warp")]
pub fn relax(v: u32, s: &NearFar) {
    let d = s.dist.load(v);
    for e in lanes(s.offsets[v]..s.offsets[v + 1]) {
        let u = s.cols[e];
        let w = s.weights[e];
        let nd = d + w;
        if s.dist.fetch_min(u, nd) > nd {
            if w < s.delta {
                s.near.push(u);
            } else {
                s.far.push(u);
            }
        }
    }
}

/// A far vertex comes back through the near queue.
#[atos::task(queue = "far", worker = "thread", fetch = 4)]
pub fn promote(v: u32, s: &NearFar) {
    s.near.push(v);
}

pub const FAR: u32 = u32::MAX;

/// Shortest distances from 0 (u32::MAX unreached) through `run`.
pub fn near_far_run(
    g: &Csr,
    delta: u32,
    run: impl FnOnce(&NearFar) -> Result<Stats, RunError>,
) -> Result<(Vec<u32>, Stats), RunError> {
    let offsets = g.offsets_u32().unwrap();
    let Some(atos_graph::Weights::U32(w)) = &g.weights else {
        panic!("near/far needs u32 weights")
    };
    let dist = AtomicArray::<u32>::filled(g.num_vertices(), FAR);
    dist.view().store(0u32, 0);
    let cap = (g.num_edges() as u64).max(16);
    let state = NearFar {
        offsets: Slice::new(&offsets),
        cols: Slice::new(&g.cols),
        weights: Slice::new(w),
        dist: dist.view(),
        near: Queue::with_capacity(cap),
        far: Queue::with_capacity(cap),
        delta,
    };
    let stats = run(&state)?;
    Ok((dist.to_vec(), stats))
}

/// Dijkstra's distances as u32 (u32::MAX unreached).
pub fn dijkstra_u32(g: &Csr) -> Vec<u32> {
    atos_graph::reference::sssp::dijkstra(g, 0)
        .unwrap()
        .iter()
        .map(|d| if d.is_finite() { *d as u32 } else { FAR })
        .collect()
}

// ---- 3. two task kinds: speculative greedy colouring with a conflict check ----

#[atos::state]
pub struct Coloring<'a> {
    pub offsets: Slice<'a, u32>,
    pub cols: Slice<'a, u32>,
    /// The colour in the low 31 bits; the top bit set while the vertex waits to be coloured
    /// (queued, or its `color` running), so it is queued at most once at a time.
    pub color: Atomics<'a, u32>,
    pub recolor: Queue<'a, u32>,
    pub check: Queue<'a, u32>,
}

/// No colour (the low 31 bits all ones), waiting.
pub const UNCOLORED: u32 = u32::MAX;

/// Gives `v` the smallest colour none of its neighbours holds, then checks it.
#[atos::task(queue = "recolor", worker = "warp")]
pub fn color(v: u32, s: &Coloring) {
    let mut c = 0u32;
    loop {
        let mut used = false;
        for e in s.offsets[v]..s.offsets[v + 1] {
            let u = s.cols[e];
            if u != v && s.color.load(u) & (u32::MAX >> 1) == c {
                used = true;
            }
        }
        if !used {
            break;
        }
        c += 1;
    }
    // The colour, and the waiting bit cleared in the same store: a check that reads it and
    // claims `v` with `fetch_or` on the same word sees the bit clear (`atos::apps::coloring`,
    // "Why the loser is queued").
    s.color.store(v, c);
    // The colour is stored before this vertex's check (and any neighbour's) reads colours:
    // without it both checks of an edge coloured at once may read the old colours
    // (`atos::apps::coloring`, "Why it ends properly coloured"). Only the push follows, so CTA
    // groups and persistent thread groups fence once per batch (their pushes held until then).
    atos::fence();
    s.check.push(v);
}

/// Re-queues the larger endpoint of every edge whose ends hold `v`'s colour.
#[atos::task(queue = "check", worker = "cta", fetch = 8)]
pub fn check(v: u32, s: &Coloring) {
    let c = s.color.load(v) & (u32::MAX >> 1);
    for e in lanes(s.offsets[v]..s.offsets[v + 1]) {
        let u = s.cols[e];
        if u != v && s.color.load(u) & (u32::MAX >> 1) == c {
            let loser = if u > v { u } else { v };
            if s.color.fetch_or(loser, 1 << 31) & (1 << 31) == 0 {
                s.recolor.push(loser);
            }
        }
    }
}

/// Colours every vertex of `g`; returns the colours (`UNCOLORED` for a vertex left waiting,
/// which no run that ends properly leaves, so validation fails on it).
pub fn coloring_run(
    g: &Csr,
    run: impl FnOnce(&Coloring, &[u32]) -> Result<Stats, RunError>,
) -> Result<(Vec<u32>, Stats), RunError> {
    let offsets = g.offsets_u32().unwrap();
    let n = g.num_vertices();
    let color = AtomicArray::<u32>::filled(n, UNCOLORED);
    let state = Coloring {
        offsets: Slice::new(&offsets),
        cols: Slice::new(&g.cols),
        color: color.view(),
        recolor: Queue::with_capacity(n as u64 + 1),
        check: Queue::with_capacity(n as u64 + 1),
    };
    let all: Vec<u32> = (0..n as u32).collect();
    let stats = run(&state, &all)?;
    let colors = color.to_vec().into_iter();
    Ok((
        colors
            .map(|w| if w >> 31 == 0 { w } else { UNCOLORED })
            .collect(),
        stats,
    ))
}

// ---- 4. an idle hook: integer residual push with a re-scan ----

#[atos::state]
pub struct Residual<'a> {
    pub offsets: Slice<'a, u32>,
    pub cols: Slice<'a, u32>,
    pub residue: Atomics<'a, u64>,
    pub mass: Atomics<'a, u64>,
    /// 1 while the vertex waits in `work`: queued at most once at a time.
    pub queued: Atomics<'a, u32>,
    pub work: Queue<'a, u32>,
    pub n: u32,
    pub threshold: u64,
}

/// Keeps a share of `v`'s residue and spreads the rest evenly over its neighbours. A neighbour
/// is pushed only when its residue crosses twice the threshold: residues between one and two
/// thresholds are left for the idle hook to find.
#[atos::task(worker = "warp")]
pub fn spread(v: u32, s: &Residual) {
    s.queued.store(v, 0);
    let r = s.residue.swap(v, 0);
    if r == 0 {
        return;
    }
    let deg = (s.offsets[v + 1] - s.offsets[v]) as u64;
    let share = r / (deg + 1);
    s.mass.fetch_add(v, r - share * deg);
    let high = 2 * s.threshold;
    for e in lanes(s.offsets[v]..s.offsets[v + 1]) {
        let u = s.cols[e];
        let old = s.residue.fetch_add(u, share);
        if old < high && old + share >= high && s.queued.swap(u, 1) == 0 {
            s.work.push(u);
        }
    }
}

/// The re-scan (the papers' `f2`): a vertex whose residue reached the threshold gets a task.
#[atos::idle(range = "n", worker = "thread", fetch = 16)]
pub fn rescan(i: u32, s: &Residual) {
    if s.residue.load(i) >= s.threshold && s.queued.swap(i, 1) == 0 {
        s.work.push(i);
    }
}

/// Residual push from `initial` residues; returns (mass, residue).
pub fn residual_run(
    g: &Csr,
    initial: &[u64],
    threshold: u64,
    seeds: &[u32],
    run: impl FnOnce(&Residual, &[u32]) -> Result<Stats, RunError>,
) -> Result<(Vec<u64>, Vec<u64>, Stats), RunError> {
    let offsets = g.offsets_u32().unwrap();
    let n = g.num_vertices();
    let residue = AtomicArray::from_vec(initial.to_vec());
    let mass = AtomicArray::<u64>::filled(n, 0);
    let queued = AtomicArray::<u32>::filled(n, 0);
    for &v in seeds {
        queued.view().store(v, 1);
    }
    let state = Residual {
        offsets: Slice::new(&offsets),
        cols: Slice::new(&g.cols),
        residue: residue.view(),
        mass: mass.view(),
        queued: queued.view(),
        work: Queue::with_capacity(n as u64),
        n: n as u32,
        threshold,
    };
    let stats = run(&state, seeds)?;
    Ok((mass.to_vec(), residue.to_vec(), stats))
}

/// The residual program's invariants: nothing lost or created, nothing left at the threshold.
pub fn residual_check(
    initial: &[u64],
    mass: &[u64],
    residue: &[u64],
    threshold: u64,
) -> Result<(), String> {
    let total: u64 = initial.iter().sum();
    let now = mass.iter().sum::<u64>() + residue.iter().sum::<u64>();
    if now != total {
        return Err(format!("mass is not conserved: {now} != {total}"));
    }
    match residue.iter().enumerate().find(|(_, r)| **r >= threshold) {
        Some((v, r)) => Err(format!(
            "vertex {v} still holds residue {r} >= threshold {threshold}: the run ended early"
        )),
        None => Ok(()),
    }
}

// ---- 5. the ring queue: many laps, bounded alive ----

#[atos::state]
pub struct Chain<'a> {
    pub steps: Atomics<'a, u32>,
    pub work: Queue<'a, u32>,
    pub length: u32,
    pub fanout: u32,
}

/// Each item comes back `length` times in all; with `fanout` 1 the alive count never grows.
#[atos::task(worker = "warp", fetch = 2)]
pub fn chain(v: u32, s: &Chain) {
    let k = s.steps.fetch_add(v, 1);
    if k + 1 < s.length {
        for _c in 0..s.fanout {
            s.work.push(v);
        }
    }
}

/// `items` chains of `length` through a queue of `capacity`; returns the steps per item.
pub fn chain_run(
    items: u32,
    length: u32,
    fanout: u32,
    capacity: u64,
    run: impl FnOnce(&Chain, &[u32]) -> Result<Stats, RunError>,
) -> Result<(Vec<u32>, Stats), RunError> {
    let steps = AtomicArray::<u32>::filled(items as usize, 0);
    let state = Chain {
        steps: steps.view(),
        work: Queue::with_capacity(capacity),
        length,
        fanout,
    };
    let seeds: Vec<u32> = (0..items).collect();
    let stats = run(&state, &seeds)?;
    Ok((steps.to_vec(), stats))
}

// ---- one stress case over the four programs, for any executor ----

/// Runs the programs above on one executor (the CPU executor, or four compiled GPU programs).
pub trait Runner {
    fn near_far(&self, s: &NearFar) -> Result<Stats, RunError>;
    fn coloring(&self, s: &Coloring, seeds: &[u32]) -> Result<Stats, RunError>;
    fn residual(&self, s: &Residual, seeds: &[u32]) -> Result<Stats, RunError>;
    fn chain(&self, s: &Chain, seeds: &[u32]) -> Result<Stats, RunError>;
}

impl Runner for CpuExecutor {
    fn near_far(&self, s: &NearFar) -> Result<Stats, RunError> {
        self.run_seeds(
            (relax::Task, promote::Task),
            s,
            &Seeds::new().add(relax::Task, &[0]),
        )
    }
    fn coloring(&self, s: &Coloring, seeds: &[u32]) -> Result<Stats, RunError> {
        self.run((color::Task, check::Task), s, seeds)
    }
    fn residual(&self, s: &Residual, seeds: &[u32]) -> Result<Stats, RunError> {
        self.run((spread::Task, rescan::Task), s, seeds)
    }
    fn chain(&self, s: &Chain, seeds: &[u32]) -> Result<Stats, RunError> {
        self.run(chain::Task, s, seeds)
    }
}

/// The names of the stress cases, by number.
pub const CASES: [&str; 4] = ["near/far", "colouring", "idle hook", "ring"];

/// Stress case `which` (0..4) on `g` (with u32 weights; `reference` its Dijkstra distances)
/// and `seed`: whether the result is right.
pub fn stress_case(
    runner: &impl Runner,
    which: u64,
    g: &Csr,
    reference: &[u32],
    seed: u64,
) -> Result<bool, RunError> {
    Ok(match which {
        0 => {
            let delta = 1 + (seed % 12) as u32;
            near_far_run(g, delta, |s| runner.near_far(s))?.0 == reference
        }
        1 => {
            let (c, _) = coloring_run(g, |s, all| runner.coloring(s, all))?;
            atos_graph::reference::coloring::validate_coloring(g, &c).is_ok()
        }
        2 => {
            let init: Vec<u64> = (0..g.num_vertices() as u64)
                .map(|v| (v ^ seed) % 500)
                .collect();
            // Odd seeds start from one vertex's task, even ones from the hook alone.
            let seeds: Vec<u32> = if seed % 2 == 1 {
                vec![(seed % g.num_vertices() as u64) as u32]
            } else {
                vec![]
            };
            let (m, r, _) = residual_run(g, &init, 16, &seeds, |s, sd| runner.residual(s, sd))?;
            residual_check(&init, &m, &r, 16).is_ok()
        }
        _ => {
            let cap = 16 + seed % 512;
            let (steps, _) = chain_run(cap as u32, 30, 1, cap, |s, sd| runner.chain(s, sd))?;
            steps.iter().all(|&k| k == 30)
        }
    })
}

// ---- 6. `accumulate`: adds combined per device when spread ----

/// The residual push with every queueing left to the re-scan: each share is one `accumulate`
/// (spread over devices, combined per device and delivered by the re-scan's sweeps), so only
/// the hook queues. The same invariants as `spread` (`residual_check`).
#[atos::task(worker = "warp")]
pub fn spread_quiet(v: u32, s: &Residual) {
    s.queued.store(v, 0);
    let r = s.residue.swap(v, 0);
    if r == 0 {
        return;
    }
    let deg = (s.offsets[v + 1] - s.offsets[v]) as u64;
    let share = r / (deg + 1);
    s.mass.fetch_add(v, r - share * deg);
    for e in lanes(s.offsets[v]..s.offsets[v + 1]) {
        s.residue.accumulate(s.cols[e], share);
    }
}

/// The quiet residual program: the push and the re-scan.
pub type QuietResidual = (spread_quiet::Task, rescan::Task);

#[atos::state]
pub struct InDegree<'a> {
    pub offsets: Slice<'a, u32>,
    pub cols: Slice<'a, u32>,
    pub count: Atomics<'a, u32>,
    pub work: Queue<'a, u32>,
}

/// Counts `v`'s out-edges into their targets: with every vertex seeded, `count` ends as the
/// in-degrees. No idle hook: spread over devices, the combined counts are delivered by drains
/// after batches (partial sums) and when the run ends.
#[atos::task(worker = "warp")]
pub fn count_in(v: u32, s: &InDegree) {
    for e in lanes(s.offsets[v]..s.offsets[v + 1]) {
        s.count.accumulate(s.cols[e], 1);
    }
}

/// Per device of `pl`: the distinct elements of other devices its vertices' edges reach, which
/// is what it delivers when `count_in` runs with every vertex seeded and combining on.
pub fn remote_targets(g: &Csr, pl: &atos::Placement) -> Vec<u64> {
    let offsets = g.offsets_u32().unwrap();
    let n = g.num_vertices();
    (0..pl.devices())
        .map(|d| {
            let mut hit = vec![false; n];
            for v in (0..n).filter(|&v| pl.owner(v as u64) == d) {
                for e in offsets[v]..offsets[v + 1] {
                    let u = g.cols[e as usize] as usize;
                    hit[u] |= pl.owner(u as u64) != d;
                }
            }
            hit.iter().filter(|&&h| h).count() as u64
        })
        .collect()
}

/// Runs `count_in` from every vertex; returns the counts.
pub fn in_degree_run(
    g: &Csr,
    run: impl FnOnce(&InDegree, &[u32]) -> Result<Stats, RunError>,
) -> Result<(Vec<u32>, Stats), RunError> {
    let offsets = g.offsets_u32().unwrap();
    let n = g.num_vertices();
    let count = AtomicArray::<u32>::filled(n, 0);
    let state = InDegree {
        offsets: Slice::new(&offsets),
        cols: Slice::new(&g.cols),
        count: count.view(),
        work: Queue::with_capacity(n as u64 + 1),
    };
    let seeds: Vec<u32> = (0..n as u32).collect();
    let stats = run(&state, &seeds)?;
    Ok((count.to_vec(), stats))
}

// ---- remote accesses: a task that reads its successor's element ----

/// A task that reads one other element, its successor's, and adds it to a one-element total.
#[atos::state]
pub struct NextState<'a> {
    pub value: Atomics<'a, u32>,
    /// One element: whole on device 0 wherever the run is spread.
    pub total: Atomics<'a, u32>,
    pub work: Queue<'a, u32>,
    pub n: u32,
}

#[atos::task(worker = "thread")]
pub fn read_next(v: u32, s: &NextState) {
    let x = s.value.load((v + 1) % s.n);
    s.total.fetch_add(0u32, x);
}

/// What `read_next` over items `0..n` (each seeded once, run on its owner) makes each device of
/// `placement` count as accesses to other devices' elements: its items whose successor another
/// device owns, and, on every device but 0, each of its items' add to the total.
pub fn next_remote_accesses(placement: &atos::Placement, n: u32) -> Vec<u64> {
    let mut want = vec![0u64; placement.devices()];
    for v in 0..n {
        let d = placement.owner(u64::from(v));
        want[d] += u64::from(placement.owner(u64::from((v + 1) % n)) != d) + u64::from(d != 0);
    }
    want
}

// ---- offers that raise: each vertex's largest reaching label, owner-computes ----

/// Labels spread along edges, the largest kept: with every vertex seeded with its own index,
/// each ends with the largest index of a vertex that reaches it. Written owner-computes as
/// `atos::apps::bfs_owner` is, with `raise` for `lower`.
#[atos::state]
pub struct MaxLabel<'a> {
    pub offsets: Slice<'a, u32>,
    pub cols: Slice<'a, u32>,
    pub label: Atomics<'a, u32>,
    pub frontier: Queue<'a, u32>,
    pub offer: Queue<'a, (u32, u32)>,
}

/// Offers every neighbour of `v` its label.
#[atos::task(queue = "frontier", worker = "warp")]
pub fn spread_label(v: u32, s: &MaxLabel) {
    let l = s.label.load(v);
    for e in lanes(s.offsets[v]..s.offsets[v + 1]) {
        s.offer.push((s.cols[e], l));
    }
}

/// Raises `u`'s label to `l` when that is larger, and queues `u` when it did. Its whole body is
/// the `raise` guard over its item, and nothing else raises `label`, so spread over several
/// devices its pushes to another device are offers (`Plan::offers`, upward).
#[atos::task(queue = "offer", worker = "thread", fetch = 16, inline)]
pub fn take_label((u, l): (u32, u32), s: &MaxLabel) {
    if s.label.raise(u, l) {
        s.frontier.push(u);
    }
}

pub type MaxLabelTasks = (spread_label::Task, take_label::Task);

/// Runs the program from every vertex, each labelled with its index: the labels and stats.
pub fn max_label_run(
    g: &Csr,
    run: impl FnOnce(&MaxLabel, &[u32]) -> Result<Stats, RunError>,
) -> Result<(Vec<u32>, Stats), RunError> {
    let offsets = g.offsets_u32().unwrap();
    let n = g.num_vertices();
    let label = AtomicArray::<u32>::from_vec((0..n as u32).collect());
    // Every vertex is seeded and may be queued again each time its label rises: no small
    // bound holds. 4 x (n + m) overflowed `offer` on grid:48x48 (50,978 alive against 45,312)
    // with 2 NVSHMEM ranks time-slicing one GPU, where a rank's offers wait while the other is
    // descheduled (docs/results/2026-12-06-spread-profile-h100.md, call 5). 16x is not a
    // bound either; it passed under NVSHMEM on the same setting since
    // (docs/results/2026-12-06b-nvshmem-calls-h100.md, calls 1 and 5).
    let cap = 16 * (n as u64 + g.num_edges() as u64);
    let state = MaxLabel {
        offsets: Slice::new(&offsets),
        cols: Slice::new(&g.cols),
        label: label.view(),
        frontier: Queue::with_capacity(cap),
        offer: Queue::with_capacity(cap),
    };
    let seeds: Vec<u32> = (0..n as u32).collect();
    let stats = run(&state, &seeds)?;
    Ok((label.to_vec(), stats))
}

/// The reference: per vertex, the largest index of a vertex that reaches it (itself included),
/// by relaxing every edge until nothing changes.
pub fn max_label_reference(g: &Csr) -> Vec<u32> {
    let n = g.num_vertices();
    let mut label: Vec<u32> = (0..n as u32).collect();
    loop {
        let mut changed = false;
        for v in 0..n {
            for &u in g.neighbors(v as u32) {
                if label[v] > label[u as usize] {
                    label[u as usize] = label[v];
                    changed = true;
                }
            }
        }
        if !changed {
            return label;
        }
    }
}

// ---- store buffering through held inline runs ----

#[atos::state]
pub struct StoreBuffer<'a> {
    /// 1 once the vertex's `raise` stored it.
    pub flag: Atomics<'a, u32>,
    /// What the vertex's `look` read of its partner's flag, plus 1 (0: not looked yet).
    pub seen: Atomics<'a, u32>,
    pub mark: Queue<'a, u32>,
    pub look: Queue<'a, u32>,
}

/// Raises `v`'s flag, fences, and pushes `v` to `look`, an inline task: the store-buffering
/// shape of colouring's `assign` (store, fence, push of a task that reads). A persistent thread
/// holds the push and runs `look` after the batch's one fence (`atos::InlineHold`).
#[atos::task(queue = "mark", worker = "thread", fetch = 64)]
pub fn raise(v: u32, s: &StoreBuffer) {
    s.flag.store(v, 1);
    atos::fence();
    s.look.push(v);
}

/// Reads the flag of `v`'s partner, `v ^ 1` (run inline at `raise`'s push).
#[atos::task(queue = "look", worker = "thread", fetch = 64, inline)]
pub fn look(v: u32, s: &StoreBuffer) {
    s.seen.store(v, s.flag.load(v ^ 1) + 1);
}

pub type StoreBufferTasks = (raise::Task, look::Task);

/// Runs `pairs` pairs `(2i, 2i + 1)`, seeded so that partners sit `apart` items apart in the
/// queue (chunks of `apart` pairs, each chunk's evens, then its odds): with `apart` about half
/// the items the workers take at once (threads x fetch / 2), partners are taken at the same
/// time by different threads. Returns the pairs where neither `look` saw the other's flag, store
/// buffering's forbidden outcome (each vertex stores, fences, then reads: one of the two reads
/// must follow the other's store), and the `look` ring's peak (0 when every `look` ran inline).
pub fn store_buffer_run(
    pairs: u32,
    apart: u32,
    run: impl FnOnce(&StoreBuffer, &[u32]) -> Result<Stats, RunError>,
) -> (u32, u64) {
    let n = 2 * pairs as usize;
    let flag = AtomicArray::<u32>::filled(n, 0);
    let seen = AtomicArray::<u32>::filled(n, 0);
    let state = StoreBuffer {
        flag: flag.view(),
        seen: seen.view(),
        mark: Queue::with_capacity(n as u64),
        look: Queue::with_capacity(n as u64),
    };
    let apart = apart.clamp(1, pairs.max(1));
    let seeds: Vec<u32> = (0..pairs)
        .step_by(apart as usize)
        .flat_map(|c| {
            let chunk = c..(c + apart).min(pairs);
            chunk.clone().map(|i| 2 * i).chain(chunk.map(|i| 2 * i + 1))
        })
        .collect();
    assert_eq!(seeds.len(), n);
    let stats = run(&state, &seeds).unwrap();
    let seen = seen.to_vec();
    assert!(
        seen.iter().all(|&s| s == 1 || s == 2),
        "a vertex never looked"
    );
    let both_missed = seen.chunks(2).filter(|p| p[0] == 1 && p[1] == 1).count() as u32;
    (both_missed, stats.queue("look").map_or(0, |q| q.peak))
}
