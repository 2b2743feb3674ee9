//! Speculative greedy colouring on the CPU executor (`apps::coloring`), asynchronous
//! (persistent) and bulk-synchronous: a proper colouring of every vertex, on generated graphs,
//! a real one, self-loops and a vertex of high degree; colour count against CPU greedy.

mod common;

use atos::apps::coloring::{self, ColoringArrays, Tasks, UNCOLORED};
use atos::prelude::*;
use atos_graph::Csr;
use atos_graph::reference::coloring::{ColoringOrder, greedy_coloring, validate_coloring};

/// Colours `g` on `threads` CPU workers under `strategy`; returns (colours, assign tasks per
/// vertex, levels).
fn color(name: &str, g: &Csr, strategy: Strategy, threads: usize) -> (u64, f64, u64) {
    let n = g.num_vertices();
    let offsets = g.offsets_u32().unwrap();
    let arrays = ColoringArrays::new(n);
    let state = arrays.state(&offsets, &g.cols);
    let stats = CpuExecutor::new()
        .threads(threads)
        .strategy(strategy)
        .run_seeds(
            Tasks::default(),
            &state,
            &Seeds::new().add(coloring::assign::Task, &arrays.seeds),
        )
        .unwrap();
    let colors = arrays.color.to_vec();
    let used = validate_coloring(g, &colors).unwrap_or_else(|e| panic!("{name} {strategy:?}: {e}"));
    let assigns = stats.queue("work").unwrap().popped;
    // Every assign is checked once.
    assert_eq!(stats.queue("check").unwrap().popped, assigns, "{name}");
    assert!(
        arrays.pending.to_vec().iter().all(|&p| p == 0),
        "{name}: a vertex left pending"
    );
    (used, assigns as f64 / n as f64, stats.levels)
}

#[test]
fn coloring_is_proper_on_every_strategy() {
    for spec in [
        "grid:40x40",
        "kron:11,seed=2",
        "er:3000,deg=12,seed=5",
        "geo:2000,seed=1",
    ] {
        let g = atos_graph::load(spec).unwrap();
        let greedy = validate_coloring(&g, &greedy_coloring(&g, ColoringOrder::Natural)).unwrap();
        for threads in [1, 4] {
            for strategy in [Strategy::Persistent, Strategy::Bsp] {
                let (used, work, levels) = color(spec, &g, strategy, threads);
                assert!(work >= 1.0);
                // Speculation may use a few more colours than greedy in id order, never wildly.
                assert!(
                    used <= 2 * greedy + 2,
                    "{spec}: {used} colours vs greedy {greedy}"
                );
                if strategy == Strategy::Bsp {
                    // Colour and check levels alternate; the last check level re-queues nobody.
                    assert_eq!(levels % 2, 0, "{spec}: {levels} levels");
                }
            }
        }
        // One worker in seed order is exactly first-fit greedy in id order: same colours.
        let (used, work, _) = color(spec, &g, Strategy::Persistent, 1);
        assert_eq!(used, greedy, "{spec}");
        assert_eq!(work, 1.0, "{spec}: no conflicts on one worker");
    }
}

/// More than 64 colours (several forbidden-set windows), self-loops, and a hub of high degree.
#[test]
fn coloring_needs_more_than_one_window_and_ignores_self_loops() {
    // A clique of 150 vertices needs 150 colours: windows 0, 64 and 128. Vertex 150 is a hub
    // joined to every clique vertex; every vertex has a self-loop.
    let k = 150u32;
    let mut edges = atos_graph::EdgeList::new(k + 1);
    for u in 0..k {
        for v in u + 1..k {
            edges.push(u, v);
        }
        edges.push(u, k);
    }
    for v in 0..=k {
        edges.push(v, v);
    }
    let (g, _) = edges
        .into_csr(atos_graph::BuildOptions {
            drop_self_loops: false,
            ..Default::default()
        })
        .unwrap();
    assert!(g.neighbors(3).contains(&3), "the self-loops are kept");
    for strategy in [Strategy::Persistent, Strategy::Bsp] {
        for threads in [1, 4] {
            let (used, _, _) = color("clique", &g, strategy, threads);
            assert_eq!(used, k as u64 + 1, "{strategy:?}");
        }
    }
}

#[test]
fn coloring_on_a_real_graph() {
    match common::shared_data() {
        Some(dir) => {
            let g =
                atos_graph::load(&dir.join("facebook_combined.edges").to_string_lossy()).unwrap();
            for strategy in [Strategy::Persistent, Strategy::Bsp] {
                color("facebook_combined", &g, strategy, 2);
            }
        }
        None => eprintln!("skipping facebook_combined: ../shared/data is absent"),
    }
    // An empty graph and isolated vertices: colour 0 each, one task each.
    let (g, _) = atos_graph::EdgeList::new(5)
        .into_csr(atos_graph::BuildOptions::default())
        .unwrap();
    assert_eq!(color("isolated", &g, Strategy::Bsp, 2), (1, 1.0, 2));
    assert_ne!(UNCOLORED, 0);
}
