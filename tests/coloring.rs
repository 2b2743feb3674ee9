//! Speculative greedy colouring on the CPU executor (`apps::coloring`), asynchronous
//! (persistent) and bulk-synchronous: a proper colouring of every vertex, on generated graphs,
//! a real one, self-loops and a vertex of high degree; colour count against CPU greedy; the
//! vertices above a degree coloured by `assign_big`.

mod common;

use atos::apps::coloring::{
    self, ColoringArrays, Tasks, UNCOLORED, WAITING, hub_windows, split, split_fused,
};
use atos::prelude::*;
use atos::{Stats, Task, TaskSet};
use atos_graph::Csr;
use atos_graph::reference::coloring::{
    ColoringOrder, first_fit_bound_exceeded, greedy_coloring, validate_coloring,
};

/// Colours `g` on `threads` CPU workers under `strategy`; returns (colours, assign tasks per
/// vertex, levels).
fn color(name: &str, g: &Csr, strategy: Strategy, threads: usize) -> (u64, f64, u64) {
    color_with(
        name,
        g,
        strategy,
        threads,
        Tasks::default(),
        coloring::assign::Task,
        false,
    )
}

/// The same with the program `tasks`, every vertex seeded to `assign` (its colour task);
/// `inline`: its check is an inline task.
fn color_with<P: for<'a> TaskSet<State<'a> = coloring::ColoringState<'a>>, A: Task<Item = u32>>(
    name: &str,
    g: &Csr,
    strategy: Strategy,
    threads: usize,
    tasks: P,
    assign: A,
    inline: bool,
) -> (u64, f64, u64) {
    let offsets = g.offsets_u32().unwrap();
    let arrays = ColoringArrays::new(g.num_vertices());
    let state = arrays.state(&offsets, &g.cols);
    let stats = CpuExecutor::new()
        .threads(threads)
        .strategy(strategy)
        .run_seeds(tasks, &state, &Seeds::new().add(assign, &arrays.seeds))
        .unwrap();
    // Whether the checks went through their ring: never when they ran inline (a persistent run
    // of `inline_check`) or when no vertex has an edge, always otherwise (every vertex with
    // edges is checked at least once).
    let check_ring_used = stats.queue("check").unwrap().peak > 0;
    let inlined = inline && strategy == Strategy::Persistent;
    let any_edge = coloring::vertices_without_edges(&offsets) < g.num_vertices() as u64;
    assert_eq!(
        check_ring_used,
        !inlined && any_edge,
        "{name} {strategy:?}: check ring peak"
    );
    checked(name, g, strategy, &arrays, &stats, Some(0))
}

/// `coloring::inline_check`: the check run inline at the colour task's push.
fn color_inline(name: &str, g: &Csr, strategy: Strategy, threads: usize) -> (u64, f64, u64) {
    use coloring::inline_check;
    color_with(
        name,
        g,
        strategy,
        threads,
        inline_check::Tasks::default(),
        inline_check::assign::Task,
        true,
    )
}

/// The same with `coloring::split`: the vertices of degree above `big` coloured by
/// `assign_big`, which passes over up to `tie_skip` free colours when it re-colours, its seeds
/// put in order by `order` (given the offsets; `|_, _| {}` keeps them in id order).
fn color_split(
    name: &str,
    g: &Csr,
    strategy: Strategy,
    threads: usize,
    big: u32,
    tie_skip: u32,
    order: impl FnOnce(&[u32], &mut Vec<u32>),
) -> (u64, f64, u64) {
    let offsets = g.offsets_u32().unwrap();
    let arrays = ColoringArrays::new(g.num_vertices());
    let mut state = arrays.state_split(&offsets, &g.cols, big);
    state.tie_skip = tie_skip;
    let (small, mut large) = coloring::split_seeds(&offsets, big);
    order(&offsets, &mut large);
    let stats = CpuExecutor::new()
        .threads(threads)
        .strategy(strategy)
        .run_seeds(
            split::Tasks::default(),
            &state,
            &Seeds::new()
                .add(split::assign::Task, &small)
                .add(split::assign_big::Task, &large),
        )
        .unwrap();
    let above = offsets.windows(2).filter(|w| w[1] - w[0] > big).count() as u64;
    assert_eq!(
        large.len() as u64 + small.len() as u64,
        g.num_vertices() as u64
    );
    assert_eq!(large.len() as u64, above, "{name}");
    let big_tasks = stats.queue("work_big").unwrap().popped;
    assert!(
        big_tasks >= above && (above > 0 || big_tasks == 0),
        "{name}"
    );
    checked(name, g, strategy, &arrays, &stats, Some(tie_skip))
}

/// The same with `coloring::split_fused`: [`color_split`]'s sides, each colour task checking
/// its own vertex (no check queue).
fn color_split_fused(
    name: &str,
    g: &Csr,
    strategy: Strategy,
    threads: usize,
    big: u32,
    tie_skip: u32,
) -> (u64, f64, u64) {
    let offsets = g.offsets_u32().unwrap();
    let arrays = ColoringArrays::new(g.num_vertices());
    let mut state = arrays.state_split_fused(&offsets, &g.cols, big);
    state.tie_skip = tie_skip;
    let (small, large) = coloring::split_seeds(&offsets, big);
    let stats = CpuExecutor::new()
        .threads(threads)
        .strategy(strategy)
        .run_seeds(
            split_fused::Tasks::default(),
            &state,
            &Seeds::new()
                .add(split_fused::assign::Task, &small)
                .add(split_fused::assign_big::Task, &large),
        )
        .unwrap();
    assert!(stats.queue("check").is_none(), "{name}: no check queue");
    let big_tasks = stats.queue("work_big").unwrap().popped;
    assert!(
        big_tasks >= large.len() as u64 && (!large.is_empty() || big_tasks == 0),
        "{name}"
    );
    checked(name, g, strategy, &arrays, &stats, Some(tie_skip))
}

/// The same with `coloring::hub_windows`: the vertices of degree above `big` coloured a window
/// of 64 colours per task. A hub's windows read the colours at different moments, so first
/// fit's bound is not checked, and its colourings are counted by their checks.
fn color_hub_windows(
    name: &str,
    g: &Csr,
    strategy: Strategy,
    threads: usize,
    big: u32,
) -> (u64, f64, u64) {
    let offsets = g.offsets_u32().unwrap();
    let arrays = ColoringArrays::new(g.num_vertices());
    let state = arrays.state_hub_windows(&offsets, &g.cols, big);
    let (small, large) = coloring::split_seeds(&offsets, big);
    let stats = CpuExecutor::new()
        .threads(threads)
        .strategy(strategy)
        .run_seeds(
            hub_windows::Tasks::default(),
            &state,
            &Seeds::new().add(hub_windows::assign::Task, &small).add(
                hub_windows::assign_big::Task,
                &hub_windows::hub_seeds(&large),
            ),
        )
        .unwrap();
    // Each hub takes a window per 64 colours below its own, at least one.
    let windows = stats.queue("work_big").unwrap().popped;
    assert!(windows >= large.len() as u64, "{name}");
    checked(name, g, strategy, &arrays, &stats, None)
}

/// A proper colouring, each colour task of a vertex with edges checked once, no vertex left waiting, and with a `slack`
/// no colour above its vertex's degree (self-loops not counted) plus it: first fit against any
/// reading of the neighbours never goes above the degree, and passing over tied colours adds
/// at most the tie skip; (colours, colour tasks per vertex, levels). Without one (hub windows)
/// the colourings are the checks (and one per vertex without edges), a hub's windows more
/// tasks than one colouring.
fn checked(
    name: &str,
    g: &Csr,
    strategy: Strategy,
    arrays: &ColoringArrays,
    stats: &Stats,
    slack: Option<u32>,
) -> (u64, f64, u64) {
    assert!(
        arrays.color.to_vec().iter().all(|&w| w & WAITING == 0),
        "{name}: a vertex left waiting"
    );
    let colors = arrays.colors();
    let used = validate_coloring(g, &colors).unwrap_or_else(|e| panic!("{name} {strategy:?}: {e}"));
    if let Some(slack) = slack
        && let Some(v) = first_fit_bound_exceeded(g, &colors, slack)
    {
        panic!(
            "{name} {strategy:?}: vertex {v} of degree {} has colour {} (slack {slack})",
            g.degree(v),
            colors[v as usize]
        );
    }
    let popped = |q: &str| stats.queue(q).map_or(0, |q| q.popped);
    // A vertex without edges is coloured once and queues no check.
    let isolated = coloring::vertices_without_edges(&g.offsets_u32().unwrap());
    let assigns = match slack {
        Some(_) => {
            let assigns = popped("work") + popped("work_big");
            match stats.queue("check") {
                Some(check) => assert_eq!(check.popped + isolated, assigns, "{name}"),
                // `split_fused`: each colour task checked its vertex; every vertex coloured.
                None => assert!(assigns >= g.num_vertices() as u64, "{name}"),
            }
            assigns
        }
        None => popped("check") + isolated,
    };
    (used, assigns as f64 / g.num_vertices() as f64, stats.levels)
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
        coloring::check_graph(&g.offsets_u32().unwrap(), &g.cols).unwrap();
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
        // Split at degree 8: the hubs (and most of a kron graph) are coloured by `assign_big`,
        // by first fit or passing over tied colours.
        for strategy in [Strategy::Persistent, Strategy::Bsp] {
            for tie_skip in [0, 4] {
                let (used, _, levels) = color_split(spec, &g, strategy, 4, 8, tie_skip, |_, _| {});
                assert!(
                    used <= 2 * greedy + 2,
                    "{spec} split, tie skip {tie_skip}: {used} colours vs greedy {greedy}"
                );
                if strategy == Strategy::Bsp {
                    assert_eq!(levels % 2, 0, "{spec} split: {levels} levels");
                }
            }
        }
        // Split at degree 8, each colour task checking its vertex (`split_fused`): under BSP a
        // level colours and checks, so the levels need not pair up.
        for strategy in [Strategy::Persistent, Strategy::Bsp] {
            for tie_skip in [0, 4] {
                let (used, work, _) = color_split_fused(spec, &g, strategy, 4, 8, tie_skip);
                assert!(work >= 1.0);
                assert!(
                    used <= 2 * greedy + 2,
                    "{spec} split fused, tie skip {tie_skip}: {used} colours vs greedy {greedy}"
                );
            }
        }
        // Split at degree 8 with the hubs a window per task.
        for strategy in [Strategy::Persistent, Strategy::Bsp] {
            let (used, _, levels) = color_hub_windows(spec, &g, strategy, 4, 8);
            assert!(
                used <= 2 * greedy + 2,
                "{spec} hub windows: {used} colours vs greedy {greedy}"
            );
            if strategy == Strategy::Bsp {
                assert_eq!(levels % 2, 0, "{spec} hub windows: {levels} levels");
            }
        }
        // The check inline (persistent: run at the push; bsp: queued as ever).
        for strategy in [Strategy::Persistent, Strategy::Bsp] {
            let (used, _, levels) = color_inline(spec, &g, strategy, 4);
            assert!(
                used <= 2 * greedy + 2,
                "{spec} inline: {used} colours vs greedy {greedy}"
            );
            if strategy == Strategy::Bsp {
                assert_eq!(levels % 2, 0, "{spec} inline: {levels} levels");
            }
        }
        // One worker in seed order is exactly first-fit greedy in id order: same colours, with
        // the check queued or inline.
        for (used, work, _) in [
            color(spec, &g, Strategy::Persistent, 1),
            color_inline(spec, &g, Strategy::Persistent, 1),
        ] {
            assert_eq!(used, greedy, "{spec}");
            assert_eq!(work, 1.0, "{spec}: no conflicts on one worker");
        }
    }
}

/// A clique of `k` vertices, a hub (vertex `k`) joined to each, and a self-loop at every vertex:
/// `k + 1` colours, all different, in any order of colouring (each vertex is joined to every
/// other, and first fit never picks a colour above its degree).
fn clique_with_hub(k: u32) -> Csr {
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
    g
}

/// More than 64 colours (several forbidden-set windows), self-loops, and a hub of high degree:
/// the plain program on a clique of 150 (151 colours: windows 0, 64 and 128), and the split
/// with every vertex above its bound, `assign_big` alone, on a clique of 300 (301 colours, five
/// windows), by first fit and passing over up to 4 tied colours (a clique's losers are all tied
/// rivals). Every vertex is joined to the `k` others, so the colours are exactly `0..=k` by
/// first fit (`checked` bounds each by its degree) and at most `k + 4` with the tie skip; the
/// same split with each colour task checking its vertex (`split_fused`); and the split with the
/// hubs a window per task (`hub_windows`) on the clique of 300.
#[test]
fn coloring_needs_more_than_one_window_and_ignores_self_loops() {
    let splits = [
        (150u32, None),
        (300, Some((8, 0, false))),
        (300, Some((8, 4, false))),
        (300, Some((8, 0, true))),
        (300, Some((8, 4, true))),
    ];
    for (k, split) in splits {
        let g = clique_with_hub(k);
        for strategy in [Strategy::Persistent, Strategy::Bsp] {
            for threads in [1, 4] {
                let (used, _, _) = match split {
                    None => color("clique", &g, strategy, threads),
                    Some((big, skip, false)) => {
                        color_split("clique", &g, strategy, threads, big, skip, |_, _| {})
                    }
                    Some((big, skip, true)) => {
                        color_split_fused("clique", &g, strategy, threads, big, skip)
                    }
                };
                assert_eq!(
                    used,
                    k as u64 + 1,
                    "clique of {k}, split {split:?}, {strategy:?} on {threads} threads"
                );
            }
        }
    }
    // The hubs a window per task (five windows each): on one worker the windows of a vertex
    // read colours no other worker changes, so first fit's 301 colours; on four, a proper
    // colouring (at least 301).
    let g = clique_with_hub(300);
    for strategy in [Strategy::Persistent, Strategy::Bsp] {
        let (one, _, _) = color_hub_windows("clique", &g, strategy, 1, 8);
        assert_eq!(one, 301, "hub windows, {strategy:?} on one thread");
        let (four, _, _) = color_hub_windows("clique", &g, strategy, 4, 8);
        assert!(four >= 301, "hub windows, {strategy:?} on four threads");
    }
}

/// `assign_big`'s tie skip, step by step: a clique of 5 whose vertices all hold colour 0 after
/// a speculative round, vertex 0 the winner (equal degrees: the smaller id), 1-4 the losers,
/// waiting, re-coloured by one worker in reverse tie order. Each loser counts its tied rivals
/// (the losers before it in the tie order, still waiting with colour 0) and passes over that
/// many free colours, at most `tie_skip`; first fit (0) gives the reverse order.
#[test]
fn tied_rivals_pass_over_one_free_colour_each() {
    let mut edges = atos_graph::EdgeList::new(5);
    for u in 0..5 {
        for v in u + 1..5 {
            edges.push(u, v);
        }
    }
    let (g, _) = edges.into_csr(Default::default()).unwrap();
    let offsets = g.offsets_u32().unwrap();
    for (tie_skip, want) in [
        (0, [0, 4, 3, 2, 1]),
        // Vertex 4 passes over 1 colour (3 rivals, capped), 3 over 1 (2), 2 over 1 (1).
        (1, [0, 1, 4, 3, 2]),
        // Vertex 4 passes over 3 (colours 1-3), 3 over 2, 2 over 1: no colour shared.
        (4, [0, 1, 2, 3, 4]),
    ] {
        let arrays = ColoringArrays::new(5);
        // Colour 0 and waiting, but vertex 0: colour 0 alone.
        arrays.color.fill(WAITING);
        arrays.color.view().store(0u32, 0);
        let mut state = arrays.state_split(&offsets, &g.cols, 0);
        state.tie_skip = tie_skip;
        let stats = CpuExecutor::new()
            .threads(1)
            .run_seeds(
                split::Tasks::default(),
                &state,
                &Seeds::new().add(split::assign_big::Task, &[4, 3, 2, 1]),
            )
            .unwrap();
        assert_eq!(arrays.color.to_vec(), want, "tie skip {tie_skip}");
        // The colouring is proper: the checks re-queue nobody.
        assert_eq!(
            stats.queue("work_big").unwrap().popped,
            4,
            "tie skip {tie_skip}"
        );
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
    // Isolated vertices only: colour 0 each, one task each, and no check (one level).
    let (g, _) = atos_graph::EdgeList::new(5)
        .into_csr(atos_graph::BuildOptions::default())
        .unwrap();
    assert_eq!(color("isolated", &g, Strategy::Bsp, 2), (1, 1.0, 1));
    assert_ne!(UNCOLORED, 0);
}

/// The colour word's two parts as the task bodies spell them (`1 << 31`, `u32::MAX >> 1`) and
/// as the host does (`WAITING`, `ColoringArrays::colors`): one bit for the flag, 31 for the
/// colour, and a word still waiting read back as uncoloured.
#[test]
fn colour_words_split_the_same_on_host_and_device() {
    assert_eq!(WAITING, 1 << 31);
    assert_eq!(WAITING, !(u32::MAX >> 1));
    assert_eq!(UNCOLORED & WAITING, WAITING);
    let arrays = ColoringArrays::new(3);
    arrays.color.view().store(0u32, 7);
    arrays.color.view().store(1u32, WAITING | 7);
    assert_eq!(arrays.colors(), [7, UNCOLORED, UNCOLORED]);
}

/// `hub_windows` on hubs over leaves of fixed colours (`tests/common/fixed_leaves.rs`): each
/// hub exactly first fit's colour, one window per 64 colours below it, one check per hub, on
/// one and four workers, persistent and bulk-synchronous.
#[test]
fn hub_windows_colour_exactly_over_fixed_leaves() {
    for strategy in [Strategy::Persistent, Strategy::Bsp] {
        for threads in [1, 4] {
            common::fixed_leaves::check(|state, seeds| {
                CpuExecutor::new()
                    .threads(threads)
                    .strategy(strategy)
                    .run_seeds(hub_windows::Tasks::default(), state, seeds)
            })
            .unwrap_or_else(|e| panic!("{strategy:?} on {threads} threads: {e}"));
        }
    }
}

/// `hubs_by_degree` puts the largest degrees first (ties by id), and a split run seeded in that
/// order still colours properly.
#[test]
fn hubs_seeded_by_degree() {
    let g = atos_graph::load("kron:11,seed=2").unwrap();
    let offsets = g.offsets_u32().unwrap();
    let (_, mut large) = coloring::split_seeds(&offsets, 8);
    let by_id = large.clone();
    coloring::hubs_by_degree(&offsets, &mut large);
    let degree = |v: u32| g.degree(v);
    assert!(
        large
            .windows(2)
            .all(|w| degree(w[0]) > degree(w[1]) || (degree(w[0]) == degree(w[1]) && w[0] < w[1]))
    );
    let mut sorted = large.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, by_id, "the same hubs");
    for strategy in [Strategy::Persistent, Strategy::Bsp] {
        color_split("kron:11 hubs by degree", &g, strategy, 4, 8, 0, |o, h| {
            coloring::hubs_by_degree(o, h)
        });
    }
}

/// `check_graph` refuses a directed graph (a task sees only the neighbours its vertex lists, so
/// an edge listed one way can join two vertices of one colour unseen), naming an entry without
/// its reverse, and a malformed CSR; it accepts repeated entries and self-loops, which the
/// programs cope with (`clique_with_hub`'s self-loops above).
#[test]
fn check_graph_refuses_a_directed_graph() {
    use atos::apps::graph_check::GraphError;
    let g = clique_with_hub(20);
    coloring::check_graph(&g.offsets_u32().unwrap(), &g.cols).unwrap();
    let mut e = atos_graph::EdgeList::new(4);
    for (u, v) in [(0, 1), (1, 2), (2, 0), (0, 3), (3, 0)] {
        e.push(u, v);
    }
    let (g, _) = e.into_csr(atos_graph::BuildOptions::directed()).unwrap();
    let err = coloring::check_graph(&g.offsets_u32().unwrap(), &g.cols).unwrap_err();
    assert_eq!(
        err,
        GraphError::NotSymmetric {
            app: "colouring",
            u: 0,
            v: 1
        }
    );
    assert!(
        err.to_string()
            .contains("colouring needs an undirected graph, but vertex 0 lists neighbour 1"),
        "{err}"
    );
    assert_eq!(coloring::check_graph(&[0, 2, 4], &[1, 1, 0, 0]), Ok(()));
    // Rows out of order take the other path (a transposed copy): symmetric, then not.
    assert_eq!(coloring::check_graph(&[0, 2, 3, 4], &[2, 1, 0, 0]), Ok(()));
    assert_eq!(
        coloring::check_graph(&[0, 2, 3, 3], &[2, 1, 0]),
        Err(GraphError::NotSymmetric {
            app: "colouring",
            u: 0,
            v: 2
        })
    );
    assert!(matches!(
        coloring::check_graph(&[0, 1], &[1]),
        Err(GraphError::OutOfRange { .. })
    ));
}
