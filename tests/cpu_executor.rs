//! The CPU executor: BFS equals a plain CPU BFS (generated graphs and real ones), every DSL
//! feature computes what the Rust says, overflow and panics are errors, and runs terminate.

mod common;

use atos::RunError;
use atos::apps::bfs::{self, Executor};
use atos::prelude::*;
use atos_graph::Csr;
use common::features::{FeatureRun, bits_and_floats, collatz_steps, features, walks};

fn bfs_on(g: &Csr, source: u32, cpu: &CpuExecutor, mode: QueueMode) -> bfs::BfsRun {
    let cap = bfs::default_queue_capacity(g.num_vertices(), g.num_edges());
    let offsets = g.offsets_u32().unwrap();
    bfs::run(&Executor::Cpu(cpu), &offsets, &g.cols, source, cap, mode).unwrap()
}

const MODES: [QueueMode; 2] = [QueueMode::Ring, QueueMode::Linear];

#[test]
fn bfs_matches_reference_on_generated_graphs() {
    for spec in [
        "grid:64x64",
        "grid:1x2000",
        "kron:12,seed=1",
        "kron:12,seed=2",
        "grid:1x1",
    ] {
        let g = atos_graph::load(spec).unwrap();
        for threads in [1, 2, 4] {
            for (fetch, mode) in [1, 7, 64].into_iter().zip(MODES.iter().cycle()) {
                let cpu = CpuExecutor::new().threads(threads).fetch(fetch);
                let r = bfs_on(&g, 0, &cpu, *mode);
                assert_eq!(
                    r.depths,
                    atos_graph::reference::bfs::bfs_depths(&g, 0),
                    "{spec} threads {threads} fetch {fetch}"
                );
                assert!(
                    r.stats.popped >= r.reached(),
                    "every reached vertex is processed at least once"
                );
                assert_eq!(
                    r.stats.popped,
                    r.stats.pushed + 1,
                    "every pushed task is popped exactly once"
                );
            }
        }
    }
}

#[test]
fn bfs_matches_reference_on_shared_data() {
    let Some(dir) = common::shared_data() else {
        eprintln!("skipping: ../shared/data is absent");
        return;
    };
    let cpu = CpuExecutor::new().threads(4);
    for (file, vertices) in [
        ("luxembourg_osm.edges", 114_599),
        ("facebook_combined.edges", 4_039),
        ("delaunay_n16.edges", 65_536),
    ] {
        let g = atos_graph::load(&dir.join(file).to_string_lossy()).unwrap();
        assert_eq!(g.num_vertices(), vertices, "{file}");
        for source in [0, vertices as u32 / 2] {
            let r = bfs_on(&g, source, &cpu, MODES[source as usize % 2]);
            assert_eq!(
                r.depths,
                atos_graph::reference::bfs::bfs_depths(&g, source),
                "{file} from {source}"
            );
        }
    }
}

#[test]
fn every_feature_computes_what_the_rust_says() {
    let weights: Vec<i32> = vec![5, -40, 1000, 0, 33];
    let limit = 500u32;
    let run = FeatureRun::new(weights.clone(), limit);
    let popped = run.run(|state| {
        CpuExecutor::new()
            .threads(3)
            .run(features::Task, state, &[0])
            .unwrap()
    });
    assert_eq!(popped, u64::from(limit));
    let (sums, flags, mass) = (run.sums.to_vec(), run.flags.to_vec(), run.mass.to_vec());
    for v in 0..limit {
        let w = weights[v as usize % weights.len()];
        assert_eq!(
            sums[v as usize],
            i64::from((w * 3 - 7).min(100)) - 1 - 5
                + bits_and_floats(v, 3.0)
                + [2 * v + 1, 2 * v + 2]
                    .iter()
                    .filter(|&&c| c < limit)
                    .count() as i64
                    * 1_000_000
                // lower and raise on flags[v] (each moves it when the Collatz count is above
                // 0), `!mass.lower(v, f32::MAX)`, and mass[v] (1.5) lowered to 0.25 and raised
                // back
                + if collatz_steps(u64::from(v) + 1) > 0 { 110 } else { 0 }
                + 1000
                + 110_000
                // dropped per-lane adds and subs: 2i for lanes 0..4
                + 12
                + run.read_loops(v),
            "sums[{v}]"
        );
        assert_eq!(
            flags[v as usize],
            collatz_steps(u64::from(v) + 1) | (15 << 16),
            "flags[{v}]"
        );
        // 1.5, then the lanes' dropped adds and subs (i/4 for lanes 0..4).
        assert_eq!(mass[v as usize], 3.0, "mass[{v}]");
    }
    // Float min/max over all tasks (NaN ignored), bool or/xor, narrow adds and maxes.
    let extremes = run.extremes.to_vec();
    for k in 0..8u32 {
        let x = |v: u32| f64::from(v % 97) * 0.37 - 11.0;
        let of_k = (0..limit).filter(|v| v % 8 == k);
        assert_eq!(
            extremes[k as usize],
            of_k.clone().map(x).fold(f64::MAX, f64::min)
        );
        // Tasks with v % 5 == 0 offer NaN, which fetch_max ignores.
        let max = of_k.filter(|v| v % 5 != 0).map(x).fold(f64::MIN, f64::max);
        assert_eq!(extremes[8 + k as usize], max);
    }
    assert_eq!(
        walks(6),
        5_4_2_1_0 + (0..20).step_by(3).filter(|&i| i != 11).sum::<u64>() * 1000 + 4
    );
    // Reductions across lanes: the same loop, sequentially.
    let reduced = run.reduced.to_vec();
    for v in 0..limit {
        let xs: Vec<(u32, i32)> = (0..v % 45)
            .map(|i| (i, weights[((v + i) % weights.len() as u32) as usize]))
            .collect();
        let lo = xs.iter().map(|&(_, x)| x as u32).fold(u32::MAX, u32::min);
        let hi = xs.iter().map(|&(_, x)| x).fold(0, i32::max);
        let total: i64 = xs.iter().map(|&(_, x)| i64::from(x)).sum();
        let big = xs.iter().any(|&(_, x)| x > 90);
        let all_small = xs.iter().all(|&(_, x)| x < 50);
        let parity = xs.iter().fold(0, |p, &(i, _)| p ^ i);
        let half: f32 = xs.iter().map(|&(i, _)| i as f32 * 0.5).sum();
        let nearest = xs
            .iter()
            .map(|&(_, x)| f64::from(x) * 0.3)
            .fold(f64::INFINITY, f64::min);
        let facts = total * 3
            + i64::from(lo % 1000)
            + i64::from(hi)
            + i64::from(big) * 7
            + i64::from(all_small) * 11;
        let want = (facts
            + i64::from(parity)
            + half as i64
            + (nearest.min(1e6) * 10.0) as i64
            + walks(v) as i64)
            .max(i64::from(v % 7) * 100_000_000)
            .min(900_000_000 - i64::from(v % 5) - 1);
        assert_eq!(reduced[v as usize], want, "reduced[{v}]");
    }
    let marks = run.marks.to_vec();
    let half = limit as usize / 2;
    for (i, &mark) in marks.iter().enumerate() {
        let want = if i < half {
            (0..limit).any(|v| v as usize / 2 == i && v % 3 == 0)
        } else {
            (0..limit)
                .filter(|&v| v as usize / 2 + half == i && v % 3 == 1)
                .count()
                % 2
                == 1
        };
        assert_eq!(mark, want, "marks[{i}]");
    }
    let code = |v: u32| run.codes[(v % run.codes.len() as u32) as usize];
    let narrow = |v: u32| code(v).wrapping_mul(3).wrapping_add(3) << 3;
    let small = run.small.to_vec();
    let tiny = run.tiny.to_vec();
    for i in 0..limit {
        let add = (0..limit).filter(|v| v / 3 == i).fold(7u16, |acc, v| {
            acc.wrapping_add(
                u16::from(narrow(v))
                    .wrapping_mul(300)
                    .wrapping_add(code(v).leading_zeros() as u16),
            )
        });
        assert_eq!(small[i as usize], add, "small[{i}]");
        let max = (0..limit)
            .filter(|v| v / 4 == i)
            .map(|v| (narrow(v) ^ v as u8).max(code(v) >> 1))
            .max()
            .unwrap_or(0);
        assert_eq!(tiny[i as usize], max, "tiny[{i}]");
    }
    let (signed, wide) = (run.signed.to_vec(), run.wide.to_vec());
    let half = limit / 2;
    let sv = |v: u32| ((v * 7919) % 20001) as i32 - 10_000;
    for i in 0..limit {
        let (to_half, j) = if i < half { (0, i) } else { (half, i - half) };
        let of = (0..limit).filter(|v| v / 2 == j && to_half + v / 2 == i);
        let (want_signed, want_wide) = if i < half {
            (
                of.clone().map(sv).fold(i32::MAX, i32::min),
                of.map(|v| u64::from(v) << 33 | 5)
                    .fold(0u64, u64::wrapping_add)
                    .wrapping_add(10 * (0..limit).filter(|v| v / 2 == i).count() as u64)
                    .wrapping_add(
                        (0..limit)
                            .filter(|v| v / 6 == i)
                            .map(|v| u64::from(v) + 1)
                            .sum(),
                    ),
            )
        } else {
            (
                of.clone().map(|v| -sv(v)).fold(i32::MIN, i32::max),
                of.map(|v| u64::from(v).wrapping_mul(0x9e37_79b9_7f4a_7c15))
                    .fold(0, u64::max),
            )
        };
        assert_eq!(signed[i as usize], want_signed, "signed[{i}]");
        assert_eq!(wide[i as usize], want_wide, "wide[{i}]");
    }
    // The feature task's `v * 0.1 + 0.7` would give other sums if a compiler fused it into an
    // FMA (NVRTC and nvJitLink do by default; atos compiles with --fmad=false and links
    // NVSHMEM units with -fma=0): the GPU comparison of the sums in gpu_suite can see a fused
    // GPU (it saw one: docs/results/2026-11-23d-spread-features-h100.md).
    let fused_differs = (0..20_000u32)
        .filter(|&v| {
            let unfused = v as f32 * 0.1 + 0.7;
            let fused = (v as f32).mul_add(0.1, 0.7);
            (unfused * 65536.0) as i64 != (fused * 65536.0) as i64
        })
        .count();
    assert!(
        fused_differs > 100,
        "only {fused_differs} tasks would see an FMA"
    );
}

/// The overflow a BFS run must end with: (capacity, needed, the error's text).
#[test]
fn tuple_items_travel_through_queues_part_for_part() {
    use common::tuples::*;
    for threads in [1, 3] {
        let cpu = CpuExecutor::new().threads(threads);
        for n in [1, 4, 6, 8] {
            let (solutions, popped) = queens_run(n, |s, seeds| cpu.run(place::Task, s, seeds));
            assert_eq!((solutions, popped), queens_reference(n), "{n} queens");
        }
        for spec in ["grid:40x40", "kron:10,seed=3"] {
            let g = atos_graph::load(spec).unwrap();
            let dist = float_sssp_run(&g, |s, seeds| cpu.run(relax_item::Task, s, seeds));
            assert_eq!(dist, float_dijkstra(&g), "{spec}");
        }
        let got = mixed_run(&MIXED_SEEDS, |s, seeds| {
            cpu.run((count_down::Task, echo::Task), s, seeds)
        });
        assert_eq!(got, mixed_reference(&MIXED_SEEDS));
    }
    assert_eq!(queens_reference(8).0, 92);
}

/// The CPU executor runs the Rust itself: a debug build panics where the checked GPU mode
/// faults (the GPU side is in gpu_suite), a release build wraps as the unchecked GPU mode does;
/// division by zero and a bad index panic in both.
#[test]
fn faults_panic_as_rust_does() {
    use common::faults::*;
    let cpu = CpuExecutor::new().threads(2);
    let panicked = |mode| match faulty_run(mode, |s, seeds| cpu.run(faulty::Task, s, seeds)).0 {
        Err(RunError::TaskPanicked { message }) => Some(message),
        Ok(_) => None,
        Err(e) => panic!("mode {mode}: {e}"),
    };
    let debug = cfg!(debug_assertions);
    for (mode, marker, message, overflow) in FAULTS {
        match panicked(mode) {
            Some(m) => assert!(m.contains(message), "{marker}: {m}"),
            None => assert!(overflow && !debug, "{marker} did not panic"),
        }
    }
    assert_eq!(panicked(4), None);
    let (_, out) = faulty_run(4, |s, seeds| cpu.run(faulty::Task, s, seeds));
    assert_eq!(out, clean());
    assert!(line_of("mul") < line_of("index") && line_of("index") < line_of("div"));
}

fn overflow(r: Result<bfs::BfsRun, RunError>) -> (u64, u64, String) {
    match r {
        Err(
            e @ RunError::QueueOverflow {
                capacity, needed, ..
            },
        ) => (capacity, needed, e.to_string()),
        other => panic!(
            "expected an overflow, got {:?}",
            other.map(|r| r.stats.to_string())
        ),
    }
}

#[test]
fn overflow_is_an_error_naming_the_capacity_needed() {
    let g = atos_graph::load("grid:32x32").unwrap();
    let cpu = CpuExecutor::new().threads(2);
    let offsets = g.offsets_u32().unwrap();
    // A BFS frontier on a 32x32 grid holds up to 32 vertices at once: 8 slots are too few.
    let (capacity, needed, text) = overflow(bfs::run(
        &Executor::Cpu(&cpu),
        &offsets,
        &g.cols,
        0,
        8,
        QueueMode::Ring,
    ));
    assert!(capacity == 8 && needed > 8, "{text}");
    assert!(text.contains("queue `work` overflowed"), "{text}");
    let suggest = (needed.max(9)) * 2;
    assert!(
        text.contains(&format!("Queue::with_capacity({suggest})")),
        "{text}"
    );
    let too_many_seeds = Queue::<u32>::with_capacity(1);
    let depth = AtomicArray::<u32>::filled(g.num_vertices(), 0);
    let state = bfs::BfsState {
        offsets: Slice::new(&offsets),
        cols: Slice::new(&g.cols),
        depth: depth.view(),
        work: too_many_seeds,
    };
    assert!(matches!(
        cpu.run(bfs::bfs::Task, &state, &[0, 1]),
        Err(RunError::QueueOverflow {
            capacity: 1,
            needed: 2,
            ..
        })
    ));
}

#[test]
fn a_linear_queue_needs_room_for_every_push_and_a_ring_only_for_the_alive() {
    let g = atos_graph::load("grid:32x32").unwrap();
    let cpu = CpuExecutor::new().threads(2);
    let offsets = g.offsets_u32().unwrap();
    // Every vertex is pushed at least once: 1024 pushes do not fit a linear queue of 200...
    let (capacity, needed, text) = overflow(bfs::run(
        &Executor::Cpu(&cpu),
        &offsets,
        &g.cols,
        0,
        200,
        QueueMode::Linear,
    ));
    assert!(capacity == 200 && needed > 200, "{text}");
    // ... while a ring of 200 holds the frontier (at most a few dozen vertices) with room.
    let r = bfs::run(
        &Executor::Cpu(&cpu),
        &offsets,
        &g.cols,
        0,
        200,
        QueueMode::Ring,
    )
    .unwrap();
    assert_eq!(r.depths, atos_graph::reference::bfs::bfs_depths(&g, 0));
    assert!(r.stats.popped > 200 && r.stats.queue_peak <= 200);
}

#[atos::state]
pub struct Boom<'a> {
    pub work: Queue<'a, u32>,
    pub divisor: u32,
}

#[atos::task]
fn explode(v: u32, s: &Boom) {
    s.work.push(v / s.divisor);
}

#[test]
fn a_panicking_task_stops_the_run_with_an_error() {
    let state = Boom {
        work: Queue::with_capacity(10),
        divisor: 0,
    };
    match CpuExecutor::new()
        .threads(4)
        .run(explode::Task, &state, &[3])
    {
        Err(RunError::TaskPanicked { message }) => {
            assert!(message.contains("divide by zero"), "{message}")
        }
        other => panic!(
            "expected a task panic, got {:?}",
            other.map(|s| s.to_string())
        ),
    }
}

#[atos::state]
pub struct Count<'a> {
    pub count: Atomics<'a, u32>,
    pub work: Queue<'a, u32>,
}

/// Unsuffixed literals take their type from use, index included (`fetch_add(0, 1)`);
/// `std::cmp::min` and `u64::from` are device code too.
#[atos::task]
fn tally(v: u32, s: &Count) {
    s.count.fetch_add(0, 1);
    let wide = u64::from(std::cmp::min(v, 1));
    s.count.fetch_add(0, (wide / 2) as u32);
    if v > 0 {
        s.work.push(v - 1);
    }
}

#[test]
fn an_unsuffixed_literal_index_compiles_and_runs() {
    let count = AtomicArray::<u32>::filled(1, 0);
    let state = Count {
        count: count.view(),
        work: Queue::with_capacity(4),
    };
    CpuExecutor::new().run(tally::Task, &state, &[9]).unwrap();
    assert_eq!(count.to_vec(), vec![10]);
    let src =
        atos::cuda_source::<tally::Task>(&atos::spec_of::<tally::Task>().checked(false)).unwrap();
    // Uniform code (a warp task outside `lanes`) keeps the fetch form of a dropped result.
    assert!(
        src.contains(
            "worker.uniform([&]() { return atos::atomic_fetch_add(&s.count[atos::index(0, s.count_len, "
        ) && !src.contains("atomic_reduce_add"),
        "{src}"
    );
    assert!(
        src.contains("uint64_t wide = ((uint64_t)atos::min(v, 1u));"),
        "{src}"
    );
}

#[test]
#[should_panic(expected = "Queue::push called outside a run")]
fn pushing_outside_a_run_panics_with_an_explanation() {
    Queue::<u32>::with_capacity(4).push(1);
}

/// Many runs over varied graphs, thread counts, fetch sizes and sources, each under a
/// timeout: no hang, no wrong depth.
#[test]
fn termination_stress() {
    let graphs: Vec<Csr> = [
        "grid:20x20",
        "grid:1x300",
        "kron:9,seed=4",
        "kron:10,seed=9",
        "grid:2x2",
    ]
    .iter()
    .map(|s| atos_graph::load(s).unwrap())
    .collect();
    let mut rng = atos_graph::generate::SplitMix64(7);
    for i in 0..200 {
        let g = graphs[i % graphs.len()].clone();
        let threads = 1 + (rng.next_u64() % 6) as usize;
        let fetch = [1, 2, 5, 32][(rng.next_u64() % 4) as usize];
        let source = (rng.next_u64() % g.num_vertices() as u64) as u32;
        let outcome = common::within(20, move || {
            let r = bfs_on(
                &g,
                source,
                &CpuExecutor::new().threads(threads).fetch(fetch),
                MODES[i % 2],
            );
            r.depths == atos_graph::reference::bfs::bfs_depths(&g, source)
        });
        match outcome {
            Ok(correct) => assert!(
                correct,
                "run {i}: wrong depths (threads {threads}, fetch {fetch}, source {source})"
            ),
            Err(why) => panic!("run {i} {why} (threads {threads}, fetch {fetch}, source {source})"),
        }
    }
}

// ---- a queue is held by one run at a time ----

#[atos::state]
pub struct Gate<'a> {
    /// [0]: the holding task started; [1]: it may finish.
    pub flags: Atomics<'a, u32>,
    pub work: Queue<'a, u32>,
}

/// Says it started, then waits for the test to release it.
#[atos::task(worker = "thread", fetch = 1)]
pub fn hold(_v: u32, s: &Gate) {
    s.flags.store(0u32, 1);
    while s.flags.load(1u32) == 0 {}
}

/// While a run holds a queue, a second run on the same state (plain, or spread over simulated
/// devices, which binds the queue's routing instead) is refused with `AlreadyRunning` and
/// leaves the first run's binding alone: the first still finishes, and the queue is free again.
#[test]
fn a_second_run_on_a_running_state_is_refused() {
    let flags = AtomicArray::<u32>::filled(2, 0);
    let state = Gate {
        flags: flags.view(),
        work: Queue::with_capacity(8),
    };
    let two_devices = atos::Placement::ranges(vec![0, 1, 2]).unwrap();
    std::thread::scope(|scope| {
        let first = scope.spawn(|| CpuExecutor::new().threads(1).run(hold::Task, &state, &[0]));
        while flags.view().load(0u32) == 0 {
            std::thread::yield_now();
        }
        for cpu in [
            CpuExecutor::new().threads(1),
            CpuExecutor::new().threads(1).placement(two_devices.clone()),
        ] {
            match cpu.run(hold::Task, &state, &[1]) {
                Err(RunError::AlreadyRunning { queue }) => assert_eq!(queue, "work"),
                other => panic!("expected AlreadyRunning, got {other:?}"),
            }
        }
        flags.view().store(1u32, 1);
        let stats = first.join().unwrap().unwrap();
        assert_eq!(stats.popped, 1);
    });
    // Free again: a spread run binds it and finishes.
    let stats = CpuExecutor::new()
        .threads(2)
        .placement(two_devices)
        .run(hold::Task, &state, &[0, 1])
        .unwrap();
    assert_eq!(stats.popped, 2);
}
