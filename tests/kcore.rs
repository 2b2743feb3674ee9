//! k-core decomposition (`apps::kcore`) on the CPU executor, persistent and BSP, 1 and 4
//! threads: core numbers equal to the bucket-peeling reference on generated graphs of every
//! family and on the real graphs of `../shared/data`.

mod common;

use atos::Stats;
use atos::apps::graph_check::GraphError;
use atos::apps::kcore::{self, KcoreArrays, UNPEELED};
use atos::prelude::*;
use atos_graph::Csr;
use atos_graph::reference::kcore::{core_numbers, degrees};

/// Runs k-core; checks every core number against the reference; returns the run's stats.
fn run(name: &str, g: &Csr, strategy: Strategy, threads: usize) -> Stats {
    run_window(name, g, strategy, threads, kcore::DEFAULT_WINDOW)
}

/// [`run`] with vertices queued `window` levels ahead.
fn run_window(name: &str, g: &Csr, strategy: Strategy, threads: usize, window: u32) -> Stats {
    let offsets = g.offsets_u32().unwrap();
    let a = KcoreArrays::for_graph(&offsets, &g.cols)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .with_window(window);
    assert_eq!(a.degrees(), degrees(g), "{name}: degrees");
    let capacity = kcore::capacity(g.num_vertices(), g.num_edges());
    let state = a.state(&offsets, &g.cols, capacity);
    let stats = CpuExecutor::new()
        .threads(threads)
        .strategy(strategy)
        .run(kcore::peel::Task, &state, &a.seeds())
        .unwrap_or_else(|e| panic!("{name} {strategy:?}: {e}"));
    let want = core_numbers(g).unwrap();
    let got = a.core.to_vec();
    assert!(!got.contains(&UNPEELED), "{name}: a vertex never peeled");
    for (v, (x, y)) in got.iter().zip(&want).enumerate() {
        assert_eq!(
            x, y,
            "{name} {strategy:?} {threads} threads, window {window}: vertex {v}"
        );
    }
    stats
}

#[test]
fn core_numbers_match_the_reference_on_every_family() {
    for spec in [
        "grid:30x20",
        "kron:10,seed=3",
        "er:2000,deg=8,seed=5",
        "geo:2000,seed=2",
    ] {
        let g = atos_graph::load(spec).unwrap();
        let n = g.num_vertices() as u64;
        for (threads, window) in [(1, 1), (4, 1), (1, 4), (4, 3), (2, 8), (3, u32::MAX)] {
            for strategy in [Strategy::Persistent, Strategy::Bsp] {
                let s = run_window(spec, &g, strategy, threads, window);
                assert!(s.popped >= n, "{spec}: every vertex runs");
                // A vertex runs at most 1 + degree tasks (its seed, a re-queue per level it
                // waits at below its core number, a push per distinct lowered degree at or
                // above it): n + m in all, plus the re-runs at the cap level, which have no
                // bound in advance, so this is a check on these graphs, not a law.
                if threads == 1 {
                    let most = 2 * n + g.num_edges() as u64;
                    assert!(s.popped <= most, "{spec}: {}", s.popped);
                }
                let p = &s.priority[0];
                assert!(p.advances >= 1, "{spec}: the level advanced");
                // A far item waits at most `window` levels: no pass examines it more often
                // (queued at its degree, kron:16's passes examined 129 M items to move 0.65 M
                // near). One level ahead, every far item moves at the next advance.
                if window == 1 {
                    assert_eq!(p.examined, p.moved, "{spec} {strategy:?}: far items waited");
                } else if window < u32::MAX {
                    assert!(
                        p.examined <= u64::from(window) * p.moved,
                        "{spec} {strategy:?} window {window}: examined {} moved {}",
                        p.examined,
                        p.moved
                    );
                }
            }
        }
    }
}

/// A level's peels push far items below the smallest key the pass sent back: the next advance
/// must start from them, not skip their level. K4 {0,1,2,3} with leaves on 0, 2 and 3, an edge
/// 1-7 and K5 {7..11}: at level 1 the leaves peel and push 0, 2 and 3 at level 3 while the pass
/// sends back nothing below 4 (the K5). A threshold that jumped past level 3 served levels 3 and
/// 4 together and gave vertex 1 core number 4 (the reference: 3).
#[test]
fn an_advance_never_skips_a_level_tasks_pushed() {
    let mut e = atos_graph::EdgeList::new(12);
    let k4 = [0u32, 1, 2, 3];
    for (i, &a) in k4.iter().enumerate() {
        for &b in &k4[i + 1..] {
            e.push(a, b);
        }
    }
    for (leaf, to) in [(4, 0), (5, 2), (6, 3), (7, 1)] {
        e.push(leaf, to);
    }
    for a in 7..12u32 {
        for b in a + 1..12 {
            e.push(a, b);
        }
    }
    let (g, _) = e.into_csr(atos_graph::BuildOptions::default()).unwrap();
    assert_eq!(core_numbers(&g).unwrap()[1], 3);
    for _ in 0..20 {
        for threads in [1, 3] {
            for strategy in [Strategy::Persistent, Strategy::Bsp] {
                run("K4+K5", &g, strategy, threads);
            }
        }
    }
}

/// The threshold walks the levels: past the largest core number, and at most to one past
/// `core_bound` (no task is queued above it; stale tasks between the two still run).
#[test]
fn the_threshold_walks_the_levels() {
    let g = atos_graph::load("kron:9,seed=1").unwrap();
    let s = run("kron:9", &g, Strategy::Persistent, 2);
    let max_core = core_numbers(&g).unwrap().into_iter().max().unwrap();
    let bound = kcore::core_bound(&degrees(&g));
    let t = s.priority[0].threshold;
    assert!(t > u64::from(max_core) && t <= u64::from(bound) + 1, "{t}");
    assert!(bound < degrees(&g).into_iter().max().unwrap(), "{bound}");
}

/// The bound is at least every core number, and tight on a clique (K5: core number 4).
#[test]
fn core_bound_bounds_the_core_numbers() {
    assert_eq!(kcore::core_bound(&[4; 5]), 4);
    assert_eq!(kcore::core_bound(&[]), 0);
    assert_eq!(kcore::core_bound(&[0, 0]), 0);
    for spec in ["kron:11", "grid:20x20", "geo:3000", "er:2000,deg=30"] {
        let g = atos_graph::load(spec).unwrap();
        let max_core = core_numbers(&g).unwrap().into_iter().max().unwrap();
        assert!(kcore::core_bound(&degrees(&g)) >= max_core, "{spec}");
    }
}

#[test]
fn core_numbers_of_the_shared_graphs() {
    match common::shared_data() {
        Some(dir) => {
            for file in ["delaunay_n16.edges", "facebook_combined.edges"] {
                let g = atos_graph::load(&dir.join(file).to_string_lossy()).unwrap();
                for strategy in [Strategy::Persistent, Strategy::Bsp] {
                    run(file, &g, strategy, 2);
                }
            }
        }
        None => eprintln!("skipping the shared graphs: ../shared/data is absent"),
    }
}

/// A graph with no edges: every vertex peels at level 0, in the first band.
#[test]
fn isolated_vertices_have_core_zero() {
    let (g, _) = atos_graph::EdgeList::new(6)
        .into_csr(atos_graph::BuildOptions::default())
        .unwrap();
    let s = run("isolated", &g, Strategy::Persistent, 2);
    assert_eq!(s.popped, 6);
}

/// A state built by hand with a window out of range still peels exactly: the task keeps the
/// window in `1..=cap + 1` (0 would re-queue a vertex at its own level forever; a huge one
/// would overflow `k + window`). Run on a thread with a time limit, so that a stalled level
/// fails the test instead of hanging it.
#[test]
fn a_hand_built_window_out_of_range_is_kept_in_range() {
    for window in [0, u32::MAX] {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let g = atos_graph::load("kron:9,seed=4").unwrap();
            let offsets = g.offsets_u32().unwrap();
            let a = KcoreArrays::new(degrees(&g));
            let capacity = kcore::capacity(g.num_vertices(), g.num_edges());
            let mut state = a.state(&offsets, &g.cols, capacity);
            state.window = window;
            let run = CpuExecutor::new()
                .threads(2)
                .run(kcore::peel::Task, &state, &a.seeds())
                .map(|_| a.core.to_vec() == core_numbers(&g).unwrap());
            let _ = tx.send(run.map_err(|e| e.to_string()));
        });
        match rx.recv_timeout(std::time::Duration::from_secs(60)) {
            Ok(Ok(exact)) => assert!(exact, "window {window}: wrong core numbers"),
            Ok(Err(e)) => panic!("window {window}: {e}"),
            Err(_) => panic!("window {window}: the run did not end in 60 s (a level stalled?)"),
        }
    }
}

/// `KcoreArrays::for_graph` refuses a CSR that peeling cannot run on, naming the entry: a
/// repeated neighbour (two vertices joined three times would have degrees 3 and 3 and bound 1,
/// and neither would ever peel at level 1: the run would not end), an entry without its
/// reverse (listed by the smaller vertex or by the larger, and a directed triangle, where every
/// vertex has as many entries out as in), a column out of range and offsets that make no CSR. Self-loops count for
/// nothing and pass.
#[test]
fn for_graph_refuses_what_peeling_cannot_run_on() {
    use GraphError::*;
    const APP: &str = "k-core";
    let check = |offsets: &[u32], cols: &[u32]| {
        KcoreArrays::for_graph(offsets, cols).map(|a| a.degrees().to_vec())
    };
    assert_eq!(
        check(&[0, 3, 6], &[1, 1, 1, 0, 0, 0]),
        Err(Duplicate {
            app: APP,
            u: 0,
            v: 1
        })
    );
    assert_eq!(
        check(&[0, 1, 1], &[1]),
        Err(NotSymmetric {
            app: APP,
            u: 0,
            v: 1
        })
    );
    assert_eq!(
        check(&[0, 0, 1], &[0]),
        Err(NotSymmetric {
            app: APP,
            u: 1,
            v: 0
        })
    );
    assert_eq!(
        check(&[0, 1, 2, 3], &[1, 2, 0]),
        Err(NotSymmetric {
            app: APP,
            u: 0,
            v: 1
        })
    );
    assert_eq!(
        check(&[0, 1, 2], &[2, 0]),
        Err(OutOfRange {
            app: APP,
            u: 0,
            v: 2,
            vertices: 2
        })
    );
    for (offsets, cols) in [
        (&[][..], &[][..]),
        (&[1, 1][..], &[0][..]),
        (&[0, 2, 1][..], &[1, 0][..]),
        (&[0, 1][..], &[0, 0][..]),
    ] {
        assert!(
            matches!(check(offsets, cols), Err(BadOffsets { .. })),
            "{offsets:?} {cols:?}"
        );
    }
    // A triangle with a self-loop on vertex 1, listed twice: degrees 2, 2, 2.
    assert_eq!(
        check(&[0, 2, 6, 8], &[1, 2, 0, 1, 1, 2, 0, 1]),
        Ok(vec![2, 2, 2])
    );
    // The messages say what to do.
    let e = check(&[0, 3, 6], &[1, 1, 1, 0, 0, 0])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("vertex 0 lists neighbour 1 more than once"),
        "{e}"
    );
    assert!(e.contains("merge duplicate edges"), "{e}");
}

proptest::proptest! {
    #![proptest_config(proptest::test_runner::Config {
        cases: 300,
        failure_persistence: None,
        ..Default::default()
    })]

    /// The library's check and the reference's agree on every small graph, directed or not,
    /// with or without duplicate entries and self-loops, and with its rows as built (sorted)
    /// or rotated (the check's other path); where both accept, peeling gives the reference's
    /// core numbers. Colouring's check (symmetry alone) agrees with `Csr::is_symmetric`.
    #[test]
    fn for_graph_accepts_what_the_reference_accepts(
        n in 1u32..8,
        pairs in proptest::collection::vec((0u32..8, 0u32..8), 0..16),
        symmetrize: bool,
        drop_duplicates: bool,
        drop_self_loops: bool,
        rotate in 1usize..8,
    ) {
        let pairs = pairs.into_iter().map(|(u, v)| [u % n, v % n]).collect();
        let list = atos_graph::EdgeList { num_vertices: n, pairs, weights: None };
        let opts = atos_graph::BuildOptions { symmetrize, drop_self_loops, drop_duplicates };
        let (g, _) = list.into_csr(opts).unwrap();
        let offsets = g.offsets_u32().unwrap();
        let ours = KcoreArrays::for_graph(&offsets, &g.cols);
        let reference = core_numbers(&g);
        let mut rotated = g.cols.clone();
        for u in 0..g.num_vertices() {
            let row = &mut rotated[offsets[u] as usize..offsets[u + 1] as usize];
            if !row.is_empty() {
                let k = rotate % row.len();
                row.rotate_left(k);
            }
        }
        let ours_rotated = KcoreArrays::for_graph(&offsets, &rotated);
        // An entry named at fault is one: a repeat is listed twice, an unreversed entry has
        // no reverse.
        for (cols, verdict) in [(&g.cols, &ours), (&rotated, &ours_rotated)] {
            let row = |u: u32| &cols[offsets[u as usize] as usize..offsets[u as usize + 1] as usize];
            match verdict {
                Err(GraphError::Duplicate { u, v, .. }) => {
                    proptest::prop_assert!(row(*u).iter().filter(|&w| w == v).count() > 1);
                }
                Err(GraphError::NotSymmetric { u, v, .. }) => {
                    proptest::prop_assert!(row(*u).contains(v) && !row(*v).contains(u), "{u} -> {v}");
                }
                Err(e) => proptest::prop_assert!(false, "{e}"),
                Ok(_) => {}
            }
        }
        proptest::prop_assert_eq!(ours_rotated.is_ok(), reference.is_ok(), "rotated: {:?}", ours_rotated.as_ref().err());
        for cols in [&g.cols, &rotated] {
            let colouring = atos::apps::coloring::check_graph(&offsets, cols);
            proptest::prop_assert_eq!(colouring.is_ok(), g.is_symmetric(), "{:?}", colouring);
            if let Err(GraphError::NotSymmetric { u, v, .. }) = colouring {
                let row = |u: u32| &cols[offsets[u as usize] as usize..offsets[u as usize + 1] as usize];
                proptest::prop_assert!(row(u).contains(&v) && !row(v).contains(&u), "{u} -> {v}");
            }
        }
        proptest::prop_assert_eq!(ours.is_ok(), reference.is_ok(), "{:?} / {:?}", ours.as_ref().err(), reference);
        if let (Ok(a), Ok(want)) = (ours, reference) {
            let capacity = kcore::capacity(g.num_vertices(), g.num_edges());
            let state = a.state(&offsets, &g.cols, capacity);
            CpuExecutor::new().threads(2).run(kcore::peel::Task, &state, &a.seeds()).unwrap();
            proptest::prop_assert_eq!(a.core.to_vec(), want);
        }
    }
}
