//! Priority queues on the CPU executor: priority BFS (depths equal, and with delta 1 exactly
//! one task per reached vertex on any number of threads: the advance waits for the near ring
//! to be quiescent; persistent runs take each band after the first from the next ring), f32 keys (`apps::sssp` over f32 weights against Dijkstra in f32), and the queue's errors.

mod common;

use atos::apps::sssp::{self, Order, SsspArrays};
use atos::apps::{bfs, bfs_priority};
use atos::prelude::*;
use atos::{PriorityQueue, RunError, Stats};
use atos_graph::{Csr, Weights};

fn priority_bfs(g: &Csr, delta: u32, strategy: Strategy, threads: usize) -> (Vec<u32>, Stats) {
    let offsets = g.offsets_u32().unwrap();
    let depth = bfs::initial_depths(g.num_vertices(), 0);
    let capacity = bfs::default_queue_capacity(g.num_vertices(), g.num_edges());
    let state = bfs_priority::state(&offsets, &g.cols, &depth, capacity, delta);
    let stats = CpuExecutor::new()
        .threads(threads)
        .strategy(strategy)
        .run(bfs_priority::visit::Task, &state, &[0])
        .unwrap();
    (depth.to_vec(), stats)
}

#[test]
fn priority_bfs_depths_match_and_delta_one_runs_each_vertex_once() {
    for spec in [
        "grid:50x50",
        "kron:11,seed=4",
        "geo:3000,seed=1",
        "er:2000,deg=3,seed=9",
    ] {
        let g = atos_graph::load(spec).unwrap();
        let want = atos_graph::reference::bfs::bfs_depths(&g, 0);
        let reached = want.iter().filter(|&&d| d != bfs::UNREACHED).count() as u64;
        for strategy in [Strategy::Persistent, Strategy::Bsp] {
            for (delta, threads) in [(1, 1), (1, 4), (3, 4)] {
                let (got, stats) = priority_bfs(&g, delta, strategy, threads);
                assert_eq!(
                    got, want,
                    "{spec} {strategy:?} delta {delta} {threads} threads"
                );
                if delta == 1 {
                    assert_eq!(
                        stats.popped, reached,
                        "{spec} {strategy:?}: level order runs each vertex once"
                    );
                }
                // Persistent runs hold the next band in the next ring and run it from there
                // after the advance; windowed runs keep the band end at the threshold.
                let next = stats.queues.iter().find(|q| q.name.ends_with(".next"));
                let next = next.expect("a priority queue has a next ring");
                assert!(!next.far, "the next ring's items are tasks");
                match strategy {
                    Strategy::Persistent => assert!(
                        next.popped > 0 && next.popped == next.pushed,
                        "{spec} delta {delta}: {next:?}"
                    ),
                    _ => assert_eq!(next.pushed, 0, "{spec} {strategy:?}: {next:?}"),
                }
            }
        }
    }
}

/// f32 keys: `apps::sssp` over f32 weights gives Dijkstra's f32 distances bit for bit on every
/// order and strategy, and the priority order advances its f32 threshold.
#[test]
fn f32_keys_order_an_f32_sssp() {
    let g = atos_graph::load("geo:2000,seed=3,w=300").unwrap();
    let Some(Weights::U32(w)) = &g.weights else {
        panic!()
    };
    let wf: Vec<f32> = w.iter().map(|&x| x as f32 / 7.0).collect();
    let gf = Csr {
        offsets: g.offsets.clone(),
        cols: g.cols.clone(),
        weights: Some(Weights::F32(wf.clone())),
    };
    let exact = atos_graph::reference::sssp::dijkstra_f32(&gf, 0).unwrap();
    let offsets = g.offsets_u32().unwrap();
    for order in [Order::priority(2.5f32), Order::priority(0.25), Order::Fifo] {
        for strategy in [Strategy::Persistent, Strategy::Bsp] {
            let a = SsspArrays::<f32>::new(g.num_vertices(), 0);
            let state = a.state(&offsets, &g.cols, &wf, 8 * g.num_edges() as u64, order);
            let stats = CpuExecutor::new()
                .threads(3)
                .strategy(strategy)
                .run(sssp::float::relax::Task, &state, &a.seeds())
                .unwrap();
            for (v, (&d, &x)) in a.dist.to_vec().iter().zip(&exact).enumerate() {
                assert_eq!(
                    d.to_bits(),
                    x.to_bits(),
                    "{order:?} {strategy:?}: vertex {v}: {d} vs {x}"
                );
            }
            let p = &stats.priority[0];
            if order == Order::Fifo {
                assert_eq!(p.advances, 0);
            } else {
                assert!(p.advances > 2 && p.moved > 0, "{p:?}");
            }
        }
    }
}

#[atos::state]
pub struct WideItems<'a> {
    pub work: PriorityQueue<'a, (u64, u64), u32>,
}

#[atos::task(worker = "thread", fetch = 1)]
pub fn wide((a, _b): (u64, u64), s: &WideItems) {
    if a > 0 {
        s.work.push((a - 1, 0), 1);
    }
}

/// A far item that would not fit a slot, and a delta of zero, fail with what to do.
#[test]
fn priority_queue_errors_say_what_to_change() {
    let state = WideItems {
        work: PriorityQueue::with_capacity(16),
    };
    let err = CpuExecutor::new()
        .run(wide::Task, &state, &[(3, 0)])
        .unwrap_err();
    assert!(
        matches!(&err, RunError::Priority { queue, message } if queue == "work" && message.contains("at most 3 parts and 12 bytes")),
        "{err}"
    );
    let g = atos_graph::load("grid:8x8").unwrap();
    let offsets = g.offsets_u32().unwrap();
    let depth = bfs::initial_depths(g.num_vertices(), 0);
    let mut state = bfs_priority::state(&offsets, &g.cols, &depth, 100, 1);
    state.work = PriorityQueue::with_capacity(100).delta(0);
    let err = CpuExecutor::new()
        .run(bfs_priority::visit::Task, &state, &[0])
        .unwrap_err();
    assert!(
        err.to_string().contains("delta must be above zero"),
        "{err}"
    );
}

#[atos::state]
pub struct Held<'a> {
    pub work: PriorityQueue<'a, u32, u32>,
    /// Word 0: item 1 ran. Word 1: item 0 saw it run while item 0 was still in flight.
    pub flags: Atomics<'a, u32>,
    /// How many times item 0 looks for item 1 before it gives up.
    pub spins: u64,
}

/// Item 0 pushes item 1 above the threshold, then waits (a bounded number of looks) for item 1
/// to have run. Item 1 can only run after an advance, and only an advance that starts while
/// item 0 is still in flight lets item 0 see it.
#[atos::task(worker = "thread", fetch = 1)]
pub fn hold(item: u32, s: &Held) {
    if item == 0 {
        s.work.push(1, 1);
        let mut look = 0u64;
        while look < s.spins {
            if s.flags.load(0) == 1 {
                s.flags.store(1, 1);
                break;
            }
            look += 1;
        }
    } else {
        s.flags.store(0, 1);
    }
}

/// The threshold advances while a near task is in flight only with slack: with slack 1 the
/// far item runs while item 0 waits for it (it would wait seconds of looks for it), with
/// slack 0 it never does (a short wait, then item 1 runs after item 0 is done).
#[test]
fn advance_slack_starts_the_next_band_early() {
    for (slack, spins, early) in [
        (1, 1u64 << 30, true),
        (u64::MAX, 1 << 30, true),
        (0, 1 << 22, false),
    ] {
        let flags = AtomicArray::<u32>::filled(2, 0);
        let state = Held {
            work: PriorityQueue::with_capacity(4)
                .delta(1)
                .advance_slack(slack),
            flags: flags.view(),
            spins,
        };
        let stats = CpuExecutor::new()
            .threads(2)
            .run(hold::Task, &state, &[0])
            .unwrap();
        assert_eq!(flags.to_vec()[0], 1, "slack {slack}: item 1 ran");
        assert_eq!(
            flags.to_vec()[1] == 1,
            early,
            "slack {slack}: item 1 ran while item 0 was in flight ({:?})",
            stats.priority[0]
        );
        assert!(stats.priority[0].advances >= 1, "slack {slack}");
    }
}

#[atos::state]
pub struct Chain<'a> {
    pub work: PriorityQueue<'a, u32, u32>,
    /// `ran[k]`: when item `k` ran (1 + the clock's count before it).
    pub ran: Atomics<'a, u32>,
    pub clock: Atomics<'a, u32>,
}

/// Item `k` (keyed `k`) runs, then pushes item `k + 1` up to item 5; item 0 also pushes item
/// 10, which waits far while the chain walks the keys one band at a time. A fetch of 8 takes a
/// band's items in one batch: two keys in one band would run in the batch's (ring) order.
#[atos::task(worker = "thread", fetch = 8)]
pub fn chain(k: u32, s: &Chain) {
    let t = s.clock.fetch_add(0, 1);
    s.ran.store(k, t + 1);
    if k < 5 {
        s.work.push(k + 1, k + 1);
    }
    if k == 0 {
        s.work.push(10, 10);
    }
}

/// An advance that opens the next ring's band must not widen the band after it to the far
/// minimum: that band's tasks have not run yet and push keys from its start on. With delta 1
/// and slack 0 every band holds one key, so items run in key order (item 10 last), on the
/// persistent strategy (next ring) and the bulk-synchronous one (passes only).
#[test]
fn bands_stay_one_delta_wide_when_far_keys_lie_beyond() {
    for strategy in [Strategy::Persistent, Strategy::Bsp] {
        for threads in [1, 3] {
            let ran = AtomicArray::<u32>::filled(11, 0);
            let clock = AtomicArray::<u32>::filled(1, 0);
            let state = Chain {
                work: PriorityQueue::with_capacity(16)
                    .delta(1)
                    .start(1)
                    .advance_slack(0),
                ran: ran.view(),
                clock: clock.view(),
            };
            let stats = CpuExecutor::new()
                .threads(threads)
                .strategy(strategy)
                .run(chain::Task, &state, &[0])
                .unwrap();
            let ran = ran.to_vec();
            let order: Vec<u32> = [0, 1, 2, 3, 4, 5, 10].iter().map(|&k| ran[k]).collect();
            assert_eq!(
                order,
                (1..=7).collect::<Vec<u32>>(),
                "{strategy:?} {threads} threads: {:?}",
                stats.priority[0]
            );
        }
    }
}

/// A priority queue too small for its run fails with an overflow that names the ring, on the
/// persistent strategy (where band after band runs from the next ring) and the bulk-synchronous
/// one, and the run stops: no hang, no wrong answer taken for a right one.
#[test]
fn a_priority_ring_too_small_overflows_and_stops() {
    let g = atos_graph::load("grid:40x40").unwrap();
    let offsets = g.offsets_u32().unwrap();
    for strategy in [Strategy::Persistent, Strategy::Bsp] {
        for threads in [1, 4] {
            let depth = bfs::initial_depths(g.num_vertices(), 0);
            let state = bfs_priority::state(&offsets, &g.cols, &depth, 8, 1);
            let err = CpuExecutor::new()
                .threads(threads)
                .strategy(strategy)
                .run(bfs_priority::visit::Task, &state, &[0])
                .unwrap_err();
            // The ring that fills first: the next ring where bands run from it, the far ring
            // where every band waits there.
            let ring = match strategy {
                Strategy::Persistent => "work.next",
                _ => "work.far",
            };
            assert!(
                matches!(&err, RunError::QueueOverflow { queue, .. } if queue == ring),
                "{strategy:?} {threads} threads: {err}"
            );
        }
    }
}
