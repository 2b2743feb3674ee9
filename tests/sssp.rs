//! SSSP (`apps::sssp`, u32 weights, FIFO order) on the CPU executor, persistent (asynchronous
//! label correcting) and BSP (Bellman-Ford by levels): distances equal to Dijkstra's on
//! weighted generated graphs of every family.

use atos::apps::sssp::{self, UNREACHED};
use atos::prelude::*;
use atos_graph::{Csr, Weights};

/// Runs SSSP from `source`; checks every distance against Dijkstra; returns the workload
/// (tasks per reached vertex) and the levels.
fn check(name: &str, g: &Csr, strategy: Strategy, threads: usize, source: u32) -> (f64, u64) {
    let Some(Weights::U32(weights)) = &g.weights else {
        panic!("{name}: no u32 weights");
    };
    let offsets = g.offsets_u32().unwrap();
    let n = g.num_vertices();
    let a = sssp::SsspArrays::new(n, source);
    let capacity = atos::apps::bfs::default_queue_capacity(n, g.num_edges());
    let state = a.state(&offsets, &g.cols, weights, capacity);
    let seeds = Seeds::new().add(sssp::relax::Task, &a.seeds());
    let stats = CpuExecutor::new()
        .threads(threads)
        .strategy(strategy)
        .run_seeds(sssp::relax::Task, &state, &seeds)
        .unwrap_or_else(|e| panic!("{name} {strategy:?}: {e}"));
    let exact = atos_graph::reference::sssp::dijkstra(g, source).unwrap();
    let got = a.dist.to_vec();
    let mut reached = 0u64;
    for (v, (&d, &x)) in got.iter().zip(&exact).enumerate() {
        let want = if x.is_infinite() { UNREACHED } else { x as u32 };
        assert_eq!(d, want, "{name} {strategy:?} {threads} threads: vertex {v}");
        reached += u64::from(d != UNREACHED);
    }
    (stats.popped as f64 / reached as f64, stats.levels)
}

#[test]
fn sssp_matches_dijkstra_on_every_family() {
    for spec in [
        "grid:40x40,w=100",
        "kron:10,seed=3,w=1000",
        "er:3000,deg=6,seed=5,w=20",
        "geo:3000,seed=2,w=500",
    ] {
        let g = atos_graph::load(spec).unwrap();
        for threads in [1, 4] {
            let (work, _) = check(spec, &g, Strategy::Persistent, threads, 0);
            assert!(work >= 1.0, "{spec}: every reached vertex runs");
            let (bsp_work, levels) = check(spec, &g, Strategy::Bsp, threads, 0);
            assert!(bsp_work >= 1.0 && levels >= 2, "{spec}: {levels} levels");
        }
    }
}

/// Unit weights: SSSP is BFS, and BSP's levels are the BFS depths (plus the empty last one).
#[test]
fn unit_weights_give_bfs_depths_and_levels() {
    let g = atos_graph::load("grid:16x16,w=1").unwrap();
    let (work, levels) = check("grid 16x16 w=1", &g, Strategy::Bsp, 1, 0);
    let depth = atos_graph::reference::bfs::bfs_depths(&g, 0);
    let max = depth.iter().copied().max().unwrap();
    assert_eq!(levels, u64::from(max) + 1, "one level per depth");
    // Level by level with unit weights, every vertex is settled when first reached.
    assert_eq!(work, 1.0);
}

/// A source that reaches nothing, and a graph of two components: the unreached keep UNREACHED.
#[test]
fn unreachable_vertices_stay_unreached() {
    // 0 -> 1 -> 2 and 4 -> 5; 3 is isolated.
    let g = Csr {
        offsets: vec![0, 1, 2, 2, 2, 3, 3],
        cols: vec![1, 2, 5],
        weights: Some(Weights::U32(vec![7, 3, 1])),
    };
    g.check().unwrap();
    check("two components", &g, Strategy::Persistent, 2, 0);
    check("isolated source", &g, Strategy::Persistent, 1, 3);
}
