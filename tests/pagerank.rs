//! Asynchronous push PageRank on the CPU executor: within the bound its tolerance guarantees
//! of power iteration, on generated graphs and a real one, with the run's exact end (no
//! residue above the tolerance left).

mod common;

use atos::apps::pagerank::{self, PageRankArrays, Tasks};
use atos::prelude::*;
use atos_graph::Csr;
use atos_graph::reference::pagerank::{PageRankOptions, check_converged, pagerank_power};

/// Runs async PageRank with `epsilon` on `threads` CPU workers; checks it against power
/// iteration and returns the workload (tasks per vertex).
fn check(name: &str, g: &Csr, epsilon: f32, threads: usize) -> f64 {
    let damping = 0.85f32;
    let offsets = g.offsets_u32().unwrap();
    let arrays = PageRankArrays::new(g.num_vertices(), damping);
    let state = arrays.state(&offsets, &g.cols, epsilon, damping);
    let stats = CpuExecutor::new()
        .threads(threads)
        .run_seeds(
            Tasks::default(),
            &state,
            &Seeds::new().add(pagerank::push_rank::Task, &arrays.seeds),
        )
        .unwrap();
    let opts = PageRankOptions {
        damping: f64::from(damping),
        tolerance: f64::from(epsilon),
        ..PageRankOptions::default()
    };
    let exact = pagerank_power(
        g,
        PageRankOptions {
            tolerance: 1e-12,
            max_iterations: 10_000,
            ..opts
        },
    );
    // f32 ranks summed from many shares: 1e-5 of the total rank for rounding.
    check_converged(
        &arrays.rank.to_vec(),
        &arrays.residue.to_vec(),
        &exact.rank,
        opts,
        1e-5,
    )
    .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(stats.popped, stats.pushed + g.num_vertices() as u64);
    stats.popped as f64 / g.num_vertices() as f64
}

#[test]
fn async_pagerank_is_within_its_tolerance_of_power_iteration() {
    for spec in ["grid:30x30", "kron:10,seed=4", "er:2000,deg=8,seed=2"] {
        let g = atos_graph::load(spec).unwrap();
        for threads in [1, 3] {
            for epsilon in [1e-3f32, 1e-5] {
                let work = check(spec, &g, epsilon, threads);
                assert!(work >= 1.0, "every vertex runs at least once");
            }
        }
    }
}

/// A real graph from `../shared/data`, and a graph with vertices of no out-edges.
#[test]
fn async_pagerank_on_a_real_graph_and_dangling_vertices() {
    // As every shared-data test: skipped, visibly, where ../shared/data is absent (`.ci/run`
    // says whether CI has it).
    match common::shared_data() {
        Some(dir) => {
            let g =
                atos_graph::load(&dir.join("facebook_combined.edges").to_string_lossy()).unwrap();
            check("facebook_combined", &g, 1e-4, 2);
        }
        None => eprintln!("skipping facebook_combined: ../shared/data is absent"),
    }
    // A directed chain 0 -> 1 -> .. -> 9 and a star into 10: 9 and 10 have no out-edges.
    let mut edges = atos_graph::EdgeList::new(20);
    (0..9).for_each(|v| edges.push(v, v + 1));
    (11..20).for_each(|v| edges.push(v, 10));
    let (g, _) = edges
        .into_csr(atos_graph::BuildOptions::directed())
        .unwrap();
    check("chain and star", &g, 1e-6, 2);
}
