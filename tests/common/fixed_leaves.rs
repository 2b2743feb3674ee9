//! Hubs over leaves whose colours are fixed: a sharp check of `coloring::hub_windows` and of the
//! shared reductions it runs on. Each hub has its own [`LEAVES`] leaves (no hub is joined to
//! another), the leaves hold fixed colours that take every colour below the hub's expected one
//! and some above it but never that one, and only the hubs are queued. With nothing changing
//! under them, each hub's windows see the same colours, so its colour is exactly first fit's,
//! its check finds no conflict, and the run does exactly one colouring and one check per hub.
//! A window whose `taken` lost a part (a helper's, on a GPU where the chunk of 10,000 edges is
//! shared) would give the hub a colour a leaf holds: a wrong colour here, where a real graph's
//! checks would mend it unseen. Run on the CPU executor in CI (`tests/coloring.rs`) and on the
//! GPU in `examples/gpu_suite.rs` (included there by path).

use atos::apps::coloring::{ColoringArrays, hub_windows, split_seeds};
use atos::{RunError, Seeds, Stats};
use atos_graph::Csr;

/// Hubs, vertices `0..HUBS`.
pub const HUBS: u32 = 12;
/// Leaves per hub: above the 4,096 edges at which a persistent CTA of 256 shares its chunk.
pub const LEAVES: u32 = 10_000;

/// The colour hub `h` must get: spread over windows 0 to 4 (0 to 300).
pub fn expected(h: u32) -> u32 {
    (h * 97 + 5) % 301
}

/// The graph (hub `h` joined to leaves `HUBS + h * LEAVES ..`) and each vertex's starting
/// colour: hubs uncoloured, leaf `i` of hub `h` the `i`-th of the colours `0..expected(h) + 40`
/// other than `expected(h)`, round and round.
pub fn input() -> (Csr, Vec<u32>) {
    let n = HUBS + HUBS * LEAVES;
    let mut edges = atos_graph::EdgeList::new(n);
    let mut colors = vec![atos::apps::coloring::UNCOLORED; n as usize];
    for h in 0..HUBS {
        let f = expected(h);
        let others: Vec<u32> = (0..f + 40).filter(|&c| c != f).collect();
        for i in 0..LEAVES {
            let leaf = HUBS + h * LEAVES + i;
            edges.push(h, leaf);
            colors[leaf as usize] = others[i as usize % others.len()];
        }
    }
    (edges.into_csr(Default::default()).unwrap().0, colors)
}

/// Runs `run` over [`input`] split at degree 1 (the hubs to `assign_big`, alone in the seeds),
/// and checks every colour, the windows and the checks: the run's stats, or a message saying
/// what differs.
pub fn check(
    run: impl FnOnce(&hub_windows::HubWindowsState, &Seeds) -> Result<Stats, RunError>,
) -> Result<Stats, String> {
    let (g, start) = input();
    let offsets = g.offsets_u32().unwrap();
    let arrays = ColoringArrays::new(g.num_vertices());
    for (v, &c) in start.iter().enumerate() {
        // A leaf's word is its colour alone (not waiting); a hub's is `UNCOLORED`.
        arrays.color.view().store(v as u32, c);
    }
    let state = arrays.state_hub_windows(&offsets, &g.cols, 1);
    let (_, hubs) = split_seeds(&offsets, 1);
    assert_eq!(hubs, (0..HUBS).collect::<Vec<_>>());
    let seeds = Seeds::new().add(
        hub_windows::assign_big::Task,
        &hub_windows::hub_seeds(&hubs),
    );
    let stats = run(&state, &seeds).map_err(|e| e.to_string())?;
    let got = arrays.colors();
    for h in 0..HUBS {
        if got[h as usize] != expected(h) {
            return Err(format!(
                "hub {h}: colour {} against {}",
                got[h as usize],
                expected(h)
            ));
        }
    }
    if let Some(v) = (HUBS as usize..got.len()).find(|&v| got[v] != start[v]) {
        return Err(format!(
            "leaf {v} re-coloured: {} against {}",
            got[v], start[v]
        ));
    }
    let popped = |q: &str| stats.queue(q).map_or(0, |q| q.popped);
    let windows: u64 = (0..HUBS).map(|h| u64::from(expected(h) / 64 + 1)).sum();
    if popped("work_big") != windows || popped("check") != u64::from(HUBS) || popped("work") != 0 {
        return Err(format!(
            "{} windows (want {windows}), {} checks (want {HUBS}), {} other colourings",
            popped("work_big"),
            popped("check"),
            popped("work")
        ));
    }
    Ok(stats)
}
