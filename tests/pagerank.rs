//! PageRank on the CPU executor, asynchronous (`apps::pagerank`, Algorithm 4) and
//! bulk-synchronous (`apps::pagerank_bsp`, Algorithm 3), persistent and BSP strategies: within
//! the bound its tolerance guarantees of power iteration, on generated graphs and a real one,
//! with the run's exact end (no residue above the tolerance left).

mod common;

use atos::apps::{pagerank, pagerank_bsp};
use atos::prelude::*;
use atos_graph::Csr;
use atos_graph::reference::pagerank::check_converged;

const DAMPING: f32 = 0.85;

/// Which program.
#[derive(Clone, Copy, Debug)]
enum Form {
    Async,
    /// Async with `push_crossings` off: only the re-scan queues vertices.
    Rescan,
    Bsp,
}

/// Runs `form` with `epsilon` on `threads` CPU workers under `strategy`; checks the ranks
/// against power iteration and returns the workload (vertex tasks per vertex), the BSP levels
/// and the idle sweeps after the first.
fn check(
    name: &str,
    g: &Csr,
    form: Form,
    strategy: Strategy,
    epsilon: f32,
    threads: usize,
) -> (f64, u64, u64) {
    let n = g.num_vertices();
    let offsets = g.offsets_u32().unwrap();
    let cpu = CpuExecutor::new().threads(threads).strategy(strategy);
    let (rank, residue, stats, vertex_tasks) = match form {
        Form::Async | Form::Rescan => {
            let a = pagerank::PageRankArrays::new(n, DAMPING);
            let mut state = a.state(&offsets, &g.cols, epsilon, DAMPING);
            state.push_crossings = matches!(form, Form::Async);
            let seeds = Seeds::new().add(pagerank::push_rank::Task, &a.seeds);
            let stats = cpu
                .run_seeds(pagerank::Tasks::default(), &state, &seeds)
                .unwrap();
            // Seeds and pushes are all push_rank tasks.
            assert_eq!(stats.popped, stats.pushed + n as u64, "{name}");
            let tasks = stats.popped;
            (a.rank.to_vec(), a.residue.to_vec(), stats, tasks)
        }
        Form::Bsp => {
            let a = pagerank_bsp::PageRankBspArrays::new(n, DAMPING);
            let state = a.state(&offsets, &g.cols, epsilon, DAMPING);
            let seeds = Seeds::new().add(pagerank_bsp::advance::Task, &a.ranks.seeds);
            let stats = cpu
                .run_seeds(pagerank_bsp::Tasks::default(), &state, &seeds)
                .unwrap();
            assert!(
                a.incoming.to_vec().iter().all(|&x| x == 0.0),
                "{name}: shares left"
            );
            let advances = stats.queue("frontier").unwrap().popped;
            (
                a.ranks.rank.to_vec(),
                a.ranks.residue.to_vec(),
                stats,
                advances,
            )
        }
    };
    let (opts, exact) = common::pagerank_exact(g, DAMPING, epsilon);
    // f32 ranks summed from many shares: 1e-5 of the total rank for rounding.
    check_converged(&rank, &residue, &exact, opts, 1e-5)
        .unwrap_or_else(|e| panic!("{name} {form:?} {strategy:?}: {e}"));
    (
        vertex_tasks as f64 / n as f64,
        stats.levels,
        stats.idle_sweeps,
    )
}

#[test]
fn pagerank_is_within_its_tolerance_of_power_iteration() {
    for spec in ["grid:30x30", "kron:10,seed=4", "er:2000,deg=8,seed=2"] {
        let g = atos_graph::load(spec).unwrap();
        for epsilon in [1e-3f32, 1e-5] {
            for threads in [1, 3] {
                let (work, _, _) = check(
                    spec,
                    &g,
                    Form::Async,
                    Strategy::Persistent,
                    epsilon,
                    threads,
                );
                assert!(work >= 1.0, "every vertex runs at least once");
                check(spec, &g, Form::Async, Strategy::Bsp, epsilon, threads);
                let (work, _, _) = check(
                    spec,
                    &g,
                    Form::Rescan,
                    Strategy::Persistent,
                    epsilon,
                    threads,
                );
                assert!(work >= 1.0, "re-scan only: every vertex runs at least once");
                let (work, levels, _) = check(spec, &g, Form::Bsp, Strategy::Bsp, epsilon, threads);
                assert!(work >= 1.0);
                // Advance and filter levels alternate; the last filter level pushes nothing.
                assert_eq!(levels % 2, 0, "{spec}: {levels} levels");
                check(spec, &g, Form::Bsp, Strategy::Persistent, epsilon, threads);
            }
        }
    }
}

/// The synchronous iteration does more vertex tasks than the asynchronous one, which lets a
/// vertex absorb what arrives while it waits (the reason Algorithm 4 exists).
#[test]
fn bsp_pagerank_processes_more_vertices_than_async() {
    let g = atos_graph::load("kron:11,seed=3").unwrap();
    let (async_work, _, _) = check("kron:11", &g, Form::Async, Strategy::Persistent, 1e-5, 1);
    let (bsp_work, levels, _) = check("kron:11", &g, Form::Bsp, Strategy::Bsp, 1e-5, 1);
    assert!(
        bsp_work > async_work,
        "BSP {bsp_work:.2} vs async {async_work:.2} per vertex"
    );
    assert!(levels > 4, "{levels}");
}

/// A real graph from `../shared/data`, and a graph with vertices of no out-edges.
#[test]
fn pagerank_on_a_real_graph_and_dangling_vertices() {
    // As every shared-data test: skipped, visibly, where ../shared/data is absent (`.ci/run`
    // says whether CI has it).
    match common::shared_data() {
        Some(dir) => {
            let g =
                atos_graph::load(&dir.join("facebook_combined.edges").to_string_lossy()).unwrap();
            check(
                "facebook_combined",
                &g,
                Form::Async,
                Strategy::Persistent,
                1e-4,
                2,
            );
            check("facebook_combined", &g, Form::Bsp, Strategy::Bsp, 1e-4, 2);
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
    for form in [Form::Async, Form::Rescan, Form::Bsp] {
        check("chain and star", &g, form, Strategy::Bsp, 1e-6, 2);
        check("chain and star", &g, form, Strategy::Persistent, 1e-6, 2);
    }
}

/// With `push_crossings` off the task queues nothing, so every task after the seeds comes from
/// a sweep of the re-scan: on one worker the queue drains between sweeps, and the run needs
/// many of them. With it on, the tasks feed the queue and the re-scan's sweeps find (almost)
/// nothing. A flag the program ignored would make the two counts alike.
#[test]
fn rescan_form_queues_only_from_the_sweep() {
    let g = atos_graph::load("grid:30x30").unwrap();
    let (_, _, push_sweeps) = check("grid", &g, Form::Async, Strategy::Persistent, 1e-4, 1);
    let (_, _, rescan_sweeps) = check("grid", &g, Form::Rescan, Strategy::Persistent, 1e-4, 1);
    assert!(
        rescan_sweeps >= 10 && rescan_sweeps > 5 * push_sweeps.max(1),
        "sweeps: re-scan form {rescan_sweeps}, push form {push_sweeps}"
    );
}

/// `check_tolerance` takes a damping strictly between 0 and 1 and a tolerance that is a normal
/// f32 below `1 - damping`, and refuses the rest with what is wrong.
#[test]
fn check_tolerance_refuses_what_a_run_cannot_take() {
    use pagerank::{ToleranceError, check_tolerance};
    for ok in [0.01, 1e-9, f32::MIN_POSITIVE, 0.149] {
        assert_eq!(check_tolerance(ok, 0.85), Ok(()), "{ok}");
    }
    for bad in [0.0, -1.0, 1e-45, f32::NAN, 0.15, 0.5, f32::INFINITY] {
        let e = check_tolerance(bad, 0.85).unwrap_err();
        assert!(matches!(e, ToleranceError::Epsilon { .. }), "{bad}: {e:?}");
    }
    for d in [0.0, 1.0, -0.5, f32::NAN] {
        let e = check_tolerance(0.01, d);
        assert!(matches!(e, Err(ToleranceError::Damping(_))), "{d}: {e:?}");
    }
    let e = check_tolerance(1e-45, 0.85).unwrap_err().to_string();
    assert!(
        e.contains("use a normal f32") && e.contains("below 1 - damping"),
        "{e}"
    );
}
