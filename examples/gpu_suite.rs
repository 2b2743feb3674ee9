//! The GPU acceptance run: BFS depths == CPU reference for every worker kind on several graphs
//! (timed: median of N runs after a warm-up, CUDA events), a termination stress of many runs
//! across configurations and seeds with a timeout each, and queue overflow surfacing as an
//! error. Prints a summary; exits non-zero on any failure.
//!
//! `gpu_suite --data ../shared/data --stress 240 --runs 5`

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use atos::apps::bfs::{self, Executor, bfs as bfs_task};
use atos::codegen::WorkerKind;
use atos::{
    AtomicArray, Gpu, Gpus, MeshProgram, Program, ProgramBuilder, Queue, QueueMode, RunError,
    Strategy, TaskSet,
};
use atos_graph::Csr;
use atos_graph::generate::SplitMix64;
use clap::Parser;

#[derive(Parser)]
struct Args {
    /// Folder with luxembourg_osm.edges, facebook_combined.edges, delaunay_n16.edges.
    #[arg(long)]
    data: Option<PathBuf>,
    #[arg(long, default_value_t = 240)]
    stress: usize,
    /// Runs of the multi-task program stress (near/far, colouring, idle hook, ring chains).
    #[arg(long, default_value_t = 1000)]
    program_stress: usize,
    /// Tasks of the lanes-then-read flag check, per worker kind.
    #[arg(long, default_value_t = 1_000_000)]
    flag_tasks: u32,
    /// Only the BFS timing table (for side-by-side runs against other builds).
    #[arg(long)]
    bfs_only: bool,
    /// Every check but the BFS timing table: with `--bfs-only` in another device call, the
    /// whole suite in two (it takes longer than one call's 600 s).
    #[arg(long, conflicts_with = "bfs_only")]
    no_bfs_table: bool,
    /// Only the program termination stress (`--program-stress` runs), then exit.
    #[arg(long)]
    stress_only: bool,
    /// Only the DSL checks: tuple items and faults (checked mode), then exit.
    #[arg(long)]
    dsl_only: bool,
    /// Only the colouring app's checks (split, hub windows, and thread workers with held pushes and with the
    /// check inline, this many runs each) and the store-buffering litmus of held inline runs,
    /// then exit.
    #[arg(long)]
    coloring_only: Option<usize>,
    /// Only the priority-queue overflow checks (band-by-band programs), then exit.
    #[arg(long)]
    priority_only: bool,
    /// Only the device-state checks (one upload run many times, the next ring on demand) and
    /// persistent grids beyond the resident blocks, then exit.
    #[arg(long)]
    state_only: bool,
    /// With --priority-only: the configurations to run (`worker/strategy`, comma-separated,
    /// e.g. warp/persistent); default: all.
    #[arg(long, value_delimiter = ',')]
    priority_cases: Vec<String>,
    /// Seconds a run of the program-model and priority checks may take before it counts as
    /// a hang [default: 10 persistent, 60 windowed]. Longer: time to attach a debugger.
    #[arg(long)]
    run_timeout: Option<u64>,
    /// BFS table rows to run (`worker/fetch`, comma-separated); default: all.
    #[arg(long, value_delimiter = ',')]
    only: Vec<String>,
    /// `NAME=VALUE` defined before the device headers of the BFS programs (experiments with
    /// the runtime's compile-time knobs, e.g. ATOS_IDLE_NAP_NS=128). Repeatable.
    #[arg(long)]
    define: Vec<String>,
    #[arg(long, default_value_t = 5)]
    runs: usize,
    /// Threads per block of the BFS table's programs.
    #[arg(long, default_value_t = 256)]
    block: u32,
    /// Blocks of the BFS table's programs (default: occupancy x SMs).
    #[arg(long)]
    blocks: Option<u32>,
    /// Extra (worker/fetch) rows for the BFS table, e.g. cta/512.
    #[arg(long, value_delimiter = ',')]
    rows: Vec<String>,
    /// Strategies of the BFS table (persistent, discrete, bsp; comma-separated); default: all.
    /// The other checks run their own strategies.
    #[arg(long, value_delimiter = ',')]
    strategies: Vec<String>,
    /// Large generated graphs for the timed part.
    #[arg(long = "graph", default_values = ["grid:4096x4096", "kron:20"])]
    graphs: Vec<String>,
    /// Only the feature task spread over several devices, against the CPU executor's one
    /// device, then exit: over NVSHMEM when started as a rank (`ATOS_RANK`, `ATOS_RANKS`,
    /// `ATOS_RENDEZVOUS`; every rank checks), else over peer-to-peer on every GPU here (one
    /// GPU: a spread program on one device).
    #[arg(long)]
    spread_features: bool,
    /// With --spread-features over peer-to-peer: this many devices, device d on GPU d mod G
    /// (`Gpus::shared`: devices sharing a GPU run side by side on its SMs). Default: one per
    /// GPU here.
    #[arg(long)]
    spread_devices: Option<usize>,
}

/// How the suite builds its programs: with a run timeout of `secs` seconds, and a build error
/// (NVRTC, the planner) ends the suite with its message.
trait BuildTimed<P: TaskSet> {
    fn build_timed(self, secs: u64) -> Program<P>;
    fn build_mesh_timed(self, gpus: &Gpus, secs: u64) -> MeshProgram<P>;
}

impl<P: TaskSet> BuildTimed<P> for ProgramBuilder<P> {
    fn build_timed(self, secs: u64) -> Program<P> {
        self.timeout(Duration::from_secs(secs))
            .build()
            .unwrap_or_else(|e| panic!("build: {e}"))
    }
    fn build_mesh_timed(self, gpus: &Gpus, secs: u64) -> MeshProgram<P> {
        self.timeout(Duration::from_secs(secs))
            .build_mesh(gpus)
            .unwrap_or_else(|e| panic!("build: {e}"))
    }
}

/// One BFS configuration: worker, fetch, block, grid, strategy, load balancing.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq)]
struct Config {
    w: WorkerKind,
    fetch: u32,
    block: u32,
    grid: Option<u32>,
    strategy: Strategy,
    balance: bool,
    keep: bool,
    /// Shared ranges (`ProgramBuilder::share`): idle groups help with a hub's chunk.
    share: bool,
}

impl Config {
    fn new(w: WorkerKind, fetch: u32) -> Config {
        Config {
            w,
            fetch,
            block: 256,
            grid: None,
            strategy: Strategy::Persistent,
            balance: true,
            keep: true,
            share: true,
        }
    }
    fn label(&self) -> String {
        format!(
            "{}/{}{}{}{} {}",
            self.w.name(),
            self.fetch,
            if self.balance { "" } else { " unbal" },
            if self.keep { "" } else { " nokeep" },
            if self.share { "" } else { " noshare" },
            self.strategy.name()
        )
    }
}

type Programs = HashMap<Config, Program<bfs_task::Task>>;

/// `#define` lines for the BFS programs (`--define`).
static DEFINES: std::sync::OnceLock<String> = std::sync::OnceLock::new();
/// `--run-timeout`: seconds a run of the program-model and priority checks may take.
static RUN_TIMEOUT: std::sync::OnceLock<Option<u64>> = std::sync::OnceLock::new();

fn program<'a>(
    gpu: &Gpu,
    cache: &'a mut Programs,
    c: Config,
    timeout: Duration,
) -> &'a Program<bfs_task::Task> {
    let Config {
        w,
        fetch,
        block,
        grid,
        ..
    } = c;
    cache.entry(c).or_insert_with(|| {
        let mut b = Program::new(gpu, bfs_task::Task)
            .worker(w)
            .fetch(fetch)
            .block_size(block)
            .strategy(c.strategy)
            .balance(c.balance)
            .keep(c.keep)
            .share(c.share)
            .timeout(timeout);
        if let Some(g) = grid {
            b = b.grid(g);
        }
        let defines = DEFINES.get().cloned().unwrap_or_default();
        if !defines.is_empty() {
            b = b.patch_source(move |src| format!("{defines}{src}"));
        }
        let p = b
            .build()
            .unwrap_or_else(|e| panic!("build {w:?}/{fetch}/{block}: {e}"));
        assert!(
            p.compile_log().is_empty(),
            "NVRTC warnings: {}",
            p.compile_log()
        );
        p
    })
}

#[path = "../tests/common/programs.rs"]
mod programs;

#[path = "../tests/common/features.rs"]
mod features;

#[path = "../tests/common/tuples.rs"]
mod tuples;

#[path = "../tests/common/fixed_leaves.rs"]
mod fixed_leaves;

#[path = "../tests/common/reducing.rs"]
mod reducing;

#[path = "../tests/common/faults.rs"]
mod faults;

/// Checked mode: each fault reported with its function, line and Rust's message, on every
/// worker kind; no false fault (the feature task's arrays equal the CPU executor's with checks
/// on); division by zero reported unchecked too; and what checking costs BFS. Returns the
/// failures.
fn faults(gpu: &Gpu, graphs: &[(String, Csr)]) -> usize {
    use faults::*;
    println!("\n== faults: checked arithmetic and indices report the Rust line ==");
    let mut failures = 0;
    let mut fail = |what: String| {
        println!("  WRONG: {what}");
        failures += 1;
    };
    for worker in [WorkerKind::Thread, WorkerKind::Warp, WorkerKind::Cta] {
        for checked in [true, false] {
            let p = Program::new(gpu, faulty::Task)
                .worker(worker)
                .checked(checked)
                .build_timed(10);
            let label = format!(
                "{}/{}",
                worker.name(),
                if checked { "checked" } else { "unchecked" }
            );
            for (mode, marker, message, overflow) in FAULTS {
                let (r, out) = faulty_run(mode, |s, seeds| p.run(s, seeds));
                match r {
                    Err(RunError::Fault {
                        function,
                        line,
                        message: m,
                        ..
                    }) if (checked || !overflow)
                        && function == "faulty"
                        && line == line_of(marker)
                        && m == message =>
                    {
                        println!("  {label} mode {mode}: {m} in `{function}` at line {line}");
                    }
                    // Unchecked, an overflow wraps as a release build does.
                    Ok(_) if !checked && overflow => {
                        if mode == 0 {
                            let wrapped: Vec<u32> =
                                values().iter().map(|x| x.wrapping_mul(1000)).collect();
                            if out != wrapped {
                                fail(format!("{label} mode 0 does not wrap as a release build"));
                            }
                        }
                    }
                    other => fail(format!("{label} mode {mode} ({marker}): {other:?}")),
                }
            }
            let (r, out) = faulty_run(4, |s, seeds| p.run(s, seeds));
            if r.is_err() || out != clean() {
                fail(format!("{label} mode 4 (no fault): {:?}", r.err()));
            }
        }
        let p = Program::new(gpu, features::features::Task)
            .worker(worker)
            .checked(true)
            .build_timed(10);
        if features_run(Some(&p)) == features_run(None) {
            println!(
                "  {}: feature task checked: identical to the CPU executor",
                worker.name()
            );
        } else {
            fail(format!("{}: feature task checked differs", worker.name()));
        }
    }
    // What checking costs: BFS, warp/32, checked vs unchecked, medians of 5 after a warm-up.
    for (name, g) in graphs {
        let offsets = g.offsets_u32().unwrap();
        let cap = bfs::default_queue_capacity(g.num_vertices(), g.num_edges());
        let mut ms = Vec::new();
        for checked in [false, true] {
            let p = Program::new(gpu, bfs_task::Task)
                .worker(WorkerKind::Warp)
                .fetch(32)
                .checked(checked)
                .build_timed(30);
            let mut times = Vec::new();
            for i in 0..6 {
                let r = bfs::run(
                    &Executor::Gpu(&p),
                    &offsets,
                    &g.cols,
                    0,
                    cap,
                    QueueMode::Ring,
                )
                .unwrap();
                if i == 0 && r.depths != atos_graph::reference::bfs::bfs_depths(g, 0) {
                    fail(format!("bfs {name} checked={checked}: wrong depths"));
                }
                if i > 0 {
                    times.push(r.stats.time.as_secs_f64() * 1e3);
                }
            }
            times.sort_by(f64::total_cmp);
            ms.push(times[times.len() / 2]);
        }
        println!(
            "  bfs {name} warp/32: unchecked {:.2} ms, checked {:.2} ms ({:.2}x)",
            ms[0],
            ms[1],
            ms[1] / ms[0]
        );
    }
    failures
}

/// The CUDA twins of host code answer as the host does (`atos::gpu::twins`): the priority
/// keys (`encode_key`, `next_threshold` in queue.cuh against `atos_codegen::keys`, bit for bit)
/// and the idle sweep's window split (`split_sweep` against the CPU executor's). Returns the
/// failures.
fn device_twins(gpu: &Gpu) -> usize {
    use atos::gpu::twins::{TwinReport, check_key_twins, check_sweep_twins};
    let show = |what: &str, r: TwinReport| {
        if r.mismatched == 0 {
            println!("  {what}: {} cases, identical", r.cases);
            0
        } else {
            println!(
                "  {what}: {} cases, {} DIFFERENT, first:",
                r.cases, r.mismatched
            );
            for m in &r.mismatches {
                println!("    {m}");
            }
            1
        }
    };
    println!("\n== device twins: CUDA copies of host code, compared on the GPU ==");
    let keys = check_key_twins(gpu, 1_000_000).unwrap_or_else(|e| panic!("{e}"));
    let sweeps = check_sweep_twins(gpu, 1_000_000).unwrap_or_else(|e| panic!("{e}"));
    show(
        "encode_key, next_threshold and advance_band vs atos_codegen::keys (u32 and f32 keys)",
        keys,
    ) + show(
        "split_sweep vs the CPU executor's SweepWindow::split",
        sweeps,
    )
}

/// Tuple items (3 words, (u32, f32), 16 bytes of mixed widths taken whole) on every worker
/// kind and strategy: the answers of the CPU references. Returns the failures.
fn tuple_items(gpu: &Gpu) -> usize {
    use tuples::*;
    println!("\n== tuple items: N-Queens, (vertex, f32 distance) SSSP, mixed 16-byte items ==");
    // grid:1024x1024 under thread workers in windowed launches lost items in 10 of 10 runs
    // while warp aggregation took its lanes from `__activemask()` alone
    // (docs/results/2026-11-23-activemask-h100.md).
    let graphs: Vec<(&str, Csr, Vec<f32>)> = ["grid:200x200", "kron:14,seed=7", "grid:1024x1024"]
        .into_iter()
        .map(|s| {
            let g = atos_graph::load(s).unwrap();
            let want = float_dijkstra(&g);
            (s, g, want)
        })
        .collect();
    let mut failures = 0;
    for strategy in Strategy::ALL {
        for worker in [
            None,
            Some(WorkerKind::Thread),
            Some(WorkerKind::Warp),
            Some(WorkerKind::Cta),
        ] {
            let label = format!(
                "{}/{}",
                strategy.name(),
                worker.map_or("own", WorkerKind::name)
            );
            let mut wrong = Vec::new();
            let queens = build(gpu, place::Task, worker, 256, None, strategy);
            for n in [6u32, 9, 11] {
                let got = queens_run(n, |s, seeds| queens.run(s, seeds));
                if got != queens_reference(n) {
                    wrong.push(format!("{n} queens {got:?} vs {:?}", queens_reference(n)));
                }
            }
            let sssp = build(gpu, relax_item::Task, worker, 256, None, strategy);
            for (name, g, want) in &graphs {
                if float_sssp_run(g, |s, seeds| sssp.run(s, seeds)) != *want {
                    wrong.push(format!("sssp {name}"));
                }
            }
            let mixed = build(
                gpu,
                (count_down::Task, echo::Task),
                worker,
                256,
                None,
                strategy,
            );
            let got = mixed_run(&MIXED_SEEDS, |s, seeds| mixed.run(s, seeds));
            if got != mixed_reference(&MIXED_SEEDS) {
                wrong.push(format!(
                    "mixed {got:?} vs {:?}",
                    mixed_reference(&MIXED_SEEDS)
                ));
            }
            if wrong.is_empty() {
                println!("  {label}: identical to the references");
            } else {
                println!("  {label}: WRONG: {}", wrong.join("; "));
                failures += 1;
            }
        }
    }
    failures
}

/// The extended balanced shape on the GPU (`tests/common/reducing.rs`): a loop reducing with
/// every operation and type a batch combines in shared memory, read by a tail that stores and
/// pushes the next round; each (vertex, round) must store what the items give one by one, on
/// every strategy, on thread workers (item by item) and on warps and CTAs fetching 4, 8 and 64
/// and CTAs fetching 1 (balanced, with ranges from 0 to 10,000 values: persistent CTA groups
/// share the long ones, helpers adding their parts of the reductions to the owner's); then the
/// per-type folds, every operation with every integer type, persistent and BSP. Each row
/// prints how many indices helpers ran (`QueueStats::helped`, [`sharing`]).
fn balanced_reductions(gpu: &Gpu) -> usize {
    println!("\n== balanced batches whose loop reduces, read after it ==");
    let mut failures = 0;
    // Runs that share: persistent CTA groups (`mark` at fetch 1 runs item by item).
    for strategy in Strategy::ALL {
        for (worker, fetch) in [
            (WorkerKind::Thread, 8),
            (WorkerKind::Warp, 4),
            (WorkerKind::Cta, 1),
            (WorkerKind::Cta, 8),
            (WorkerKind::Cta, 64),
        ] {
            let p = Program::new(gpu, reducing::fold::Task)
                .strategy(strategy)
                .worker(worker)
                .fetch(fetch)
                .build_timed(60);
            let label = format!("{}/{}/{fetch}", strategy.name(), worker.name());
            let shares = strategy == Strategy::Persistent && worker == WorkerKind::Cta;
            match reducing::check(5_000, 3, |s, seeds| p.run(s, seeds))
                .and_then(|st| sharing(shares, &st, None))
            {
                Ok(n) => {
                    println!("  {label}: identical to the reference, {n} indices run by helpers")
                }
                Err(e) => {
                    println!("  {label}: WRONG: {e}");
                    failures += 1;
                }
            }
            // A tail after a loop that reduces nothing: persistent CTA groups share the long
            // chunks, and the tail must see what the helpers' lanes wrote.
            let p = Program::new(gpu, reducing::mark::Task)
                .strategy(strategy)
                .worker(worker)
                .fetch(fetch)
                .build_timed(60);
            let mark_shares = shares && fetch > 1;
            match reducing::marks_check(20_000, |s, seeds| p.run(s, seeds))
                .and_then(|(m, st)| Ok((m, sharing(mark_shares, &st, None)?)))
            {
                Ok((0, n)) => {
                    println!("  {label}: tail after the loop, 0 misses, {n} indices run by helpers")
                }
                Ok((m, _)) => {
                    println!("  {label}: tail after the loop: WRONG, {m} misses");
                    failures += 1;
                }
                Err(e) => {
                    println!("  {label}: tail after the loop: WRONG: {e}");
                    failures += 1;
                }
            }
        }
    }
    // Every operation with every integer type (the per-type folds), where a batch merges on
    // the board (persistent CTA groups, shared) and in shared memory alone (warps; BSP CTAs).
    for (strategy, worker, fetch) in [
        (Strategy::Persistent, WorkerKind::Cta, 1),
        (Strategy::Persistent, WorkerKind::Cta, 8),
        (Strategy::Persistent, WorkerKind::Cta, 64),
        (Strategy::Persistent, WorkerKind::Warp, 4),
        (Strategy::Bsp, WorkerKind::Cta, 8),
        (Strategy::Bsp, WorkerKind::Warp, 4),
    ] {
        let label = format!("{}/{}/{fetch}", strategy.name(), worker.name());
        let mut wrong = Vec::new();
        let mut helped_here = 0;
        let shares = strategy == Strategy::Persistent && worker == WorkerKind::Cta;
        macro_rules! typed {
            ($task:ident, $reference:ident) => {{
                let p = Program::new(gpu, reducing::$task::Task)
                    .strategy(strategy)
                    .worker(worker)
                    .fetch(fetch)
                    .build_timed(60);
                match reducing::typed_check(5_000, reducing::$reference, |s, seeds| p.run(s, seeds))
                    .and_then(|st| sharing(shares, &st, None))
                {
                    Ok(n) => helped_here += n,
                    Err(e) => wrong.push(format!("{}: {e}", stringify!($task))),
                }
            }};
        }
        typed!(fold_u32, reference_u32);
        typed!(fold_i32, reference_i32);
        typed!(fold_u64, reference_u64);
        typed!(fold_i64, reference_i64);
        if wrong.is_empty() {
            println!(
                "  {label}: every operation on u32, i32, u64 and i64 identical to the reference, {helped_here} indices run by helpers"
            );
        } else {
            println!("  {label}: WRONG: {}", wrong.join("; "));
            failures += 1;
        }
    }
    failures
}

/// The colouring app split at a degree (`apps::coloring::split`): hubs on CTAs, the rest on
/// each worker kind, persistent and BSP, on a Kronecker graph and a clique of 600 (every vertex
/// a hub, colours 0..600: ten 64-colour windows), `assign_big` by first fit and passing over
/// up to 4 tied colours (`tie_skip`); every colouring proper and complete, no vertex's colour
/// above its degree plus the tie skip (`first_fit_bound_exceeded`; so the clique's first-fit
/// colours are exactly 0..600), the vertices above the split coloured by `assign_big`. Then
/// the same with each colour task checking its own vertex (`apps::coloring::split_fused`, no
/// check queue), also on 2^20 vertices joined in pairs 64 apart (in each run of 128, `i` and
/// `i + 64`): a thread's 64 items, or a CTA group's batch of 8 warps' 8, end where the partners
/// begin, so different workers colour both ends at once, both take colour 0, and each such
/// conflict must be found by a check that read the other end after its own fence. There a run
/// with no re-colouring fails: it raced nothing, so it tested nothing. Returns the failures.
fn coloring_split(gpu: &Gpu) -> usize {
    let mut clique = atos_graph::EdgeList::new(600);
    for u in 0..600 {
        for v in u + 1..600 {
            clique.push(u, v);
        }
    }
    let clique = clique.into_csr(Default::default()).unwrap().0;
    let kron = atos_graph::load("kron:14").unwrap();
    let (thread, warp, cta) = (WorkerKind::Thread, WorkerKind::Warp, WorkerKind::Cta);
    coloring_split_on(
        gpu,
        "kron:14",
        &kron,
        &[(thread, 64, 0), (warp, 8, 0), (warp, 8, 4), (cta, 8, 0)],
        Checks::Queued,
    ) + coloring_split_on(
        gpu,
        "a clique of 600",
        &clique,
        &[(warp, 8, 0), (warp, 8, 4)],
        Checks::Queued,
    ) + coloring_split_on(
        gpu,
        "kron:14",
        &kron,
        &[(thread, 64, 0), (warp, 8, 0), (warp, 8, 4)],
        Checks::Fused,
    ) + coloring_split_on(
        gpu,
        "a clique of 600",
        &clique,
        &[(warp, 8, 4)],
        Checks::Fused,
    ) + coloring_split_on(
        gpu,
        "2^20 vertices in pairs 64 apart",
        &pairs_apart(1 << 20, 64),
        &[(warp, 8, 0), (warp, 8, 0), (warp, 8, 0), (thread, 64, 0)],
        Checks::FusedRacing,
    )
}

/// `n` vertices (a multiple of `2 * gap`), in each run of `2 * gap` the first `gap` joined to
/// the last `gap`, `i` to `i + gap`.
fn pairs_apart(n: u32, gap: u32) -> atos_graph::Csr {
    let mut pairs = atos_graph::EdgeList::new(n);
    for i in (0..n).filter(|i| i % (2 * gap) < gap) {
        pairs.push(i, i + gap);
    }
    pairs.into_csr(Default::default()).unwrap().0
}

/// Which split [`coloring_split_on`] runs, and what it requires.
#[derive(Clone, Copy, PartialEq)]
enum Checks {
    /// `split`: checks queued to CTAs.
    Queued,
    /// `split_fused`: each colour task checks its own vertex.
    Fused,
    /// `split_fused` on a graph built so that workers race: every run must re-colour.
    FusedRacing,
}

/// [`coloring_split`] on one graph, persistent and BSP, for each (worker, fetch, tie skip) of
/// `every`, the program and requirement `checks` says.
fn coloring_split_on(
    gpu: &Gpu,
    name: &str,
    g: &atos_graph::Csr,
    every: &[(WorkerKind, u32, u32)],
    checks: Checks,
) -> usize {
    let fused = checks != Checks::Queued;
    use atos::Seeds;
    use atos::apps::coloring::{self, ColoringArrays, split, split_fused};
    use atos_graph::reference::coloring as coloring_ref;
    let how = if fused {
        ", each colour task checking its vertex"
    } else {
        ""
    };
    println!("\n== colouring split at degree 16 ({name}): hubs on CTAs{how} ==");
    let offsets = g.offsets_u32().unwrap();
    let (small, large) = coloring::split_seeds(&offsets, 16);
    let mut failures = 0;
    let every = [Strategy::Persistent, Strategy::Bsp]
        .into_iter()
        .flat_map(|s| {
            every
                .iter()
                .map(move |&(w, fetch, skip)| (s, w, fetch, skip))
        });
    for (strategy, w, fetch, tie_skip) in every {
        let arrays = ColoringArrays::new(g.num_vertices());
        let run = if fused {
            let p = Program::new(gpu, split_fused::Tasks::default())
                .strategy(strategy)
                .worker_for(split_fused::assign::Task, w)
                .fetch_for(split_fused::assign::Task, fetch)
                .build_timed(10);
            let mut state = arrays.state_split_fused(&offsets, &g.cols, 16);
            state.tie_skip = tie_skip;
            let seeds = Seeds::new()
                .add(split_fused::assign::Task, &small)
                .add(split_fused::assign_big::Task, &large);
            p.run_seeds(&state, &seeds)
        } else {
            let p = Program::new(gpu, split::Tasks::default())
                .strategy(strategy)
                .worker_for(split::assign::Task, w)
                .fetch_for(split::assign::Task, fetch)
                .build_timed(10);
            let mut state = arrays.state_split(&offsets, &g.cols, 16);
            state.tie_skip = tie_skip;
            let seeds = Seeds::new()
                .add(split::assign::Task, &small)
                .add(split::assign_big::Task, &large);
            p.run_seeds(&state, &seeds)
        };
        let verdict = match run {
            Ok(st) => {
                let big = st.queue("work_big").map_or(0, |q| q.popped);
                let colors = arrays.colors();
                let above = coloring_ref::first_fit_bound_exceeded(g, &colors, tie_skip);
                match coloring_ref::validate_coloring(g, &colors) {
                    Ok(_) if above.is_some() => {
                        let v = above.unwrap();
                        format!("WRONG: vertex {v} has colour {}", colors[v as usize])
                    }
                    Ok(k) if big >= large.len() as u64 => {
                        let tasks = big + st.queue("work").map_or(0, |q| q.popped);
                        let again = tasks.saturating_sub(g.num_vertices() as u64);
                        if again == 0 && checks == Checks::FusedRacing {
                            format!("WRONG: no re-colouring, so no race was checked ({k} colours)")
                        } else {
                            format!("{k} colours, {big} hub colourings, {again} re-colourings")
                        }
                    }
                    Ok(_) => format!("WRONG: {big} hub colourings for {} hubs", large.len()),
                    Err(e) => format!("WRONG: {e}"),
                }
            }
            Err(e) => format!("WRONG: {e}"),
        };
        if verdict.starts_with("WRONG") {
            failures += 1;
        }
        println!(
            "  {strategy:?} {}/{fetch}, tie skip {tie_skip}: {verdict}",
            w.name()
        );
    }
    failures
}

/// The split colouring with the hubs coloured a window per task (`apps::coloring::hub_windows`)
/// on kron:16 split at degree 16, persistent and BSP, `assign` on each worker kind: its hubs of
/// degree 4,096 and more (up to 9,738) are windows persistent CTA groups share with idle
/// groups, whose parts of `taken` reach the owner through the board. Every colouring proper and
/// complete, and at least one check per vertex with edges (each of their colourings ends in one;
/// a vertex without edges is coloured once and queues none). A real graph's
/// checks would mend a colour chosen from a `taken` that lost a part, so then hubs over leaves
/// of fixed colours (`fixed_leaves`), each of which must get exactly first fit's colour.
/// Returns the failures.
fn coloring_hub_windows(gpu: &Gpu) -> usize {
    use atos::Seeds;
    use atos::apps::coloring::{self, ColoringArrays, hub_windows};
    use atos_graph::reference::coloring as coloring_ref;
    println!("\n== colouring split at degree 16 (kron:16), hubs a window per task ==");
    let g = atos_graph::load("kron:16").unwrap();
    let offsets = g.offsets_u32().unwrap();
    let (small, large) = coloring::split_seeds(&offsets, 16);
    let hubs = hub_windows::hub_seeds(&large);
    // A vertex without edges queues no check.
    let isolated = coloring::vertices_without_edges(&offsets);
    let mut failures = 0;
    for strategy in [Strategy::Persistent, Strategy::Bsp] {
        for (w, fetch) in [
            (WorkerKind::Thread, 64),
            (WorkerKind::Warp, 8),
            (WorkerKind::Cta, 8),
        ] {
            let p = Program::new(gpu, hub_windows::Tasks::default())
                .strategy(strategy)
                .worker_for(hub_windows::assign::Task, w)
                .fetch_for(hub_windows::assign::Task, fetch)
                .build_timed(10);
            let arrays = ColoringArrays::new(g.num_vertices());
            let state = arrays.state_hub_windows(&offsets, &g.cols, 16);
            let seeds = Seeds::new()
                .add(hub_windows::assign::Task, &small)
                .add(hub_windows::assign_big::Task, &hubs);
            let verdict = match p.run_seeds(&state, &seeds) {
                Ok(st) => {
                    let windows = st.queue("work_big").map_or(0, |q| q.popped);
                    let checks = st.queue("check").map_or(0, |q| q.popped);
                    let helped = st.queue("work_big").map_or(0, |q| q.helped);
                    match coloring_ref::validate_coloring(&g, &arrays.colors()) {
                        Ok(k) if checks + isolated >= g.num_vertices() as u64 => format!(
                            "{k} colours, {windows} hub windows ({helped} of their edges run by helpers), {checks} checks"
                        ),
                        Ok(_) => format!(
                            "WRONG: {checks} checks for {} vertices ({isolated} without edges)",
                            g.num_vertices()
                        ),
                        Err(e) => format!("WRONG: {e}"),
                    }
                }
                Err(e) => format!("WRONG: {e}"),
            };
            if verdict.starts_with("WRONG") {
                failures += 1;
            }
            println!("  {strategy:?} {}/{fetch}: {verdict}", w.name());
        }
    }
    // The sharp form (`tests/common/fixed_leaves.rs`): 12 hubs of 10,000 leaves with fixed
    // colours, only the hubs queued, so most groups idle and help with the hubs' windows; each
    // hub must get exactly first fit's colour, which a lost part of `taken` would change. The
    // persistent runs must each show that helpers ran some of the windows' edges (`helped`),
    // or the check proves nothing about their parts.
    println!("  hubs over leaves of fixed colours (each hub exactly first fit's colour):");
    for strategy in [Strategy::Persistent, Strategy::Bsp] {
        for big_fetch in [1, 8] {
            let p = Program::new(gpu, hub_windows::Tasks::default())
                .strategy(strategy)
                .fetch_for(hub_windows::assign_big::Task, big_fetch)
                .build_timed(10);
            let label = format!("{strategy:?}, assign_big fetching {big_fetch}");
            let shares = strategy == Strategy::Persistent;
            let verdict = fixed_leaves::check(|state, seeds| p.run_seeds(state, seeds))
                .and_then(|st| sharing(shares, &st, Some("work_big")));
            match verdict {
                Ok(n) => println!("    {label}: exact, {n} edges run by helpers"),
                Err(e) => {
                    println!("    {label}: WRONG: {e}");
                    failures += 1;
                }
            }
        }
    }
    failures
}

/// The indices helpers ran in `st` (of queue `queue`, or of every queue), if that agrees with
/// whether the run shares: a run that shares must count some, or its check never exercised
/// sharing, and any other run none.
fn sharing(shares: bool, st: &atos::Stats, queue: Option<&str>) -> Result<u64, String> {
    let helped = st
        .queues
        .iter()
        .filter(|q| queue.is_none_or(|name| q.name == name))
        .map(|q| q.helped)
        .sum::<u64>();
    match (shares, helped) {
        (true, 0) => Err("no helper ran any index of a run that shares".into()),
        (false, n) if n > 0 => Err(format!(
            "helpers ran {n} indices of a run that shares nothing"
        )),
        (_, n) => Ok(n),
    }
}

/// Store buffering through held inline runs (`programs::StoreBufferTasks`): each vertex of a
/// pair stores its flag, fences and pushes a read of its partner's flag to an inline task; in
/// no pair may both reads miss. Persistent thread groups hold the reads and run them after the
/// batch's one fence (fetch 64 fills the hold of 8, fetch 8 and 1 do not); discrete groups
/// fence per push and queue them. Each of 5 runs of a million pairs must have no such pair,
/// and a persistent run must run every read inline. Partners sit half the items the grid
/// takes at once apart (2 blocks of 256 threads per SM, times the fetch, over 2), so that
/// different threads, mostly on different SMs, take them at the same time. A control with
/// every fence cut out of the generated CUDA is printed, not judged: store buffering is
/// allowed there, not guaranteed. Returns the failures.
fn store_buffering(gpu: &Gpu) -> usize {
    use programs::{StoreBufferTasks, store_buffer_run};
    const PAIRS: u32 = 1 << 20;
    println!("\n== store buffering through held inline runs: {PAIRS} pairs, 5 runs each ==");
    let mut failures = 0;
    let build = |strategy: Strategy, fetch: u32, unfenced: bool| {
        let mut b = Program::new(gpu, StoreBufferTasks::default())
            .strategy(strategy)
            .fetch(fetch);
        if unfenced {
            b = b.patch_source(|src| {
                // The unit's only fences: the thread's owed fence and the full hold's.
                assert!(
                    src.contains("debt.settle(g);") && src.contains("atos::fence_seq_cst();"),
                    "the control finds the fences it cuts"
                );
                src.replace("debt.settle(g);", "")
                    .replace("atos::fence_seq_cst();", "")
            });
        }
        b.build_timed(10)
    };
    for (strategy, fetch, unfenced) in [
        (Strategy::Persistent, 64, false),
        (Strategy::Persistent, 8, false),
        (Strategy::Persistent, 1, false),
        (Strategy::Discrete, 64, false),
        (Strategy::Persistent, 64, true),
    ] {
        let p = build(strategy, fetch, unfenced);
        let apart = gpu.sm_count() * 256 * fetch;
        let (mut missed, mut queued) = (0u64, 0u64);
        for _ in 0..5 {
            let (m, peak) = store_buffer_run(PAIRS, apart, |s, seeds| p.run(s, seeds));
            missed += u64::from(m);
            queued += peak;
        }
        let inline = strategy == Strategy::Persistent;
        let label = format!(
            "{strategy:?} thread/{fetch}, partners {apart} apart{}",
            if unfenced {
                ", fences cut (control)"
            } else {
                ""
            }
        );
        let verdict = if unfenced {
            format!("{missed} pairs missed each other (allowed here)")
        } else if missed != 0 {
            format!("WRONG: {missed} pairs missed each other")
        } else if inline && queued != 0 {
            format!("WRONG: reads went through the look ring (peak {queued})")
        } else {
            "ok: no pair missed".to_string()
        };
        if verdict.starts_with("WRONG") {
            failures += 1;
        }
        println!("  {label}: {verdict}");
    }
    failures
}

/// The plain colouring program on thread workers: persistent, each thread holds its batch's
/// `check` pushes and fences once for them (`atos::HeldPusher`, `ThreadFenceDebt`) instead of
/// once per vertex; discrete, it fences per vertex (the control); bulk-synchronous, it emits
/// no fence (`TrailingFence::Elided`: the checks run in the next level, a later launch). The
/// persistent and discrete proofs that no conflict survives need that fence between a vertex's
/// colour and its check's reads, and the bulk-synchronous one needs the checks to run only after
/// the level, so `runs` runs of each strategy and fetch colour a Kronecker graph and a
/// grid (seeded in id order: neighbours share batches) and every colouring must be proper and
/// complete. Then the same persistent runs with the check inline (`coloring::inline_check`):
/// each thread holds up to 8 checks and runs them after one fence (`atos::InlineHold`; fetch 64
/// fills the hold, fetch 1 and 8 never do), so its `check` ring must stay empty (discrete and
/// bsp would queue the checks, the runs above). Every run must check each colour task once
/// (`check` popped once per `work` task of a vertex with edges, inline runs counted as popped).
/// Returns the failures.
fn coloring_thread(gpu: &Gpu, runs: usize) -> usize {
    use atos::apps::coloring;
    println!(
        "\n== colouring on thread workers (persistent: held check pushes; inline: held checks): {runs} runs each =="
    );
    let every = [Strategy::Persistent, Strategy::Discrete, Strategy::Bsp];
    coloring_thread_runs(gpu, runs, &every, coloring::Tasks::default, false)
        + coloring_thread_runs(
            gpu,
            runs,
            &[Strategy::Persistent],
            coloring::inline_check::Tasks::default,
            true,
        )
}

/// [`coloring_thread`]'s runs of one program over the colouring state under `strategies`, seeded
/// with every vertex; `inline`: its checks run inline (its `check` ring stays empty).
fn coloring_thread_runs<P>(
    gpu: &Gpu,
    runs: usize,
    strategies: &[Strategy],
    tasks: fn() -> P,
    inline: bool,
) -> usize
where
    P: for<'a> atos::TaskSet<State<'a> = atos::apps::coloring::ColoringState<'a>>,
    P::First: atos::Task<Item = u32>,
{
    use atos::apps::coloring::ColoringArrays;
    let label = if inline { "inline" } else { "queued" };
    let mut failures = 0;
    for spec in ["kron:14", "grid:256x256"] {
        let g = atos_graph::load(spec).unwrap();
        let offsets = g.offsets_u32().unwrap();
        let all: Vec<u32> = (0..g.num_vertices() as u32).collect();
        // A vertex without edges queues no check.
        let isolated = atos::apps::coloring::vertices_without_edges(&offsets);
        for &strategy in strategies {
            for fetch in [1, 8, 64] {
                let p = Program::new(gpu, tasks())
                    .strategy(strategy)
                    .worker(WorkerKind::Thread)
                    .fetch(fetch)
                    .build_timed(10);
                let arrays = ColoringArrays::new(g.num_vertices());
                let (mut wrong, mut recolours, mut colours) = (0, 0u64, 0);
                for _ in 0..runs {
                    arrays.reset();
                    let state = arrays.state(&offsets, &g.cols);
                    let verdict = p
                        .run(&state, &all)
                        .map_err(|e| e.to_string())
                        .and_then(|st| {
                            let popped = |q: &str| st.queue(q).map_or(0, |q| q.popped);
                            recolours += popped("work") - g.num_vertices() as u64;
                            if popped("check") + isolated != popped("work") {
                                return Err(format!(
                                    "{} checks for {} colour tasks ({isolated} vertices without edges)",
                                    popped("check"),
                                    popped("work")
                                ));
                            }
                            let peak = st.queue("check").map_or(0, |q| q.peak);
                            if inline && peak != 0 {
                                return Err(format!("{peak} checks went through the ring"));
                            }
                            atos_graph::reference::coloring::validate_coloring(&g, &arrays.colors())
                                .map_err(|e| e.to_string())
                        });
                    match verdict {
                        Ok(k) => colours = colours.max(k),
                        Err(e) => {
                            wrong += 1;
                            println!("  WRONG {label} {spec} {strategy:?} thread/{fetch}: {e}");
                        }
                    }
                }
                // Runs that found no conflict would pass without testing the fence (under bsp,
                // its absence): every
                // configuration recoloured thousands of vertices per 10 runs on an H100
                // (docs/results/2026-12-06d-gather-loops-h100.md), so none at all is a failure.
                let idle = runs > 0 && recolours == 0;
                failures += wrong + usize::from(idle);
                println!(
                    "  {label} {spec} {strategy:?} thread/{fetch}: {} of {runs} proper, at most {colours} colours, {recolours} recolourings{}",
                    runs - wrong,
                    if idle {
                        " (WRONG: no conflict to mend, the check was not exercised)"
                    } else {
                        ""
                    }
                );
            }
        }
    }
    failures
}

/// Runs the feature task over a 20 000-task binary tree; returns every array it writes, as bits.
fn features_run(
    program: Option<&Program<features::features::Task>>,
) -> Vec<(&'static str, Vec<u64>)> {
    let limit = 20_000u32;
    let run = features::FeatureRun::new(features::FeatureRun::mixed_weights(), limit);
    let popped = run.run(|state| match program {
        Some(p) => p.run(state, &[0]).unwrap(),
        None => atos::CpuExecutor::new()
            .run(features::features::Task, state, &[0])
            .unwrap(),
    });
    assert_eq!(popped, u64::from(limit));
    run.bits()
}

/// The feature task spread over every device of the run: each worker kind, a range and a
/// scattered placement, eager and aggregated remote pushes. Every array must equal the CPU
/// executor's on one device, bit for bit. Its `marks`, `small` and `tiny` operations reach
/// other devices' elements (bool or/xor, u16 add, u8 max), and `extremes` lives on device 0
/// (f64 min/max from every other device); under NVSHMEM calls every operation, this rank's
/// included, is an NVSHMEM call. Returns the failures.
fn spread_features(devices: Option<usize>) -> usize {
    let gpus = match atos::gpu::nvshmem::RankEnv::from_env() {
        Ok(Some(env)) => atos::Gpus::join(&env),
        Ok(None) => match devices {
            Some(n) => atos::Gpus::shared(n),
            None => atos::gpu::device_count().and_then(atos::Gpus::first),
        },
        Err(e) => Err(e),
    }
    .unwrap_or_else(|e| panic!("{e}"));
    let rank = gpus.world().map_or(0, |w| w.rank());
    println!(
        "== feature task spread over {}{} ==",
        gpus.describe(),
        if gpus.world().is_some() {
            format!(" (rank {rank})")
        } else {
            String::new()
        }
    );
    let want = features_run(None);
    let limit = 20_000u64;
    let devices = gpus.len();
    let placements = [
        ("even", atos::Placement::even(limit, devices).unwrap()),
        (
            "scattered",
            atos::Placement::from_owners(
                (0..limit)
                    .map(|i| ((i * 7919) % devices as u64) as u8)
                    .collect(),
                devices,
            )
            .unwrap(),
        ),
    ];
    let aggregations = [
        atos::Aggregation::Eager,
        atos::Aggregation::batched(64, Duration::from_micros(20)).unwrap(),
        atos::Aggregation::batched(64, Duration::from_micros(20))
            .unwrap()
            .forward_when_idle(true),
    ];
    let mut failures = 0;
    // Devices sharing a GPU: a grid by hand larger than each one's share of the SMs is refused
    // (the kernels could not all be resident at once).
    if gpus.per_gpu() > 1 {
        let too_many = Program::new(gpus.gpu(0), features::features::Task)
            .grid(gpus.gpu(0).sm_count() * 32)
            .build_mesh(&gpus);
        match too_many {
            Err(e) if e.to_string().contains("does not fit") => {
                println!("  a grid too large for shared GPUs is refused: {e}")
            }
            Err(e) => {
                failures += 1;
                println!("  a grid too large for shared GPUs: FAIL, another error: {e}");
            }
            Ok(_) => {
                failures += 1;
                println!("  a grid too large for shared GPUs: FAIL, it was accepted");
            }
        }
    }
    for (w, fetch) in [
        (WorkerKind::Thread, 4),
        (WorkerKind::Warp, 2),
        (WorkerKind::Cta, 8),
    ] {
        let mut program = Program::new(gpus.gpu(0), features::features::Task)
            .worker(w)
            .fetch(fetch)
            .build_mesh_timed(&gpus, 60);
        // Combining is off by default where every device shares one GPU: on, so the feature
        // task's accumulates are combined whatever the devices.
        program.set_combining(true);
        for (pname, placement) in &placements {
            for aggregation in aggregations {
                program.set_aggregation(aggregation);
                let name = format!("{}/{fetch} {pname} {aggregation}", w.name());
                let run =
                    features::FeatureRun::new(features::FeatureRun::mixed_weights(), limit as u32);
                let (mut sent, mut remote, mut delivered) = (0, None, 0);
                let popped = run.run(|state| {
                    let stats = program
                        .run(state, &[0], placement)
                        .unwrap_or_else(|e| panic!("{name}: {e}"));
                    sent = stats.devices.iter().map(|d| d.sent).sum::<u64>();
                    delivered = stats.devices.iter().map(|d| d.delivered).sum::<u64>();
                    remote = stats
                        .devices
                        .iter()
                        .map(|d| d.remote_ops)
                        .sum::<Option<u64>>();
                    stats
                });
                // Every device but 0 reaches `extremes` on device 0, so a spread run counts
                // remote accesses; one device counts none.
                let remote_ok = match remote {
                    Some(ops) => (devices > 1) == (ops > 0),
                    None => false,
                };
                let got = run.bits();
                let differs: Vec<&str> = got
                    .iter()
                    .zip(&want)
                    .filter(|((_, got), (_, w))| got != w)
                    .map(|((field, _), _)| *field)
                    .collect();
                // `wide`'s accumulates into other devices' elements are combined and
                // delivered when the run ends.
                if popped != limit
                    || !differs.is_empty()
                    || (devices > 1 && sent == 0)
                    || (devices > 1) != (delivered > 0)
                    || !remote_ok
                {
                    failures += 1;
                    println!(
                        "  {name}: FAIL ({popped} tasks, {sent} items sent, {remote:?} remote accesses, {delivered} combined adds delivered, differing: {differs:?})"
                    );
                    for ((field, got), (_, w)) in got.iter().zip(&want) {
                        let wrong: Vec<usize> =
                            (0..got.len()).filter(|&i| got[i] != w[i]).collect();
                        for &i in wrong.iter().take(4) {
                            println!(
                                "    {field}[{i}] = {:#x}, the CPU's {:#x} ({} of {} differ)",
                                got[i],
                                w[i],
                                wrong.len(),
                                got.len()
                            );
                        }
                    }
                } else {
                    println!(
                        "  {name}: all {} arrays identical to the CPU executor's ({sent} items sent, {} remote accesses, {delivered} combined adds delivered)",
                        got.len(),
                        remote.unwrap_or(0)
                    );
                }
            }
        }
    }
    failures
        + combined_adds(&gpus)
        + tight_rings(&gpus)
        + remote_counts(&gpus)
        + raise_offers(&gpus)
        + idle_forwarding(&gpus)
}

/// Forwarding when idle (`BATCH:WAIT_US:idle`) on the GPU, as `idle_devices_forward_at_once`
/// checks it on the CPU executor: BFS on a path whose vertices alternate between the devices
/// (every hop a remote push), aggregated with a batch that never fills and a 100 ms wait. Each
/// device forwards three times, and its second and third forwards each wait out the 100 ms
/// since its previous one, so without `:idle` the run takes at least two waits (the control:
/// it shows the check can fail); with it, a device that has nothing else to do forwards at
/// once, and the run must take less than one wait. Depths exact in both. Returns the failures.
fn idle_forwarding(gpus: &atos::Gpus) -> usize {
    let devices = gpus.len();
    println!("\n== forwarding when idle: a path across {devices} devices, 100 ms wait ==");
    if devices < 2 {
        println!("  one device: nothing is forwarded, nothing to check");
        return 0;
    }
    let n = 3 * devices as u32 + 1;
    let g = atos_graph::load(&format!("grid:1x{n}")).unwrap();
    let offsets = g.offsets_u32().unwrap();
    let want = atos_graph::reference::bfs::bfs_depths(&g, 0);
    let owners: Vec<u8> = (0..n).map(|v| (v as usize % devices) as u8).collect();
    let placement = atos::Placement::from_owners(owners, devices).unwrap();
    let wait = Duration::from_millis(100);
    let mut failures = 0;
    for (w, fetch) in [(WorkerKind::Cta, 8), (WorkerKind::Warp, 4)] {
        let mut program = Program::new(gpus.gpu(0), bfs_task::Task)
            .worker(w)
            .fetch(fetch)
            .build_mesh_timed(gpus, 20);
        for idle in [false, true] {
            let aggregation = atos::Aggregation::batched(64, wait)
                .unwrap()
                .forward_when_idle(idle);
            program.set_aggregation(aggregation);
            let depth = bfs::initial_depths(g.num_vertices(), 0);
            let state = bfs::state(&offsets, &g.cols, &depth, 64, QueueMode::Ring);
            let name = format!("{}/{fetch} {aggregation}", w.name());
            match program.run(&state, &[0], &placement) {
                Ok(st) if depth.to_vec() == want => {
                    let ok = if idle {
                        st.time < wait
                    } else {
                        st.time >= 2 * wait
                    };
                    failures += usize::from(!ok);
                    println!(
                        "  {name}: {}exact, {:.1} ms ({})",
                        if ok { "" } else { "FAIL " },
                        st.time.as_secs_f64() * 1e3,
                        if idle {
                            "must be under one wait"
                        } else {
                            "control: at least two waits"
                        }
                    );
                }
                r => {
                    failures += 1;
                    println!("  {name}: FAIL {:?}", r.map(|s| s.to_string()));
                }
            }
        }
    }
    failures
}

/// Offers upward (`offer_raise`): `programs::MaxLabelTasks` spread over the devices, every
/// vertex seeded with its own label, on a range and on an owner map, eager and aggregated, CTA
/// and warp workers: every label must be the CPU reference's (the largest index reaching the
/// vertex). Returns the failures.
fn raise_offers(gpus: &atos::Gpus) -> usize {
    let devices = gpus.len();
    println!("\n== offers that raise: largest reaching labels ({devices} devices) ==");
    let mut failures = 0;
    for spec in ["kron:12,seed=3", "grid:48x48"] {
        let g = atos_graph::load(spec).unwrap();
        let want = programs::max_label_reference(&g);
        let n = g.num_vertices() as u64;
        let placements = [
            ("even", atos::Placement::even(n, devices).unwrap()),
            (
                "scattered",
                atos::Placement::from_owners(
                    (0..n)
                        .map(|i| ((i * 7919) % devices as u64) as u8)
                        .collect(),
                    devices,
                )
                .unwrap(),
            ),
        ];
        for (w, fetch) in [(WorkerKind::Cta, 16), (WorkerKind::Warp, 4)] {
            for aggregation in [
                atos::Aggregation::Eager,
                atos::Aggregation::batched(16, Duration::from_micros(5)).unwrap(),
            ] {
                let mut program = Program::new(gpus.gpu(0), programs::MaxLabelTasks::default())
                    .worker(w)
                    .fetch(fetch)
                    .build_mesh_timed(gpus, 30);
                program.set_aggregation(aggregation);
                for (pname, pl) in &placements {
                    let name = format!("{spec} {pname} {}/{fetch} {aggregation}", w.name());
                    match programs::max_label_run(&g, |s, seeds| program.run(s, seeds, pl)) {
                        Ok((labels, stats)) if labels == want => {
                            let sent: u64 = stats.devices.iter().map(|d| d.sent).sum();
                            println!("  {name}: exact ({sent} items sent)");
                        }
                        Ok((labels, _)) => {
                            failures += 1;
                            println!(
                                "  {name}: FAIL ({} of {n} labels wrong)",
                                labels.iter().zip(&want).filter(|(a, b)| a != b).count()
                            );
                        }
                        Err(e @ RunError::Gpu(atos::GpuError::Timeout { .. })) => {
                            println!("  {name}: HUNG: {e}");
                            hang_exit();
                        }
                        Err(e) => {
                            failures += 1;
                            println!("  {name}: FAIL: {e}");
                        }
                    }
                }
            }
        }
    }
    failures
}

/// Each device's count of its accesses to other devices' elements (`remote_ops`) on a program
/// whose accesses do not depend on timing (`programs::read_next`): the GPU's must equal the
/// formula and the CPU executor's twin count (`cpu::mesh::SpreadFields`) on the same placement,
/// device by device. Returns the failures.
fn remote_counts(gpus: &atos::Gpus) -> usize {
    let devices = gpus.len();
    println!("\n== remote accesses counted alike on GPUs and the CPU ({devices} devices) ==");
    if gpus.world().is_some() {
        println!("  skipped under NVSHMEM (peer-to-peer only)");
        return 0;
    }
    let n = 30_000u32;
    let program = Program::new(gpus.gpu(0), programs::read_next::Task).build_mesh_timed(gpus, 60);
    let mut failures = 0;
    for (pname, placement) in [
        (
            "even",
            atos::Placement::even(u64::from(n), devices).unwrap(),
        ),
        (
            "scattered",
            atos::Placement::from_owners(
                (0..n).map(|i| ((i * 7) % devices as u32) as u8).collect(),
                devices,
            )
            .unwrap(),
        ),
    ] {
        let want = programs::next_remote_accesses(&placement, n);
        let run = |on_gpu: bool| {
            let value = AtomicArray::<u32>::filled(n as usize, 1);
            let total = AtomicArray::<u32>::filled(1, 0);
            let state = programs::NextState {
                value: value.view(),
                total: total.view(),
                work: Queue::with_capacity(u64::from(n)),
                n,
            };
            let seeds: Vec<u32> = (0..n).collect();
            let stats = if on_gpu {
                program.run(&state, &seeds, &placement)
            } else {
                atos::CpuExecutor::new()
                    .threads(devices.max(2))
                    .placement(placement.clone())
                    .run(programs::read_next::Task, &state, &seeds)
            }
            .unwrap_or_else(|e| panic!("{pname}: {e}"));
            let ops: Vec<Option<u64>> = stats.devices.iter().map(|d| d.remote_ops).collect();
            (total.to_vec()[0], ops)
        };
        let (gpu_total, gpu) = run(true);
        let (cpu_total, cpu) = run(false);
        let want_ops: Vec<Option<u64>> = want.iter().map(|&w| Some(w)).collect();
        if gpu_total != n || cpu_total != n || gpu != want_ops || cpu != want_ops {
            failures += 1;
            println!(
                "  {pname}: FAIL (totals GPU {gpu_total}, CPU {cpu_total}, want {n}; remote accesses GPU {gpu:?}, CPU {cpu:?}, want {want:?})"
            );
        } else {
            println!("  {pname}: GPU and CPU count {want:?}, as the placement says");
        }
    }
    failures
}

/// Spread BFS through rings barely above its peak (docs/runtime.md, "Alive, exactly"): the
/// rings wrap many times, so pushes may wait for the copy-outs of earlier laps (how often they
/// did is not counted). A CTA group's routed
/// flush waits with one thread per destination while the rest of the CTA sits at a barrier; a
/// warp's pushes wait as a group. Each run must give the CPU reference's depths or stop with an
/// overflow (a run's peak varies), never hang; at twice the peak at least half of them must
/// finish. Returns the failures.
fn tight_rings(gpus: &atos::Gpus) -> usize {
    let devices = gpus.len();
    println!("\n== spread BFS through tight rings ({devices} devices) ==");
    let mut failures = 0;
    for spec in ["grid:64x64", "kron:12,seed=3"] {
        let g = atos_graph::load(spec).unwrap();
        let offsets = g.offsets_u32().unwrap();
        let want = atos_graph::reference::bfs::bfs_depths(&g, 0);
        let placement = atos::Placement::even(g.num_vertices() as u64, devices).unwrap();
        for (w, fetch) in [(WorkerKind::Cta, 8), (WorkerKind::Warp, 4)] {
            for aggregation in [
                atos::Aggregation::Eager,
                atos::Aggregation::batched(16, Duration::from_micros(5)).unwrap(),
                atos::Aggregation::batched(16, Duration::from_micros(5))
                    .unwrap()
                    .forward_when_idle(true),
            ] {
                let mut program = Program::new(gpus.gpu(0), bfs_task::Task)
                    .worker(w)
                    .fetch(fetch)
                    .build_mesh_timed(gpus, 20);
                program.set_aggregation(aggregation);
                let name = format!("{spec} {}/{fetch} {aggregation}", w.name());
                let run = |capacity: u64| {
                    let depth = bfs::initial_depths(g.num_vertices(), 0);
                    let state = bfs::state(&offsets, &g.cols, &depth, capacity, QueueMode::Ring);
                    let r = program.run(&state, &[0], &placement);
                    (r, depth.to_vec())
                };
                let peak = match run(g.num_edges() as u64 + 1) {
                    (Ok(st), depths) if depths == want => st.queue_peak,
                    (r, _) => {
                        failures += 1;
                        println!("  {name}: FAIL with room: {:?}", r.map(|s| s.to_string()));
                        continue;
                    }
                };
                // Under NVSHMEM an overflow ends the rank (`fatal_on_rank`: the other ranks
                // would wait in a collective out of step), and these capacities are chosen to
                // overflow now and then: only the run with room is checked there (on
                // 2026-11-28 a quarter above the peak ended both ranks of the mapped run).
                if gpus.world().is_some() {
                    println!(
                        "  {name}: exact with room (peak {peak}); tight capacities skipped under NVSHMEM (an overflow ends the rank)"
                    );
                    continue;
                }
                // Twice the peak: most runs must finish. A quarter above it: overflows are
                // expected (a run's peak varies), hangs and wrong depths never.
                for (capacity, most_finish) in [
                    ((2 * peak).max(64), true),
                    ((peak + peak / 4).max(16), false),
                ] {
                    let (mut done, mut overflowed, mut wrong) = (0, 0, 0);
                    for _ in 0..10 {
                        match run(capacity) {
                            (Ok(_), depths) if depths == want => done += 1,
                            (Err(RunError::QueueOverflow { .. }), _) => overflowed += 1,
                            (Err(e @ RunError::Gpu(atos::GpuError::Timeout { .. })), _) => {
                                println!("  {name}: HUNG at capacity {capacity}: {e}");
                                hang_exit();
                            }
                            (r, _) => {
                                wrong += 1;
                                println!(
                                    "  {name}: FAIL at capacity {capacity}: {:?}",
                                    r.map(|s| s.to_string())
                                );
                            }
                        }
                    }
                    let ok = wrong == 0 && (!most_finish || done >= 5);
                    failures += usize::from(!ok);
                    println!(
                        "  {name}: {}capacity {capacity} (peak {peak} with room): {done} of 10 correct, {overflowed} overflowed",
                        if ok { "" } else { "FAIL " }
                    );
                }
            }
        }
    }
    failures
}

/// `accumulate` spread over the devices (docs/runtime.md, "Combined adds"): in-degrees counted
/// with no idle hook come out exact; with drains off each device delivers at the end exactly
/// the distinct elements of other devices its edges reach, and with drains (the default)
/// partial sums earlier as well (more deliveries on some device); the integer residual push
/// whose shares are all `accumulate`s conserves its mass and ends with nothing at the threshold
/// (drains and the re-scan's sweeps deliver, and the run ends only after a sweep that delivered
/// nothing).
fn combined_adds(gpus: &atos::Gpus) -> usize {
    let devices = gpus.len();
    let mut failures = 0;
    let g = atos_graph::load("kron:14,seed=2").unwrap();
    let n = g.num_vertices();
    let mut want = vec![0u32; n];
    for &c in &g.cols {
        want[c as usize] += 1;
    }
    let placements = [
        (
            "vertices",
            atos::Placement::even(n as u64, devices).unwrap(),
        ),
        (
            "scattered",
            atos::Placement::from_owners(
                (0..n as u64)
                    .map(|i| ((i * 7919) % devices as u64) as u8)
                    .collect(),
                devices,
            )
            .unwrap(),
        ),
    ];
    let mut count = Program::new(gpus.gpu(0), programs::count_in::Task).build_mesh_timed(gpus, 60);
    let mut quiet =
        Program::new(gpus.gpu(0), programs::QuietResidual::default()).build_mesh_timed(gpus, 60);
    // The default: off only where every device shares one GPU.
    let default = gpus.per_gpu() < devices || gpus.world().is_some();
    if count.combining() != default {
        failures += 1;
        println!(
            "  combining by default: FAIL ({}, expected {default})",
            count.combining()
        );
    }
    // Combining on (whatever the default) without drains: everything is delivered when the
    // kernel ends, once per element and device; with drains after batches (the default): the
    // same counts, every element delivered at least once, partial sums earlier; then off: the
    // same counts, nothing delivered.
    quiet.set_combining(true);
    let mut drained_early = false;
    for (pname, pl) in &placements {
        let reached = programs::remote_targets(&g, pl);
        for (on, drain) in [
            (true, 0),
            (true, atos::aggregation::COMBINE_DRAIN),
            (false, 0),
        ] {
            count.set_combining(on);
            count.set_drain(drain);
            let name = format!("in-degrees {pname} combining {on} drain {drain}");
            match programs::in_degree_run(&g, |s, seeds| count.run(s, seeds, pl)) {
                Ok((counts, stats)) => {
                    let delivered: Vec<u64> = stats.devices.iter().map(|d| d.delivered).collect();
                    let expected = if devices > 1 && on {
                        reached.clone()
                    } else {
                        vec![0; devices]
                    };
                    let delivered_ok = if drain == 0 || !on {
                        delivered == expected
                    } else {
                        drained_early |= delivered.iter().zip(&expected).any(|(d, e)| d > e);
                        delivered.iter().zip(&expected).all(|(d, e)| d >= e)
                    };
                    if counts != want || !delivered_ok {
                        failures += 1;
                        println!(
                            "  {name}: FAIL ({} of {n} counts wrong; delivered {delivered:?}, expected {}{expected:?})",
                            counts.iter().zip(&want).filter(|(a, b)| a != b).count(),
                            if drain == 0 || !on { "" } else { "at least " }
                        );
                    } else {
                        println!("  {name}: exact, delivered {delivered:?}");
                    }
                }
                Err(e) => {
                    failures += 1;
                    println!("  {name}: FAIL: {e}");
                }
            }
        }
        for round in 0..8u64 {
            let init: Vec<u64> = (0..n as u64).map(|v| ((v * 7919) ^ round) % 700).collect();
            let threshold = 8 + round * 3;
            let seeds: Vec<u32> = if round % 2 == 0 { vec![0] } else { vec![] };
            let name = format!("quiet residual {pname} round {round}");
            match programs::residual_run(&g, &init, threshold, &seeds, |s, sd| quiet.run(s, sd, pl))
            {
                Ok((mass, residue, stats)) => {
                    let delivered: u64 = stats.devices.iter().map(|d| d.delivered).sum();
                    match programs::residual_check(&init, &mass, &residue, threshold) {
                        Ok(()) if (devices > 1) == (delivered > 0) => println!(
                            "  {name}: conserved, nothing left at the threshold ({delivered} delivered, {} sweeps)",
                            stats.idle_sweeps
                        ),
                        Ok(()) => {
                            failures += 1;
                            println!("  {name}: FAIL: {delivered} delivered on {devices} devices");
                        }
                        Err(e) => {
                            failures += 1;
                            println!("  {name}: FAIL: {e}");
                        }
                    }
                }
                Err(e) => {
                    failures += 1;
                    println!("  {name}: FAIL: {e}");
                }
            }
        }
    }
    // Drains must have delivered partial sums during the runs, not only everything at the end.
    if devices > 1 && !drained_early {
        failures += 1;
        println!("  in-degrees with drains: FAIL: no device delivered more than once per element");
    }
    failures
}

fn main() {
    let args = Args::parse();
    // Which device code this binary carries (the same fingerprint as `atos --version`).
    println!("device code {}", atos::headers::device_code_id());
    let defines: String = args
        .define
        .iter()
        .map(|d| {
            let (name, value) = d.split_once('=').unwrap_or((d, "1"));
            format!("#define {name} {value}\n")
        })
        .collect();
    if !defines.is_empty() {
        println!("defines for the BFS programs:\n{defines}");
    }
    DEFINES.set(defines).unwrap();
    RUN_TIMEOUT.set(args.run_timeout).unwrap();
    if args.spread_features {
        let failures = spread_features(args.spread_devices);
        println!("\nSUMMARY: {} failures", failures);
        std::process::exit(if failures == 0 { 0 } else { 1 });
    }
    let gpu = Gpu::new(0).unwrap_or_else(|e| panic!("{e}"));
    println!(
        "device: {} (sm_{}{}, {} SMs), NVRTC {:?}",
        gpu.name(),
        gpu.arch().0,
        gpu.arch().1,
        gpu.sm_count(),
        atos::gpu::nvrtc::nvrtc_version().unwrap()
    );
    let mut programs: Programs = HashMap::new();
    let mut failures = 0usize;

    // ---- 1. correctness + timing, every worker kind ----
    let mut graphs: Vec<(String, Csr)> = Vec::new();
    for spec in &args.graphs {
        let t = Instant::now();
        graphs.push((spec.clone(), atos_graph::load(spec).unwrap()));
        println!("loaded {spec} in {:.1} s", t.elapsed().as_secs_f64());
    }
    if let Some(dir) = &args.data {
        for f in [
            "luxembourg_osm.edges",
            "delaunay_n16.edges",
            "facebook_combined.edges",
        ] {
            let p = dir.join(f);
            graphs.push((
                f.to_string(),
                atos_graph::load(&p.to_string_lossy()).unwrap_or_else(|e| panic!("{e}")),
            ));
        }
    }
    // Thread workers last: the slowest configurations, and a timeout ends the table.
    let strategies: Vec<Strategy> = if args.strategies.is_empty() {
        Strategy::ALL.to_vec()
    } else {
        args.strategies
            .iter()
            .map(|s| Strategy::parse(s).unwrap_or_else(|| panic!("unknown strategy {s}")))
            .collect()
    };
    let mut configs = Vec::new();
    let mut rows = vec![
        (WorkerKind::Warp, 1u32, true),
        (WorkerKind::Warp, 32, true),
        (WorkerKind::Cta, 8, true),
        (WorkerKind::Cta, 64, true),
        (WorkerKind::Cta, 64, false),
        (WorkerKind::Cta, 256, true),
        (WorkerKind::Thread, 1, true),
    ];
    let mut nokeep = vec![(WorkerKind::Cta, 64u32)];
    for r in &args.rows {
        let (w, f) = r.split_once('/').expect("rows are worker/fetch");
        let row = (
            WorkerKind::parse(w).expect("a worker kind"),
            f.parse().expect("a fetch size"),
        );
        rows.push((row.0, row.1, true));
        nokeep.push(row);
    }
    for strategy in &strategies {
        for &(w, fetch, balance) in &rows {
            configs.push(Config {
                strategy: *strategy,
                balance,
                block: args.block,
                grid: args.blocks,
                ..Config::new(w, fetch)
            });
        }
        if *strategy == Strategy::Persistent {
            for &(w, fetch) in &nokeep {
                configs.push(Config {
                    keep: false,
                    block: args.block,
                    grid: args.blocks,
                    ..Config::new(w, fetch)
                });
            }
            // Shared ranges off beside the default on (docs/runtime.md "Shared ranges"):
            // both verified, timed side by side.
            configs.push(Config {
                share: false,
                block: args.block,
                grid: args.blocks,
                ..Config::new(WorkerKind::Cta, 64)
            });
        }
    }
    if args.state_only {
        failures +=
            device_state_reuse(&gpu) + next_ring_on_demand(&gpu) + grid_beyond_resident(&gpu);
        println!("\nSUMMARY: {} failures", failures);
        std::process::exit(if failures == 0 { 0 } else { 1 });
    }
    if args.priority_only {
        failures += priority_overflow(&gpu, &args.priority_cases);
        println!("\nSUMMARY: {} failures", failures);
        std::process::exit(if failures == 0 { 0 } else { 1 });
    }
    if let Some(runs) = args.coloring_only {
        failures += coloring_split(&gpu)
            + coloring_hub_windows(&gpu)
            + coloring_thread(&gpu, runs)
            + store_buffering(&gpu);
        println!("\nSUMMARY: {} failures", failures);
        std::process::exit(if failures == 0 { 0 } else { 1 });
    }
    if args.stress_only {
        failures += program_stress(&gpu, &args);
        println!("\nSUMMARY: {} failures", failures);
        std::process::exit(if failures == 0 { 0 } else { 1 });
    }
    if args.dsl_only {
        failures += device_twins(&gpu)
            + tuple_items(&gpu)
            + balanced_reductions(&gpu)
            + faults(&gpu, &graphs);
        println!("\nSUMMARY: {} failures", failures);
        std::process::exit(if failures == 0 { 0 } else { 1 });
    }
    if !args.bfs_only {
        failures += coloring_split(&gpu) + coloring_hub_windows(&gpu);
        failures += coloring_thread(&gpu, 10);
        failures += store_buffering(&gpu);
        failures += device_twins(&gpu);
        failures += tuple_items(&gpu) + balanced_reductions(&gpu);
        failures += faults(&gpu, &graphs);
        failures += program_model(&gpu, &args);
        failures += features_and_stress(&gpu, &args, &graphs, &configs, &mut programs);
    }
    // Last: a configuration slow enough to hit the timeout leaves the context unusable.
    if !args.no_bfs_table {
        failures += bfs_table(&gpu, &args, &graphs, &configs, &mut programs);
    }
    println!("\nSUMMARY: {} failures", failures);
    std::process::exit(if failures == 0 { 0 } else { 1 });
}

fn features_and_stress(
    gpu: &Gpu,
    args: &Args,
    graphs: &[(String, Csr)],
    configs: &[Config],
    programs: &mut Programs,
) -> usize {
    let mut failures = 0;

    // ---- 2. every DSL feature: GPU == CPU executor ----
    println!(
        "\n== feature task (device fns, scalars, i64/f32 atomics, lanes, loops): GPU vs CPU =="
    );
    let cpu_result = features_run(None);
    for w in [WorkerKind::Thread, WorkerKind::Warp, WorkerKind::Cta] {
        let p = Program::new(gpu, features::features::Task)
            .worker(w)
            .build_timed(10);
        let gpu_result = features_run(Some(&p));
        let differ: Vec<String> = cpu_result
            .iter()
            .zip(&gpu_result)
            .filter(|(c, g)| c != g)
            .map(|((name, c), (_, g))| {
                let n = c.iter().zip(g).filter(|(a, b)| a != b).count();
                format!("{name} ({n} elements)")
            })
            .collect();
        let same = differ.is_empty();
        println!(
            "  {}: {}",
            w.name(),
            if same {
                format!(
                    "all {} arrays identical to the CPU executor",
                    cpu_result.len()
                )
            } else {
                format!("DIFFERENT: {}", differ.join(", "))
            }
        );
        if !same {
            failures += 1;
        }
    }

    // ---- 3. termination stress ----
    println!(
        "\n== termination stress: {} runs, 10 s timeout each ==",
        args.stress
    );
    let small: Vec<(String, Csr)> = [
        "grid:64x64",
        "grid:300x7",
        "grid:1x3000",
        "kron:10,seed=3",
        "kron:12,seed=5",
        "grid:2x2",
        "grid:1x1",
    ]
    .iter()
    .map(|s| (s.to_string(), atos_graph::load(s).unwrap()))
    .chain(
        graphs
            .iter()
            .filter(|(n, _)| n.starts_with("facebook"))
            .cloned(),
    )
    .collect();
    let mut rng = SplitMix64(2026);
    let mut tally = Tally::default();
    let t0 = Instant::now();
    for i in 0..args.stress {
        let (name, g) = &small[i % small.len()];
        let w =
            [WorkerKind::Thread, WorkerKind::Warp, WorkerKind::Cta][(rng.next_u64() % 3) as usize];
        let fetch = [1, 7, 64][(rng.next_u64() % 3) as usize];
        let block = [64, 256, 1024][(rng.next_u64() % 3) as usize];
        let grid = [Some(1), Some(3), None][(rng.next_u64() % 3) as usize];
        let source = (rng.next_u64() % g.num_vertices() as u64) as u32;
        let mode = [QueueMode::Ring, QueueMode::Linear][(rng.next_u64() % 2) as usize];
        let strategy = Strategy::ALL[(rng.next_u64() % 3) as usize];
        let balance = !rng.next_u64().is_multiple_of(4);
        let keep = !rng.next_u64().is_multiple_of(3);
        let share = !rng.next_u64().is_multiple_of(3);
        let c = Config {
            w,
            fetch,
            block,
            grid,
            strategy,
            balance,
            keep,
            share,
        };
        let p = program(gpu, programs, c, Duration::from_secs(10));
        let reference = atos_graph::reference::bfs::bfs_depths(g, source);
        let cap = bfs::default_queue_capacity(g.num_vertices(), g.num_edges());
        let offsets = g.offsets_u32().unwrap();
        let exec = Executor::Gpu(p);
        let run = |cap| bfs::run(&exec, &offsets, &g.cols, source, cap, mode);
        // A linear queue holds every push of the run, and speculation on a few workers can push
        // more than the default covers; so can a ring hold more at once than the default
        // (one CTA with fetch 1 and kept pushes goes depth first: grid:64x64 once had 22,700
        // items alive against 16,129, docs/results/2026-11-24c-h100-suite.md). The contract is
        // an overflow error naming what is needed, and a run with that capacity succeeding.
        // The overflow names what was alive when it stopped, a lower bound: up to 4 re-runs,
        // each with twice what the last one named.
        let mut outcome = run(cap);
        for _ in 0..4 {
            let Err(RunError::QueueOverflow { needed, .. }) = outcome else {
                break;
            };
            println!(
                "  {} overflow (needed {needed}+): re-run with {}",
                mode.name(),
                needed * 2
            );
            outcome = run(needed * 2);
        }
        let outcome = outcome.map(|r| r.depths == reference);
        tally.record(outcome, &format!("{name} {c:?}/{mode:?} source {source}"));
    }
    println!(
        "stress: {} correct, {} wrong, 0 hangs, {} errors, {} configurations compiled, {:.1} s",
        tally.ok,
        tally.wrong,
        tally.errors,
        programs.len(),
        t0.elapsed().as_secs_f64()
    );
    failures += tally.failures();

    // ---- 4. overflow ----
    println!("\n== queue overflow ==");
    // A Kronecker graph: its hubs push thousands of tasks at once, more than a CTA keeps.
    let g = atos_graph::load("kron:14,seed=3").unwrap();
    let offsets = g.offsets_u32().unwrap();
    for (&c, mode) in configs
        .iter()
        .flat_map(|c| [QueueMode::Ring, QueueMode::Linear].map(|m| (c, m)))
    {
        let p = program(gpu, programs, c, Duration::from_secs(10));
        match bfs::run(&Executor::Gpu(p), &offsets, &g.cols, 0, 100, mode) {
            Err(RunError::QueueOverflow {
                capacity, needed, ..
            }) if capacity == 100 && needed > 100 => {
                let after = bfs::run(
                    &Executor::Gpu(p),
                    &offsets,
                    &g.cols,
                    0,
                    bfs::default_queue_capacity(g.num_vertices(), g.num_edges()),
                    mode,
                );
                let healthy = after
                    .map(|r| r.depths == atos_graph::reference::bfs::bfs_depths(&g, 0))
                    .unwrap_or(false);
                println!(
                    "  {} {}: overflow reported (capacity 100, needed >= {needed}); next run correct: {healthy}",
                    c.label(),
                    mode.name()
                );
                if !healthy {
                    failures += 1;
                }
            }
            other => {
                failures += 1;
                println!(
                    "  {} {}: expected an overflow error, got {:?}",
                    c.label(),
                    mode.name(),
                    other.map(|r| r.stats.to_string())
                );
            }
        }
    }
    failures
}

/// BFS depths vs the CPU reference for every worker configuration and queue mode, timed.
fn bfs_table(
    gpu: &Gpu,
    args: &Args,
    graphs: &[(String, Csr)],
    configs: &[Config],
    programs: &mut Programs,
) -> usize {
    let mut failures = 0;
    println!(
        "\n== BFS: depths vs CPU reference, median of {} runs after 1 warm-up (CUDA events) ==",
        args.runs
    );
    println!(
        "{:<24} {:<30} {:>10} {:>9} {:>8} {:>8} {:>8}  result",
        "graph", "config", "median ms", "MTEPS", "ratio", "spread", "launches"
    );
    for (name, g) in graphs {
        let reference = atos_graph::reference::bfs::bfs_depths(g, 0);
        let offsets = g.offsets_u32().unwrap();
        let cap = bfs::default_queue_capacity(g.num_vertices(), g.num_edges());
        for (&c, mode) in configs
            .iter()
            .flat_map(|c| [QueueMode::Linear, QueueMode::Ring].map(|m| (c, m)))
        {
            if !args.only.is_empty() && !args.only.iter().any(|o| c.label().starts_with(o.as_str()))
            {
                continue;
            }
            let p = program(gpu, programs, c, Duration::from_secs(60));
            let exec = Executor::Gpu(p);
            let mut times = Vec::new();
            let mut ratio = 0.0;
            let mut launches = 0;
            let mut verdict = "ok".to_string();
            for i in 0..=args.runs {
                match bfs::run(&exec, &offsets, &g.cols, 0, cap, mode) {
                    Ok(r) => {
                        if r.depths != reference {
                            let bad = r.mismatches(&reference);
                            verdict = format!("WRONG ({bad} depths)");
                        }
                        if i > 0 {
                            times.push(r.stats.time.as_secs_f64() * 1e3);
                        }
                        ratio = r.workload_ratio();
                        launches = r.stats.launches;
                    }
                    Err(e) => {
                        let timeout = matches!(e, RunError::Gpu(atos::GpuError::Timeout { .. }));
                        verdict = format!("ERROR {e}");
                        if timeout {
                            println!("{name} {} {}: {verdict}", c.label(), mode.name());
                            hang_exit();
                        }
                        break;
                    }
                }
            }
            if verdict != "ok" {
                failures += 1;
            }
            times.sort_by(f64::total_cmp);
            let med = times.get(times.len() / 2).copied().unwrap_or(f64::NAN);
            let spread = times
                .last()
                .zip(times.first())
                .map(|(a, b)| a / b)
                .unwrap_or(f64::NAN);
            println!(
                "{:<24} {:<30} {:>10.3} {:>9.1} {:>8.3} {:>8.2} {:>8}  {verdict}",
                name,
                format!("{} {}", c.label(), mode.name()),
                med,
                g.num_edges() as f64 / (med / 1e3) / 1e6,
                ratio,
                spread,
                launches
            );
        }
    }

    failures
}

/// Builds `P` with every task on `worker` (None: the tasks' own attributes).
fn build<P: atos::TaskSet>(
    gpu: &Gpu,
    tasks: P,
    worker: Option<WorkerKind>,
    block: u32,
    grid: Option<u32>,
    strategy: Strategy,
) -> Program<P> {
    // Windowed strategies launch once per window: a long dependency chain takes many.
    let limit = RUN_TIMEOUT
        .get()
        .copied()
        .flatten()
        .unwrap_or(if strategy.windowed() { 60 } else { 10 });
    let mut b = Program::new(gpu, tasks)
        .block_size(block)
        .strategy(strategy)
        .timeout(Duration::from_secs(limit));
    if let Some(w) = worker {
        b = b.worker(w).fetch(4);
    }
    if let Some(g) = grid {
        b = b.grid(g);
    }
    let p = b.build().unwrap_or_else(|e| panic!("build: {e}"));
    assert!(p.compile_log().is_empty(), "NVRTC: {}", p.compile_log());
    p
}

/// The four test programs compiled for one configuration.
struct GpuPrograms {
    near_far: Program<(programs::relax::Task, programs::promote::Task)>,
    coloring: Program<(programs::color::Task, programs::check::Task)>,
    residual: Program<(programs::spread::Task, programs::rescan::Task)>,
    chain: Program<programs::chain::Task>,
}

impl GpuPrograms {
    fn build(
        gpu: &Gpu,
        worker: Option<WorkerKind>,
        block: u32,
        grid: Option<u32>,
        strategy: Strategy,
    ) -> Self {
        use programs::*;
        GpuPrograms {
            near_far: build(
                gpu,
                (relax::Task, promote::Task),
                worker,
                block,
                grid,
                strategy,
            ),
            coloring: build(
                gpu,
                (color::Task, check::Task),
                worker,
                block,
                grid,
                strategy,
            ),
            residual: build(
                gpu,
                (spread::Task, rescan::Task),
                worker,
                block,
                grid,
                strategy,
            ),
            chain: build(gpu, chain::Task, worker, block, grid, strategy),
        }
    }
}

impl programs::Runner for GpuPrograms {
    fn near_far(&self, s: &programs::NearFar) -> Result<atos::Stats, RunError> {
        self.near_far
            .run_seeds(s, &atos::Seeds::new().add(programs::relax::Task, &[0]))
    }
    fn coloring(&self, s: &programs::Coloring, seeds: &[u32]) -> Result<atos::Stats, RunError> {
        self.coloring.run(s, seeds)
    }
    fn residual(&self, s: &programs::Residual, seeds: &[u32]) -> Result<atos::Stats, RunError> {
        self.residual.run(s, seeds)
    }
    fn chain(&self, s: &programs::Chain, seeds: &[u32]) -> Result<atos::Stats, RunError> {
        self.chain.run(s, seeds)
    }
}

/// The program checks' worker choices: the tasks' own attributes (`None`), then each kind for
/// every task.
const PROGRAM_WORKERS: [Option<WorkerKind>; 4] = [
    None,
    Some(WorkerKind::Thread),
    Some(WorkerKind::Warp),
    Some(WorkerKind::Cta),
];

/// A program check's worker choice as printed.
fn wname(w: Option<WorkerKind>) -> &'static str {
    w.map(|w| w.name()).unwrap_or("own")
}

/// The program-model checks: lanes-then-read, two queues, two task kinds, the idle hook, ring
/// queues, overflow, and a termination stress over all of them (`program_stress`). Returns the
/// failures.
fn program_model(gpu: &Gpu, args: &Args) -> usize {
    use programs::*;
    let mut failures = 0;

    println!(
        "\n== lanes then read: {} tasks per worker kind, a flag set by the last lane ==",
        args.flag_tasks
    );
    // Fetch 1 runs the task item by item (the loop's barrier, then the leader's read), but for
    // `flag_reduced` on persistent CTAs, balanced so that it may be shared; warps and CTAs
    // fetching 4 run it balanced (the loop's barrier, then each item's tail on its own
    // thread).
    for (w, fetch) in [
        (WorkerKind::Thread, 4),
        (WorkerKind::Warp, 1),
        (WorkerKind::Warp, 4),
        (WorkerKind::Cta, 1),
        (WorkerKind::Cta, 4),
    ] {
        let p = Program::new(gpu, flag::Task)
            .worker(w)
            .fetch(fetch)
            .build_timed(10);
        let misses = flag_run(args.flag_tasks, |s, seeds| p.run(s, seeds));
        // With a reduction in the loop (a CTA's reduction ends with the barrier instead).
        let r = Program::new(gpu, flag_reduced::Task)
            .worker(w)
            .fetch(fetch)
            .build_timed(10);
        let reduced = flag_run(args.flag_tasks, |s, seeds| r.run(s, seeds));
        println!(
            "  {}/{fetch}: {misses} misses of {}; with a reduction: {reduced}",
            w.name(),
            args.flag_tasks
        );
        if misses != 0 || reduced != 0 {
            failures += 1;
        }
    }
    // The same check with the barrier cut out of the generated CUDA must see misses on CTA
    // workers: the check can fail.
    let unguarded = Program::new(gpu, flag::Task)
        .worker(WorkerKind::Cta)
        .patch_source(|src| src.replace("worker.lanes_end();", ""))
        .build_timed(10);
    let misses = flag_run(args.flag_tasks, |s, seeds| unguarded.run(s, seeds));
    println!(
        "  cta without the barrier (generated CUDA patched): {misses} misses of {} ({:.2}%){}",
        args.flag_tasks,
        100.0 * f64::from(misses) / f64::from(args.flag_tasks),
        if misses == 0 {
            ": NEGATIVE CONTROL FAILED, the check saw no race to catch"
        } else {
            ""
        }
    );
    if misses == 0 {
        failures += 1;
    }

    failures += device_state_reuse(gpu);
    failures += next_ring_on_demand(gpu);
    failures += grid_beyond_resident(gpu);
    failures += priority_overflow(gpu, &[]);

    println!(
        "\n== programs: GPU vs CPU reference, every worker kind (own = the tasks' attributes) =="
    );
    let weighted = atos_graph::load("kron:14,w=60,seed=5").unwrap();
    let grid_w = atos_graph::load("grid:200x200,w=20").unwrap();
    let kron = atos_graph::load("kron:14,seed=2").unwrap();
    for (w, strategy) in PROGRAM_WORKERS
        .into_iter()
        .flat_map(|w| Strategy::ALL.map(|s| (w, s)))
    {
        let ps = GpuPrograms::build(gpu, w, 256, None, strategy);
        let mut line = format!("  {:<6} {:<10}", wname(w), strategy.name());
        let mut note = |ok: bool, text: String| {
            failures += usize::from(!ok);
            line += &format!(" | {}{text}", if ok { "" } else { "WRONG " });
        };
        for g in [&weighted, &grid_w] {
            match near_far_run(g, 10, |s| programs::Runner::near_far(&ps, s)) {
                Ok((d, st)) => note(
                    d == dijkstra_u32(g),
                    format!(
                        "near/far (far {})",
                        st.queue("far").map(|q| q.popped).unwrap_or(0)
                    ),
                ),
                Err(e) => note(false, format!("near/far {e}")),
            }
        }
        match coloring_run(&kron, |s, all| ps.coloring.run(s, all)) {
            Ok((c, st)) => match atos_graph::reference::coloring::validate_coloring(&kron, &c) {
                Ok(k) => note(
                    true,
                    format!(
                        "colouring ({k} colours, {} recolours)",
                        st.queue("recolor").unwrap().popped - kron.num_vertices() as u64
                    ),
                ),
                Err(e) => note(false, format!("colouring {e}")),
            },
            Err(e) => note(false, format!("colouring {e}")),
        }
        let n = kron.num_vertices();
        let mut seeded = vec![0u64; n];
        seeded[0] = 1 << 36;
        let spread_out: Vec<u64> = (0..n as u64).map(|i| (i * 7919) % 1000).collect();
        for (init, seeds) in [(&seeded, vec![0u32]), (&spread_out, vec![])] {
            match residual_run(&kron, init, 64, &seeds, |s, sd| ps.residual.run(s, sd)) {
                Ok((m, r, st)) => note(
                    residual_check(init, &m, &r, 64).is_ok(),
                    format!(
                        "idle hook, {} ({} tasks, {} sweeps, {} launches, {:.1} ms)",
                        if seeds.is_empty() {
                            "seedless"
                        } else {
                            "seeded"
                        },
                        st.popped,
                        st.idle_sweeps + 1,
                        st.launches,
                        st.wall.unwrap_or_default().as_secs_f64() * 1e3
                    ),
                ),
                Err(e) => note(false, format!("idle hook {e}")),
            }
        }
        match chain_run(256, 50, 1, 256, |s, seeds| ps.chain.run(s, seeds)) {
            Ok((steps, st)) => note(
                steps.iter().all(|&k| k == 50),
                format!(
                    "ring: {} pushes through capacity 256 (peak {})",
                    st.pushed + st.seeded,
                    st.queue_peak
                ),
            ),
            Err(e) => note(false, format!("ring {e}")),
        }
        match chain_run(256, 50, 2, 256, |s, seeds| ps.chain.run(s, seeds)) {
            Err(RunError::QueueOverflow { needed, .. }) if needed > 256 => {
                note(true, format!("overflow (needed {needed})"))
            }
            other => note(
                false,
                format!("no overflow: {:?}", other.map(|r| r.1.to_string())),
            ),
        }
        println!("{line}");
    }

    failures + program_stress(gpu, args)
}

/// The program termination stress: `--program-stress` random runs of the multi-task programs
/// (near/far, colouring, idle hook, ring chains) over workers, blocks, grids, strategies and
/// seeds, each checked against its reference. Returns the failures.
fn program_stress(gpu: &Gpu, args: &Args) -> usize {
    use programs::*;
    println!(
        "\n== program termination stress: {} runs, random programs x workers x blocks x grids x seeds, 10 s timeout each ==",
        args.program_stress
    );
    let graphs: Vec<Csr> = [
        "kron:9,seed=4,w=9",
        "grid:24x24,w=5",
        "geo:600,w=4,seed=3",
        "kron:11,seed=8,w=30",
    ]
    .iter()
    .map(|s| atos_graph::load(s).unwrap())
    .collect();
    let refs: Vec<Vec<u32>> = graphs.iter().map(dijkstra_u32).collect();
    let mut rng = SplitMix64(808);
    let mut tally = Tally::default();
    let mut by_case = [0usize; 4];
    let t0 = Instant::now();
    let mut compiled: HashMap<(Option<WorkerKind>, u32, Option<u32>, Strategy), GpuPrograms> =
        HashMap::new();
    for i in 0..args.program_stress {
        let gi = i % graphs.len();
        let which = rng.next_u64() % 4;
        let w = PROGRAM_WORKERS[(rng.next_u64() % 4) as usize];
        let block = [64, 256][(rng.next_u64() % 2) as usize];
        let grid = [Some(2), None][(rng.next_u64() % 2) as usize];
        let strategy = Strategy::ALL[(rng.next_u64() % 3) as usize];
        let seed = rng.next_u64();
        let ps = compiled
            .entry((w, block, grid, strategy))
            .or_insert_with(|| GpuPrograms::build(gpu, w, block, grid, strategy));
        by_case[which as usize] += 1;
        let what = format!(
            "{} on graph {gi}, worker {}, block {block}, grid {grid:?}, {}, seed {seed}",
            CASES[which as usize],
            wname(w),
            strategy.name()
        );
        tally.record(stress_case(ps, which, &graphs[gi], &refs[gi], seed), &what);
    }
    println!(
        "program stress: {} correct, {} wrong, 0 hangs, {} errors ({}), {} configurations compiled, {:.1} s",
        tally.ok,
        tally.wrong,
        tally.errors,
        CASES
            .iter()
            .zip(by_case)
            .map(|(c, n)| format!("{c} {n}"))
            .collect::<Vec<_>>()
            .join(", "),
        compiled.len() * 4,
        t0.elapsed().as_secs_f64()
    );
    tally.failures()
}

/// Priority queues that overflow inside a band-by-band program: BFS by depth on a 300x300 grid
/// with rings of 8 waiting vertices, every worker kind and strategy (persistent CTA groups park
/// a batch of their next-band pushes outside the ring: on a 40x40 grid every band fit in the
/// parks and nothing overflowed). The run must stop with an
/// overflow naming the ring that fills (the next ring where bands run from it, persistent; the
/// far ring where every band waits there, windowed), as the CPU executor's test in
/// tests/priority.rs asserts; the same program with room must then give the CPU reference's
/// depths. Then SSSP by distance with slack (bands overlap) on a weighted Kronecker graph: an
/// overflow in one of the queue's rings, then a correct run. `cases` (`worker/strategy`, empty:
/// all) picks configurations. Each step is printed before it runs; a hang (the run's timeout,
/// whose error gives the counters) ends the suite. Returns the failures.
fn priority_overflow(gpu: &Gpu, cases: &[String]) -> usize {
    use atos::apps::{bfs_priority, sssp};
    use std::io::Write;
    println!("\n== priority queues: overflow inside a band-by-band program ==");
    let mut failures = 0;
    let grid = atos_graph::load("grid:40x40").unwrap();
    let grid_offsets = grid.offsets_u32().unwrap();
    let grid_depths = atos_graph::reference::bfs::bfs_depths(&grid, 0);
    let wide = atos_graph::load("grid:300x300").unwrap();
    let wide_offsets = wide.offsets_u32().unwrap();
    let kron = atos_graph::load("kron:14,w=60,seed=5").unwrap();
    let kron_offsets = kron.offsets_u32().unwrap();
    let Some(atos_graph::Weights::U32(weights)) = &kron.weights else {
        panic!("kron:14,w=60 has u32 weights")
    };
    let kron_dist = programs::dijkstra_u32(&kron);
    let room = bfs::default_queue_capacity(kron.num_vertices(), kron.num_edges());
    let mut step = |what: &str, ok: bool, text: String| {
        failures += usize::from(!ok);
        println!("    {what}: {}{text}", if ok { "" } else { "WRONG " });
    };
    let announce = |what: &str| {
        print!("    {what} ...\r");
        let _ = std::io::stdout().flush();
    };
    for strategy in Strategy::ALL {
        for w in [WorkerKind::Thread, WorkerKind::Warp, WorkerKind::Cta] {
            let label = format!("{}/{}", w.name(), strategy.name());
            if !cases.is_empty() && !cases.contains(&label) {
                continue;
            }
            println!("  {label}");
            let p = build(gpu, bfs_priority::visit::Task, Some(w), 256, None, strategy);
            let ring = if strategy.windowed() {
                "work.far"
            } else {
                "work.next"
            };
            announce("bfs, rings of 8");
            let depth = bfs::initial_depths(wide.num_vertices(), 0);
            let small = bfs_priority::state(&wide_offsets, &wide.cols, &depth, 8, 1);
            match stop_on_hang(p.run(&small, &[0])) {
                Err(RunError::QueueOverflow { queue, needed, .. }) if queue == ring => step(
                    "bfs, rings of 8",
                    true,
                    format!("{queue} overflow (needed {needed}+)"),
                ),
                other => step(
                    "bfs, rings of 8",
                    false,
                    format!(
                        "expected an overflow of {ring}, got {}",
                        outcome(other.map(|s| s.to_string()))
                    ),
                ),
            }
            announce("bfs, room");
            let depth = bfs::initial_depths(grid.num_vertices(), 0);
            let roomy = bfs_priority::state(&grid_offsets, &grid.cols, &depth, 4096, 1);
            match stop_on_hang(p.run(&roomy, &[0])) {
                Ok(st) => step(
                    "bfs, room",
                    depth.to_vec() == grid_depths,
                    format!("{} advances, depths checked", st.priority[0].advances),
                ),
                Err(e) => step("bfs, room", false, e.to_string()),
            }
            let p = build(gpu, sssp::relax::Task, Some(w), 256, None, strategy);
            let order = sssp::Order::Priority {
                delta: sssp::band_delta(&kron_offsets, weights),
                slack: sssp::DEFAULT_SLACK,
            };
            for (capacity, expect_overflow) in [(16, true), (room, false)] {
                let what = format!("sssp, rings of {capacity}");
                announce(&what);
                let a = sssp::SsspArrays::<u32>::new(kron.num_vertices(), 0);
                let state = a.state(&kron_offsets, &kron.cols, weights, capacity, order);
                let seeds = atos::Seeds::new().add(sssp::relax::Task, &a.seeds());
                match (stop_on_hang(p.run_seeds(&state, &seeds)), expect_overflow) {
                    (Err(RunError::QueueOverflow { queue, needed, .. }), true)
                        if queue.starts_with("work") =>
                    {
                        step(&what, true, format!("{queue} overflow (needed {needed}+)"))
                    }
                    (Ok(_), false) => step(
                        &what,
                        a.dist.to_vec() == kron_dist,
                        "distances checked".into(),
                    ),
                    (other, _) => step(&what, false, outcome(other.map(|s| s.to_string()))),
                }
            }
        }
    }
    failures
}

/// A run that timed out leaves the context unusable: its error (with the counters at the
/// timeout) is printed and the suite ends. Any other result is passed on.
fn stop_on_hang<T>(r: Result<T, RunError>) -> Result<T, RunError> {
    if let Err(e @ RunError::Gpu(atos::GpuError::Timeout { .. })) = &r {
        println!("    HUNG: {e}");
        hang_exit();
    }
    r
}

/// A run's result in a line: its stats or its error's message.
fn outcome(r: Result<String, RunError>) -> String {
    match r {
        Ok(stats) => format!("a finished run ({stats})"),
        Err(e) => e.to_string(),
    }
}

/// A state uploaded once and run many times: BFS from several sources on one upload (new
/// initial depths through `reload_atomics`, each run reset on the device), and a device state
/// uploaded by a program without the idle hook, run twice by the program with it (the hook's
/// range comes from the running program). Returns the failures.
fn device_state_reuse(gpu: &Gpu) -> usize {
    use programs::*;
    println!("\n== device state reuse: one upload, many runs ==");
    let mut failures = 0;
    let g = atos_graph::load("kron:14,seed=9").unwrap();
    let offsets = g.offsets_u32().unwrap();
    let n = g.num_vertices();
    let depth = bfs::initial_depths(n, 0);
    let cap = bfs::default_queue_capacity(n, g.num_edges());
    let state = bfs::state(&offsets, &g.cols, &depth, cap, QueueMode::Ring);
    let p = Program::new(gpu, bfs_task::Task)
        .worker(WorkerKind::Cta)
        .fetch(64)
        .build_timed(10);
    let mut dev = p.upload(&state).unwrap();
    let mut line = String::from("  bfs sources");
    for source in [0u32, 5, 77, 5] {
        depth.fill(bfs::UNREACHED);
        depth.view().store(source, 0);
        let ok = dev
            .reload_atomics()
            .and_then(|_| p.run_on(&mut dev, &[source]))
            .and_then(|_| dev.read_back())
            .map(|_| depth.to_vec() == atos_graph::reference::bfs::bfs_depths(&g, source));
        match ok {
            Ok(true) => line += &format!(" {source}: ok"),
            other => {
                failures += 1;
                line += &format!(" {source}: WRONG {:?}", other.err().map(|e| e.to_string()));
            }
        }
    }
    println!("{line}");
    let no_hook = build(gpu, spread::Task, None, 256, None, Strategy::Persistent);
    for strategy in [Strategy::Persistent, Strategy::Bsp] {
        let with_hook = build(gpu, (spread::Task, rescan::Task), None, 256, None, strategy);
        let init: Vec<u64> = (0..n as u64).map(|i| (i * 7919) % 1000).collect();
        let mut sweeps = Vec::new();
        let result = residual_run(&g, &init, 64, &[], |s, seeds| {
            let mut dev = no_hook.upload(s)?;
            let first = with_hook.run_on(&mut dev, seeds)?;
            sweeps.push(first.idle_sweeps + 1);
            let second = with_hook.run_on(&mut dev, seeds)?;
            sweeps.push(second.idle_sweeps + 1);
            dev.read_back()?;
            Ok(second)
        });
        let verdict = match &result {
            Ok((m, r, st)) => match residual_check(&init, m, r, 64) {
                Ok(()) if st.popped > 0 => "ok".to_string(),
                Ok(()) => "WRONG: the hook never ran".to_string(),
                Err(e) => format!("WRONG: {e}"),
            },
            Err(e) => format!("ERROR: {e}"),
        };
        if verdict != "ok" {
            failures += 1;
        }
        println!(
            "  idle hook on a state uploaded without one, {}, run twice (sweeps {sweeps:?}): {verdict}",
            strategy.name()
        );
    }
    failures
}

/// A priority state uploaded by a windowed program holds its next ring at the smallest ring
/// (only persistent runs use it); the first persistent run on it allocates the ring, and after
/// that the state holds what a persistent program's upload holds. Every run is checked
/// against Dijkstra, and the state's device bytes at each step. Returns the failures.
fn next_ring_on_demand(gpu: &Gpu) -> usize {
    use atos::apps::sssp;
    println!("\n== next ring on demand: a state uploaded by a discrete program, run persistent ==");
    let g = atos_graph::load("kron:12,w=60,seed=3").unwrap();
    let offsets = g.offsets_u32().unwrap();
    let Some(atos_graph::Weights::U32(weights)) = &g.weights else {
        panic!("kron:12,w=60 has u32 weights")
    };
    let want = programs::dijkstra_u32(&g);
    let order = sssp::Order::Priority {
        delta: sssp::band_delta(&offsets, weights),
        slack: sssp::DEFAULT_SLACK,
    };
    let cap = bfs::default_queue_capacity(g.num_vertices(), g.num_edges());
    let a = sssp::SsspArrays::<u32>::new(g.num_vertices(), 0);
    let state = a.state(&offsets, &g.cols, weights, cap, order);
    let seeds = atos::Seeds::new().add(sssp::relax::Task, &a.seeds());
    let w = Some(WorkerKind::Cta);
    let discrete = build(gpu, sssp::relax::Task, w, 256, None, Strategy::Discrete);
    let persistent = build(gpu, sssp::relax::Task, w, 256, None, Strategy::Persistent);
    let full = persistent.upload(&state).unwrap().device_bytes();
    let mut dev = discrete.upload(&state).unwrap();
    let small = dev.device_bytes();
    let mut failures = usize::from(small >= full);
    println!(
        "  device bytes: {small} uploaded by the discrete program, {full} by the persistent one{}",
        if small < full {
            ""
        } else {
            ": WRONG, the next ring was not left small"
        }
    );
    let steps: [(&str, &Program<sssp::relax::Task>, u64); 3] = [
        ("discrete", &discrete, small),
        ("persistent", &persistent, full),
        ("discrete again", &discrete, full),
    ];
    for (what, p, bytes) in steps {
        a.dist.fill(sssp::UNREACHED);
        let run = p.run_seeds_on(&mut dev, &seeds).and_then(|st| {
            dev.read_back()?;
            Ok(st)
        });
        let verdict = match stop_on_hang(run) {
            Ok(_) if a.dist.to_vec() != want => "WRONG distances".to_string(),
            Ok(_) if dev.device_bytes() != bytes => {
                format!("WRONG device bytes {} (want {bytes})", dev.device_bytes())
            }
            Ok(st) => format!(
                "ok ({} advances, {} device bytes)",
                st.priority[0].advances, bytes
            ),
            Err(e) => format!("ERROR {e}"),
        };
        failures += usize::from(!verdict.starts_with("ok"));
        println!("  {what}: {verdict}");
    }
    failures
}

/// Persistent runs with a grid four times what fits on the GPU at once: the blocks that start
/// only after others exit must find the run over (or still running) and leave, with every
/// result right. BFS, an idle-hook program, and priority SSSP (advances). Returns the failures.
fn grid_beyond_resident(gpu: &Gpu) -> usize {
    use atos::apps::sssp;
    use programs::*;
    println!("\n== persistent grid beyond the resident blocks ==");
    let mut failures = 0;
    let mut report = |what: String, verdict: Result<bool, RunError>| {
        let text = match stop_on_hang(verdict) {
            Ok(true) => "ok".to_string(),
            Ok(false) => "WRONG".to_string(),
            Err(e) => format!("ERROR {e}"),
        };
        failures += usize::from(text != "ok");
        println!("  {what}: {text}");
    };
    let g = atos_graph::load("kron:14,w=60,seed=5").unwrap();
    let offsets = g.offsets_u32().unwrap();
    let n = g.num_vertices();
    let cap = bfs::default_queue_capacity(n, g.num_edges());
    for w in [WorkerKind::Warp, WorkerKind::Cta] {
        let fits = build(
            gpu,
            bfs_task::Task,
            Some(w),
            256,
            None,
            Strategy::Persistent,
        )
        .grid();
        let grid = Some(4 * fits);
        let bfs_p = build(
            gpu,
            bfs_task::Task,
            Some(w),
            256,
            grid,
            Strategy::Persistent,
        );
        let depth = bfs::initial_depths(n, 0);
        let state = bfs::state(&offsets, &g.cols, &depth, cap, QueueMode::Ring);
        let r = bfs_p
            .run(&state, &[0])
            .map(|_| depth.to_vec() == atos_graph::reference::bfs::bfs_depths(&g, 0));
        report(
            format!("bfs {}, grid {} ({fits} fit)", w.name(), bfs_p.grid()),
            r,
        );

        let hook = build(
            gpu,
            (spread::Task, rescan::Task),
            Some(w),
            256,
            grid,
            Strategy::Persistent,
        );
        let init: Vec<u64> = (0..n as u64).map(|i| (i * 7919) % 1000).collect();
        let r = residual_run(&g, &init, 64, &[], |s, seeds| hook.run(s, seeds))
            .map(|(m, r, st)| residual_check(&init, &m, &r, 64).is_ok() && st.popped > 0);
        report(format!("idle hook {}, grid {}", w.name(), hook.grid()), r);

        let Some(atos_graph::Weights::U32(weights)) = &g.weights else {
            panic!("kron:14,w=60 has u32 weights")
        };
        let sssp_p = build(
            gpu,
            sssp::relax::Task,
            Some(w),
            256,
            grid,
            Strategy::Persistent,
        );
        let order = sssp::Order::Priority {
            delta: sssp::band_delta(&offsets, weights),
            slack: sssp::DEFAULT_SLACK,
        };
        let a = sssp::SsspArrays::<u32>::new(n, 0);
        let state = a.state(&offsets, &g.cols, weights, cap, order);
        let seeds = atos::Seeds::new().add(sssp::relax::Task, &a.seeds());
        let r = sssp_p
            .run_seeds(&state, &seeds)
            .map(|_| a.dist.to_vec() == programs::dijkstra_u32(&g));
        report(
            format!("priority sssp {}, grid {}", w.name(), sssp_p.grid()),
            r,
        );
    }
    failures
}

/// Counts of a stress loop: each run is correct, wrong or an error; a timeout ends the suite.
#[derive(Default)]
struct Tally {
    ok: usize,
    wrong: usize,
    errors: usize,
}

impl Tally {
    /// Records one run's outcome (`Ok(true)`: the result was right), described by `what`.
    fn record(&mut self, outcome: Result<bool, RunError>, what: &str) {
        match outcome {
            Ok(true) => self.ok += 1,
            Ok(false) => {
                self.wrong += 1;
                println!("  WRONG: {what}");
            }
            Err(RunError::Gpu(atos::GpuError::Timeout { .. })) => {
                println!("  HANG: {what}");
                hang_exit();
            }
            Err(e) => {
                self.errors += 1;
                println!("  ERROR: {what}: {e}");
            }
        }
    }

    fn failures(&self) -> usize {
        self.wrong + self.errors
    }
}

/// A kernel that timed out leaves the GPU context unusable: nothing after it can run.
fn hang_exit() -> ! {
    println!("\nSUMMARY: a kernel hung; the context is unusable, stopping here");
    std::process::exit(2);
}
