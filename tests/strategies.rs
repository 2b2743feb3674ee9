//! Strategies on the CPU executor: the bulk-synchronous mode runs level by level (BFS: one
//! level per depth, each reached vertex processed exactly once) and computes what the
//! persistent mode computes, for every program of the program-model tests. The GPU's three
//! strategies are checked by `examples/gpu_suite.rs`.

mod common;

use atos::apps::bfs::{self, Executor};
use atos::prelude::*;
use atos::{RunError, Strategy};
use common::programs::*;

fn bsp(threads: usize) -> CpuExecutor {
    CpuExecutor::new().threads(threads).strategy(Strategy::Bsp)
}

#[test]
fn bsp_bfs_runs_one_level_per_depth_and_each_vertex_once() {
    let mut graphs: Vec<String> = ["grid:40x40", "grid:1x300", "kron:11,seed=4", "geo:3000"]
        .map(String::from)
        .to_vec();
    if let Some(dir) = common::shared_data() {
        graphs.push(
            dir.join("delaunay_n16.edges")
                .to_string_lossy()
                .into_owned(),
        );
    }
    for spec in &graphs {
        let g = atos_graph::load(spec).unwrap();
        let reference = atos_graph::reference::bfs::bfs_depths(&g, 0);
        let deepest = reference
            .iter()
            .filter(|&&d| d != bfs::UNREACHED)
            .max()
            .copied()
            .unwrap();
        let offsets = g.offsets_u32().unwrap();
        let cap = bfs::default_queue_capacity(g.num_vertices(), g.num_edges());
        for (threads, fetch, mode) in [
            (1, 1, QueueMode::Ring),
            (3, 7, QueueMode::Linear),
            (4, 64, QueueMode::Ring),
        ] {
            let cpu = bsp(threads).fetch(fetch);
            let r = bfs::run(&Executor::Cpu(&cpu), &offsets, &g.cols, 0, cap, mode).unwrap();
            let what = format!("{spec} threads {threads} fetch {fetch} {mode:?}");
            assert_eq!(r.depths, reference, "{what}");
            assert_eq!(r.stats.strategy, Strategy::Bsp);
            assert_eq!(r.stats.levels, u64::from(deepest) + 1, "{what}: levels");
            assert_eq!(r.stats.popped, r.reached(), "{what}: each vertex once");
        }
    }
}

#[test]
fn bsp_runs_every_program_of_the_program_model() {
    let g = atos_graph::load("kron:9,w=30,seed=11").unwrap();
    let reference = dijkstra_u32(&g);
    for threads in [1, 3] {
        for case in 0..CASES.len() as u64 {
            for seed in [1, 2, 5] {
                let ok = stress_case(&bsp(threads), case, &g, &reference, seed)
                    .unwrap_or_else(|e| panic!("{} seed {seed}: {e}", CASES[case as usize]));
                assert!(ok, "{} seed {seed} threads {threads}", CASES[case as usize]);
            }
        }
    }
}

#[test]
fn bsp_with_an_idle_hook_ends_on_a_sweep_that_pushes_nothing() {
    let g = atos_graph::load("kron:9,seed=7").unwrap();
    let n = g.num_vertices();
    // Nothing to do: one sweep, one level.
    let (_, _, stats) = residual_run(&g, &vec![0; n], 64, &[], |s, seeds| {
        bsp(2).run((spread::Task, rescan::Task), s, seeds)
    })
    .unwrap();
    assert_eq!((stats.popped, stats.levels, stats.idle_sweeps), (0, 1, 0));
    // Residue everywhere, no seeds: the hook starts the work and the last sweep finds none.
    let init: Vec<u64> = (0..n as u64).map(|i| (i * 7919) % 1000).collect();
    let (mass, residue, stats) = residual_run(&g, &init, 64, &[], |s, seeds| {
        bsp(3).run((spread::Task, rescan::Task), s, seeds)
    })
    .unwrap();
    residual_check(&init, &mass, &residue, 64).unwrap();
    assert!(stats.idle_sweeps >= 1 && stats.levels > stats.idle_sweeps);
}

#[test]
fn discrete_is_a_gpu_scheme_and_the_cpu_says_so() {
    let g = atos_graph::load("grid:8x8").unwrap();
    let offsets = g.offsets_u32().unwrap();
    let cpu = CpuExecutor::new().strategy(Strategy::Discrete);
    let err = bfs::run(
        &Executor::Cpu(&cpu),
        &offsets,
        &g.cols,
        0,
        100,
        QueueMode::Ring,
    )
    .err()
    .expect("refused");
    assert!(matches!(err, RunError::Unsupported(_)), "{err}");
    assert!(err.to_string().contains("Strategy::Bsp"), "{err}");
}

#[test]
fn strategies_parse_by_name() {
    for s in Strategy::ALL {
        assert_eq!(Strategy::parse(s.name()), Some(s));
    }
    assert_eq!(Strategy::parse("async"), None);
}

/// The library's BFS entry points say what is wrong with their input before running: a
/// source that is not a vertex, offsets that make no CSR, a neighbour out of range. Each used
/// to panic (an index out of bounds in the depths or, for a bad neighbour, in a worker).
#[test]
fn bfs_refuses_a_bad_source_or_csr_before_running() {
    let cpu = CpuExecutor::new().threads(2);
    let exec = Executor::Cpu(&cpu);
    let triangle = ([0u32, 2, 4, 6], [1u32, 2, 0, 2, 0, 1]);
    let cases: [(&[u32], &[u32], u32, &str); 4] = [
        (
            &triangle.0,
            &triangle.1,
            3,
            "BFS: source 3 is not a vertex of this graph (3 vertices, 0 to 2)",
        ),
        (
            &[],
            &[],
            0,
            "BFS: 0 offsets and 0 column entries do not make a CSR",
        ),
        (
            &[0, 1, 2, 3],
            &[1, 7, 0],
            0,
            "BFS: vertex 1 lists neighbour 7, but there are only 3 vertices",
        ),
        (&[0, 2, 1, 3], &triangle.1[..3], 0, "do not make a CSR"),
    ];
    for (offsets, cols, source, want) in cases {
        let plain = bfs::run(&exec, offsets, cols, source, 16, QueueMode::Ring);
        let owner = atos::apps::bfs_owner::run_cpu(&cpu, offsets, cols, source, 16);
        for got in [plain.map(|_| ()), owner.map(|_| ())] {
            match got {
                Err(RunError::Input(e)) => assert!(e.contains(want), "{e}"),
                other => panic!("{want}: {other:?}"),
            }
        }
    }
    let r = bfs::run(&exec, &triangle.0, &triangle.1, 2, 16, QueueMode::Ring).unwrap();
    assert_eq!(r.depths, [1, 1, 0]);
}

#[atos::state]
pub struct ForeverState<'a> {
    pub work: Queue<'a, u32>,
}

/// Pushes its item again: a program that never ends, whatever the strategy.
#[atos::task(worker = "thread")]
pub fn again(v: u32, s: &ForeverState) {
    s.work.push(v);
}

/// `CpuExecutor::timeout` stops a run that would never end, persistent and level by level, on
/// one and on several threads, with `RunError::TimedOut` naming the limit, soon after it; a
/// run that ends in time is unaffected.
#[test]
fn a_cpu_run_past_its_time_limit_is_stopped() {
    let limit = std::time::Duration::from_millis(200);
    for strategy in [Strategy::Persistent, Strategy::Bsp] {
        for threads in [1, 3] {
            let state = ForeverState {
                work: Queue::with_capacity(64),
            };
            let t0 = std::time::Instant::now();
            let run = CpuExecutor::new()
                .threads(threads)
                .strategy(strategy)
                .timeout(limit)
                .run(again::Task, &state, &[1, 2, 3]);
            let took = t0.elapsed();
            match run {
                Err(RunError::TimedOut { limit: l }) => assert_eq!(l, limit),
                other => panic!("{strategy:?} {threads}: {other:?}"),
            }
            assert!(
                took >= limit && took < limit * 25,
                "{strategy:?} {threads}: {took:?}"
            );
        }
    }
    let e = RunError::TimedOut { limit }.to_string();
    assert!(
        e.contains("time limit of 200ms") && e.contains("raise the limit"),
        "{e}"
    );
    let g = atos_graph::load("grid:20x20").unwrap();
    let offsets = g.offsets_u32().unwrap();
    let cpu = CpuExecutor::new()
        .threads(2)
        .timeout(std::time::Duration::from_secs(60));
    let r = bfs::run(
        &Executor::Cpu(&cpu),
        &offsets,
        &g.cols,
        0,
        1 << 12,
        QueueMode::Ring,
    );
    assert_eq!(r.unwrap().reached(), 400);
}
