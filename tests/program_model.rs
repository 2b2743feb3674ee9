//! The program model on the CPU executor: several tasks and queues, the idle hook, ring
//! queues and their overflow, lanes-then-read. The same programs run on the GPU in
//! `examples/gpu_suite.rs`.

mod common;

use atos::prelude::*;
use atos::{RunError, Seeds};
use common::programs::*;

fn cpu(threads: usize) -> CpuExecutor {
    CpuExecutor::new().threads(threads)
}

/// The program's meaning on the CPU (a worker is one thread here, so no race can occur): the
/// barrier itself is checked on the GPU by `examples/gpu_suite.rs`, with a negative control.
#[test]
fn uniform_code_after_lanes_sees_every_lane() {
    for threads in [1, 4] {
        let misses = flag_run(20_000, |s, seeds| cpu(threads).run(flag::Task, s, seeds));
        assert_eq!(misses, 0);
        let misses = flag_run(20_000, |s, seeds| {
            cpu(threads).run(flag_reduced::Task, s, seeds)
        });
        assert_eq!(misses, 0);
    }
}

/// Store buffering through an inline task: in every pair one `look` sees the other's flag,
/// and in a persistent run every `look` runs inline (its ring stays empty); bsp queues them.
/// The GPU runs it in `examples/gpu_suite.rs`, discrete too, with the fence cut out as a
/// control.
#[test]
fn a_fence_then_an_inline_read_is_never_store_buffered() {
    for threads in [1, 4] {
        for strategy in [Strategy::Persistent, Strategy::Bsp] {
            let (missed, peak) = store_buffer_run(5_000, 64, |s, seeds| {
                cpu(threads)
                    .strategy(strategy)
                    .run(StoreBufferTasks::default(), s, seeds)
            });
            assert_eq!(missed, 0, "{strategy:?} on {threads} threads");
            assert_eq!(
                peak == 0,
                strategy == Strategy::Persistent,
                "{strategy:?}: look's ring peak {peak}"
            );
        }
    }
}

#[test]
fn near_far_two_queue_relaxation_matches_dijkstra() {
    for spec in ["grid:40x40,w=20", "kron:10,w=50,seed=3", "geo:2000,w=9"] {
        let g = atos_graph::load(spec).unwrap();
        let reference = dijkstra_u32(&g);
        for threads in [1, 3] {
            for delta in [1, 8, 1000] {
                let (dist, stats) = near_far_run(&g, delta, |s| {
                    cpu(threads).run_seeds(
                        (relax::Task, promote::Task),
                        s,
                        &Seeds::new().add(relax::Task, &[0]),
                    )
                })
                .unwrap();
                assert_eq!(dist, reference, "{spec} threads {threads} delta {delta}");
                let far = stats.queue("far").unwrap();
                let near = stats.queue("near").unwrap();
                assert_eq!(far.popped, far.pushed, "every far item was promoted");
                assert_eq!(near.popped, near.pushed + 1, "every near item ran once");
                if delta == 1 {
                    assert!(far.pushed > 0, "{spec}: weights >= 1 all go far");
                }
            }
        }
    }
}

#[test]
fn colour_and_conflict_check_give_a_proper_colouring() {
    for spec in ["kron:10,seed=2", "grid:30x30", "geo:1500"] {
        let g = atos_graph::load(spec).unwrap();
        let greedy = atos_graph::reference::coloring::greedy_coloring(
            &g,
            atos_graph::reference::coloring::ColoringOrder::Natural,
        );
        let greedy_colors =
            atos_graph::reference::coloring::validate_coloring(&g, &greedy).unwrap();
        for threads in [1, 4] {
            let (colors, stats) = coloring_run(&g, |s, all| {
                cpu(threads).run((color::Task, check::Task), s, all)
            })
            .unwrap();
            let used = atos_graph::reference::coloring::validate_coloring(&g, &colors)
                .unwrap_or_else(|e| panic!("{spec} threads {threads}: {e}"));
            assert!(
                used <= greedy_colors + 8,
                "{spec}: {used} colours vs greedy {greedy_colors}"
            );
            assert_eq!(
                stats.queue("check").unwrap().popped,
                stats.queue("recolor").unwrap().popped
            );
        }
    }
}

#[test]
fn the_idle_hook_finds_what_tasks_leave_and_the_run_ends_exactly() {
    let g = atos_graph::load("kron:9,seed=7").unwrap();
    let n = g.num_vertices();
    let threshold = 64;
    // Seeded: all residue at vertex 0.
    let mut initial = vec![0u64; n];
    initial[0] = 10_000_000;
    for threads in [1, 2, 4] {
        let (mass, residue, stats) = residual_run(&g, &initial, threshold, &[0], |s, seeds| {
            cpu(threads).run((spread::Task, rescan::Task), s, seeds)
        })
        .unwrap();
        residual_check(&initial, &mass, &residue, threshold).unwrap();
        assert!(stats.idle_sweeps >= 1, "at least one sweep after the first");
    }
    // Seedless: only the hook can start the work.
    let spread_out: Vec<u64> = (0..n as u64).map(|i| (i * 7919) % 1000).collect();
    for threads in [1, 3] {
        let (mass, residue, stats) = residual_run(&g, &spread_out, threshold, &[], |s, seeds| {
            cpu(threads).run((spread::Task, rescan::Task), s, seeds)
        })
        .unwrap();
        residual_check(&spread_out, &mass, &residue, threshold).unwrap();
        assert!(stats.popped > 0, "the hook found the work");
    }
    // Nothing to do: the first sweep proves it.
    let zero = vec![0u64; n];
    let (_, _, stats) = residual_run(&g, &zero, threshold, &[], |s, seeds| {
        cpu(2).run((spread::Task, rescan::Task), s, seeds)
    })
    .unwrap();
    assert_eq!((stats.popped, stats.idle_sweeps), (0, 0));
}

#[test]
fn a_ring_queue_carries_200_times_its_capacity_within_it() {
    // 64 chains of 200 steps: 12,800 pushes through a queue of capacity 64, i.e. more than six
    // laps of its 2,048-slot ring, with never more than 64 items alive.
    for threads in [1, 2, 4] {
        let (steps, stats) = chain_run(64, 200, 1, 64, |s, seeds| {
            cpu(threads).run(chain::Task, s, seeds)
        })
        .unwrap();
        assert!(steps.iter().all(|&k| k == 200), "{steps:?}");
        assert_eq!(stats.popped, 64 * 200);
        assert!(stats.queue_peak <= 64);
    }
}

#[test]
fn more_alive_than_the_capacity_is_an_overflow_naming_the_queue() {
    for threads in [1, 4] {
        match chain_run(64, 50, 2, 64, |s, seeds| {
            cpu(threads).run(chain::Task, s, seeds)
        }) {
            Err(RunError::QueueOverflow {
                queue,
                capacity,
                needed,
                ..
            }) => {
                assert_eq!((queue.as_str(), capacity), ("work", 64));
                assert!(needed > 64);
            }
            other => panic!(
                "expected an overflow, got {:?}",
                other.map(|r| r.1.to_string())
            ),
        }
    }
}

#[test]
fn seeds_for_an_idle_hook_or_a_foreign_task_are_errors() {
    let g = atos_graph::load("grid:4x4").unwrap();
    let init = vec![0u64; g.num_vertices()];
    residual_run(&g, &init, 1, &[], |state, _| {
        let err = cpu(1)
            .run_seeds(
                (spread::Task, rescan::Task),
                state,
                &Seeds::new().add(rescan::Task, &[1]),
            )
            .unwrap_err();
        assert!(err.to_string().contains("is an idle hook"), "{err}");
        let err = cpu(1)
            .run_seeds(spread::Task, state, &Seeds::new().add(rescan::Task, &[1]))
            .unwrap_err();
        assert!(
            err.to_string().contains("is not part of this program"),
            "{err}"
        );
        cpu(1).run((spread::Task, rescan::Task), state, &[])
    })
    .unwrap();
    // A program that pushes to a queue nobody pops is refused before it runs.
    let g = atos_graph::load("grid:3x3,w=3").unwrap();
    near_far_run(&g, 2, |state| {
        let err = cpu(1)
            .run(relax::Task, state, &[0])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("pushes to queue `far`, but no task of this program pops it"),
            "{err}"
        );
        Runner::near_far(&cpu(1), state)
    })
    .unwrap();
}

/// Many runs across programs, thread counts and seeds, each under a timeout: no hang, no
/// early stop (every result checked).
#[test]
fn program_termination_stress() {
    let graphs: Vec<atos_graph::Csr> =
        ["kron:8,seed=1,w=9", "grid:12x12,w=5", "geo:300,w=4,seed=3"]
            .iter()
            .map(|s| atos_graph::load(s).unwrap())
            .collect();
    let mut rng = atos_graph::generate::SplitMix64(11);
    for i in 0..120 {
        let g = graphs[i % graphs.len()].clone();
        let threads = 1 + (rng.next_u64() % 4) as usize;
        let which = rng.next_u64() % 4;
        let seed = rng.next_u64();
        let outcome = common::within(30, move || {
            let reference = dijkstra_u32(&g);
            stress_case(&cpu(threads), which, &g, &reference, seed).map_err(|e| e.to_string())
        });
        let case = CASES[which as usize];
        match outcome {
            Ok(Ok(ok)) => assert!(ok, "run {i}: {case} wrong (threads {threads}, seed {seed})"),
            Ok(Err(e)) => panic!("run {i}: {case} failed (threads {threads}, seed {seed}): {e}"),
            Err(why) => panic!("run {i}: {case} {why} (threads {threads}, seed {seed})"),
        }
    }
}

#[atos::state]
pub struct Wide<'a> {
    pub hits: Atomics<'a, u32>,
    pub work: Queue<'a, u32>,
    pub n: u64,
}

#[atos::task]
fn hit(v: u32, s: &Wide) {
    s.hits.fetch_add(v, 1);
}

/// A hook with `u32` indices over `0..n`.
#[atos::idle(range = "n")]
fn scan(i: u32, s: &Wide) {
    if s.hits.load(i) == 0 {
        s.work.push(i);
    }
}

#[test]
fn an_idle_range_its_index_type_cannot_hold_is_an_error_and_a_small_one_runs() {
    let hits = AtomicArray::<u32>::filled(100, 0);
    let mut state = Wide {
        hits: hits.view(),
        work: Queue::with_capacity(100),
        n: (1u64 << 32) + 1,
    };
    let err = cpu(2)
        .run((hit::Task, scan::Task), &state, &[])
        .unwrap_err();
    assert!(
        err.to_string().contains(
            "would sweep 4294967297 indices; with `u32` indices it can sweep at most 4294967296"
        ),
        "{err}"
    );
    state.n = 100;
    let stats = cpu(2).run((hit::Task, scan::Task), &state, &[]).unwrap();
    // The hook's push is unguarded and a second sweep may run while the first one's items are
    // still queued (docs/dsl.md, "The idle hook"), so an index can be pushed twice; every index
    // is found, and every pop is one hit.
    let hits = hits.to_vec();
    assert!(
        hits.iter().all(|&h| h >= 1),
        "the hook found every index: {hits:?}"
    );
    assert_eq!(
        stats.popped,
        hits.iter().map(|&h| u64::from(h)).sum::<u64>(),
        "each pop is one hit"
    );
}

mod inline_rules {
    use atos::prelude::*;

    #[atos::state]
    pub struct Two<'a> {
        pub hits: Atomics<'a, u32>,
        pub a: Queue<'a, u32>,
        pub b: Queue<'a, u32>,
    }

    #[atos::task(queue = "a", worker = "warp", inline)]
    pub fn first(v: u32, s: &Two) {
        s.b.push(v);
    }

    #[atos::task(queue = "b", worker = "thread", inline)]
    pub fn second(v: u32, s: &Two) {
        s.hits.fetch_add(v, 1);
    }

    /// Pops `a` (queued), pushes each item to `b` twice.
    #[atos::task(queue = "a", worker = "warp")]
    pub fn spread(v: u32, s: &Two) {
        s.b.push(v);
        s.b.push(v + 1);
    }

    #[atos::state]
    pub struct Swept<'a> {
        pub hits: Atomics<'a, u32>,
        pub work: Queue<'a, u32>,
        pub n: u32,
    }

    #[atos::task(worker = "thread", inline)]
    pub fn mark(v: u32, s: &Swept) {
        s.hits.fetch_add(v, 1);
    }

    #[atos::idle(range = "n", worker = "thread")]
    pub fn sweep(i: u32, s: &Swept) {
        if s.hits.load(i) == 0 {
            s.work.push(i);
        }
    }

    #[atos::state]
    pub struct Keyed<'a> {
        pub hits: Atomics<'a, u32>,
        pub work: atos::PriorityQueue<'a, u32, u32>,
    }

    #[atos::task(worker = "thread", inline)]
    pub fn keyed(v: u32, s: &Keyed) {
        s.hits.fetch_add(v, 1);
    }
}

/// `inline` is refused where running an item at its push would change the program: on a
/// priority queue (the threshold would be skipped), on an inline task pushing to another
/// inline task's queue (pushes inside pushes) and on the queue an idle hook pushes to (a sweep
/// proves the end by seeing no push). Allowed, an inline task's items run at their
/// push on the CPU executor too: each counted pushed and popped, none queued (a ring of one
/// item does not overflow), and level by level (bsp) they are queued as before.
#[test]
fn inline_tasks_are_checked_and_run_at_the_push() {
    use inline_rules::*;
    let err = atos::cuda::<(first::Task, second::Task)>()
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("inline task `first` pushes to queue `b`, whose task is inline too"),
        "{err}"
    );
    let err = atos::cuda::<(mark::Task, sweep::Task)>()
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("idle hook `sweep` pushes to queue `work`, whose task is inline"),
        "{err}"
    );
    let err = atos::cuda::<keyed::Task>().unwrap_err().to_string();
    assert!(
        err.contains("is `inline`, but its queue `work` is a priority queue"),
        "{err}"
    );
    let hits = AtomicArray::filled(8, 0u32);
    let state = Two {
        hits: hits.view(),
        a: Queue::with_capacity(8),
        b: Queue::with_capacity(1),
    };
    let err = cpu(2)
        .run((first::Task, second::Task), &state, &[1, 2, 3])
        .unwrap_err();
    assert!(
        err.to_string().contains("whose task is inline too"),
        "{err}"
    );
    for threads in [1, 2, 4] {
        hits.fill(0);
        let stats = cpu(threads)
            .run((spread::Task, second::Task), &state, &[1, 2, 3, 4, 5])
            .unwrap();
        assert_eq!(hits.to_vec(), vec![0, 1, 2, 2, 2, 2, 1, 0]);
        let b = stats.queue("b").unwrap();
        assert_eq!((b.pushed, b.popped, b.peak), (10, 10, 0));
    }
    let state = Two {
        b: Queue::with_capacity(10),
        ..state
    };
    hits.fill(0);
    let stats = cpu(2)
        .strategy(Strategy::Bsp)
        .run((spread::Task, second::Task), &state, &[1, 2, 3, 4, 5])
        .unwrap();
    assert_eq!(hits.to_vec(), vec![0, 1, 2, 2, 2, 2, 1, 0]);
    assert_eq!(
        stats.queue("b").unwrap().peak,
        10,
        "queued for the next level"
    );
}

mod accumulate_rules {
    use atos::prelude::*;

    #[atos::state]
    pub struct Sums<'a> {
        pub total: Atomics<'a, u64>,
        pub work: Queue<'a, u32>,
        pub n: u32,
    }

    #[atos::task(worker = "thread")]
    pub fn add(v: u32, s: &Sums) {
        s.total.accumulate(v / 2, 1);
    }

    #[atos::idle(range = "n", worker = "thread")]
    pub fn tally(i: u32, s: &Sums) {
        s.total.accumulate(i, 1);
    }

    #[atos::device]
    pub fn bump(s: &Sums, i: u32) {
        s.total.accumulate(i, 1);
    }

    #[atos::idle(range = "n", worker = "thread")]
    pub fn tally_via(i: u32, s: &Sums) {
        bump(s, i);
    }

    #[atos::idle(range = "n", worker = "thread")]
    pub fn tally_plain(i: u32, s: &Sums) {
        s.total.fetch_add(i, 1);
    }
}

/// `accumulate` is for tasks: an idle hook that calls it, itself or through a device function,
/// is refused with the reason (a sweep that delivers cannot end the run, so the hook's adds
/// would keep it going), on the GPU's code generator and the CPU executor alike; the same hook
/// with `fetch_add` runs, and the task's accumulates count.
#[test]
fn an_idle_hook_cannot_accumulate() {
    use accumulate_rules::*;
    for (err, via) in [
        (atos::cuda::<(add::Task, tally::Task)>().unwrap_err(), ""),
        (
            atos::cuda::<(add::Task, tally_via::Task)>().unwrap_err(),
            " (in `bump`, which it calls)",
        ),
    ] {
        let err = err.to_string();
        assert!(
            err.contains(&format!("calls `accumulate` on `total`{via}"))
                && err.contains("write `s.total.fetch_add(i, v);` in the hook"),
            "{err}"
        );
    }
    let total = AtomicArray::filled(8, 0u64);
    let state = Sums {
        total: total.view(),
        work: Queue::with_capacity(8),
        n: 8,
    };
    let err = cpu(2)
        .run((add::Task, tally::Task), &state, &[1, 2])
        .unwrap_err();
    assert!(err.to_string().contains("calls `accumulate`"), "{err}");
    cpu(2)
        .run((add::Task, tally_plain::Task), &state, &[0, 1, 2, 3])
        .unwrap();
    // Tasks 0..3 add 1 to total[v / 2]; each sweep adds 1 to every total[i].
    let got = total.to_vec();
    let sweeps = got[7];
    assert!(sweeps >= 1, "{got:?}");
    let want: Vec<u64> = (0..8u64).map(|i| sweeps + u64::from(i < 2) * 2).collect();
    assert_eq!(got, want);
}

/// A task whose body is assembled by `macro_rules!` from a part another expansion wrote (as
/// `apps::coloring`'s check loop is spliced into its tasks): the part names the task's locals
/// because they are passed in, and its call of a device function compiles (the attribute names
/// the call's hidden argument with its own hygiene, not the part's).
mod spliced {
    use atos::prelude::*;

    #[atos::state]
    pub struct Marks<'a> {
        pub hits: Atomics<'a, u32>,
        pub work: Queue<'a, u32>,
    }

    #[atos::device]
    fn mark(s: &Marks, i: u32) {
        s.hits.fetch_add(i, 1);
    }

    /// Calls `$then!(... { part })` with a part that marks `$v` and `$v + 1` through `mark`.
    macro_rules! part {
        ($s:ident, $v:ident; $then:ident!($($args:tt)*)) => {
            $then!($($args)* {
                mark($s, $v);
                let next = $v + 1;
                mark($s, next);
            });
        };
    }

    macro_rules! spliced_task {
        (@task $name:ident, $s:ident, $v:ident, { $($part:tt)* }) => {
            #[atos::task(worker = "thread")]
            pub fn $name($v: u32, $s: &Marks) {
                if $v % 2 == 0 {
                    $($part)*
                }
            }
        };
        ($name:ident) => {
            part!(s, v; spliced_task!(@task $name, s, v,));
        };
    }

    spliced_task!(marks_pairs);
}

#[test]
fn a_task_body_may_splice_a_part_written_by_another_macro() {
    use spliced::*;
    let hits = AtomicArray::filled(8, 0u32);
    let state = Marks {
        hits: hits.view(),
        work: Queue::with_capacity(8),
    };
    cpu(2)
        .run(marks_pairs::Task, &state, &[0, 1, 2, 3, 6])
        .unwrap();
    // Even items mark themselves and the next index; odd ones nothing.
    assert_eq!(hits.to_vec(), vec![1, 1, 1, 1, 0, 0, 1, 1]);
    assert!(atos::cuda::<marks_pairs::Task>().unwrap().contains("mark"));
}
