//! `atos bench`: runs the cross product app x graph x strategy x worker x fetch x queue mode,
//! verifies every run against a CPU reference, and writes a table, JSON lines and SVG plots.
//! See `docs/bench.md`.

mod bfs;
mod coloring;
mod kcore;
mod original;
mod pagerank;
mod plots;
pub mod record;
mod runner;
mod scaling;
mod sssp;
mod text_table;
mod traffic;

use std::fs::{File, OpenOptions};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use atos::{Gpu, QueueMode, Strategy, WorkerKind};
use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use original::{OriginalBinary, Verdict};
use record::{GraphInfo, GraphSignature, Record, Status, median};

/// The test hook that makes every run look wrong (see `docs/bench.md`): after each run, before
/// verification, one depth is changed.
const CORRUPT_ENV: &str = "ATOS_BENCH_CORRUPT";

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// The app to run.
    #[arg(long, value_enum, default_value = "bfs")]
    app: App,
    /// A graph: a generator spec (grid:4096x4096, kron:22, er:N,deg=D, geo:N) or a file (.mtx,
    /// .gr, .acsr, .csr, anything else an edge list). Repeatable.
    #[arg(long = "graph", required = true, value_name = "SPEC|FILE")]
    graphs: Vec<String>,
    /// Strategies, comma-separated: persistent, discrete, bsp [default: persistent; bsp for
    /// pagerank-bsp].
    #[arg(long, value_delimiter = ',', value_parser = parse_strategy)]
    strategy: Vec<Strategy>,
    /// GPU worker kinds, comma-separated: thread, warp, cta [default: cta]. The CPU executor has
    /// no worker kinds (recorded as "cpu").
    #[arg(long, value_delimiter = ',', value_parser = parse_worker)]
    worker: Vec<WorkerKind>,
    /// Fetch sizes (items a worker takes at a time), comma-separated [default: 64].
    #[arg(long, value_delimiter = ',', value_parser = parse_fetch)]
    fetch: Vec<u32>,
    /// GPU threads per block (a multiple of 32, at most 1024).
    #[arg(long, default_value_t = 256, value_parser = parse_block)]
    block: u32,
    /// GPU blocks per SM the kernel's register budget must leave room for (the second
    /// `__launch_bounds__` argument; 0: none, ptxas's own budget) [default:
    /// `atos::codegen::MIN_BLOCKS`].
    #[arg(long, value_name = "N")]
    min_blocks: Option<u32>,
    /// Persistent GPU kernels: an idle group's first nap, in nanoseconds; it doubles while the
    /// group stays idle (`ProgramBuilder::idle_nap_ns`) [default: `atos::codegen::IDLE_NAP_NS`,
    /// 32].
    #[arg(long, value_name = "NS")]
    idle_nap: Option<u32>,
    /// Persistent GPU kernels: how many times the nap doubles, so the longest wait for a
    /// napping group to wake is `--idle-nap` << this (`ProgramBuilder::idle_nap_doublings`; at
    /// most 16) [default: 8, or 3 for a program with a priority queue].
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(..=atos::codegen::IDLE_NAP_MAX_DOUBLINGS as i64))]
    idle_nap_doublings: Option<u32>,
    /// GPU blocks per launch, comma-separated, one configuration each: a number, or `default`
    /// (each configuration's own: as many as can be resident, occupancy x SMs, but at most 2
    /// per SM for a persistent program all on thread workers without a priority queue)
    /// [default: default] (a windowed launch takes at most this many). Fewer blocks than fit:
    /// fewer groups polling the queues' counters while they wait, and fewer memory lines in
    /// use at once (thread workers walking their own items thrashed the L2 at the full
    /// occupancy). The CPU executor has no blocks: it runs each configuration once.
    #[arg(long, value_name = "N|default,...", value_delimiter = ',', value_parser = parse_grid)]
    grid: Vec<Option<u32>>,
    /// Queue modes, comma-separated: ring, linear [default: ring].
    #[arg(long, value_delimiter = ',', value_parser = parse_queue)]
    queue: Vec<QueueMode>,
    /// Timed runs per configuration (the median is reported).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..))]
    runs: u32,
    /// Untimed (but verified) runs before the timed ones.
    #[arg(long, default_value_t = 1)]
    warmup: u32,
    /// BFS and SSSP: the source vertex [default: 0].
    #[arg(long)]
    source: Option<u32>,
    /// PageRank: the tolerance (a vertex is processed while its residue exceeds it; also
    /// passed to the original binaries as `-p`) [default: 0.01, the original's].
    #[arg(long, value_parser = parse_epsilon, allow_negative_numbers = true)]
    epsilon: Option<f32>,
    /// sssp-priority: how far each advance moves the distance threshold [default:
    /// `atos::apps::sssp::default_delta`, 64 x (2 x mean weight / mean degree)].
    #[arg(long, value_name = "D", value_parser = parse_delta)]
    delta: Option<f64>,
    /// sssp-priority without --delta: the default delta times this (a sweep over graphs whose
    /// defaults differ).
    #[arg(long, value_name = "S", default_value_t = 1.0, value_parser = parse_delta_scale)]
    delta_scale: f64,
    /// sssp-priority and bfs-priority, persistent: the threshold may advance while at most N
    /// items of the band (near and open next-ring items) are in flight (`PriorityQueue::advance_slack`; 0: once the band is done)
    /// [default: sssp-priority `atos::apps::sssp::DEFAULT_SLACK` (512), bfs-priority 0].
    #[arg(long, value_name = "N")]
    advance_slack: Option<u64>,
    /// kcore: how many levels ahead a vertex that cannot peel yet is queued
    /// (`atos::apps::kcore::KcoreArrays::with_window`; the core numbers are the same for any)
    /// [default: `atos::apps::kcore::DEFAULT_WINDOW`].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    kcore_window: Option<u32>,
    /// coloring: colour the vertices of degree above D on CTA workers (`assign_big`, fetch 1)
    /// and check every vertex on CTA workers fetching 64 (balanced, hubs shared), while
    /// `--worker`/`--fetch` set the worker of `assign`, which colours the others
    /// (`atos::apps::coloring::ColoringArrays::state_split`) [default: no split; every task takes
    /// `--worker`/`--fetch`].
    #[arg(long, value_name = "D")]
    split_degree: Option<u32>,
    /// coloring with --split-degree: how many vertices `assign_big` takes at a time. A CTA
    /// colours the hubs of its batch one after another, each seeing the colours of those
    /// before it, where hubs on different CTAs colour at once and may pick the same colour
    /// [default: 1, the task's attribute].
    #[arg(long, value_name = "N", requires = "split_degree", value_parser = clap::value_parser!(u32).range(1..))]
    split_big_fetch: Option<u32>,
    /// coloring with --split-degree: when `assign_big` re-colours a hub, it passes over one free
    /// colour for each tied rival (a neighbour that holds the colour it lost with, waits to be
    /// re-coloured as well and comes first in the tie rule), at most N, so that hubs that
    /// conflicted pick different colours instead of the same one again
    /// (`atos::apps::coloring::split`, "Passing over tied colours") [default: 0, first fit].
    #[arg(long, value_name = "N", requires = "split_degree")]
    tie_skip: Option<u32>,
    /// coloring with --split-degree: colour each hub one window of 64 colours per task
    /// (`atos::apps::coloring::hub_windows`): `assign_big` takes `(vertex, window)`, ORs the
    /// neighbours' colours of that window over its edges and stores the first free colour or
    /// queues the next window, so persistent CTA groups share a hub's window with idle groups
    /// (shared ranges with a reduction); bsp runs take a level per window.
    #[arg(long, requires = "split_degree", conflicts_with = "tie_skip")]
    hub_windows: bool,
    /// coloring with --split-degree: each colour task checks its own vertex right after its
    /// colour's store and fence, with the same worker (`atos::apps::coloring::split_fused`),
    /// instead of queueing it for `check` on CTAs: no check queue, a fence per vertex [default:
    /// checks queued].
    #[arg(long, requires = "split_degree", conflicts_with = "hub_windows")]
    fused_check: bool,
    /// coloring with --split-degree: seed the hubs (`assign_big`'s queue) by descending degree
    /// instead of by id, so that the longest colourings start first (`atos::apps::coloring::
    /// hubs_by_degree`) [default: by id, as every other seed].
    #[arg(long, requires = "split_degree")]
    hubs_by_degree: bool,
    /// coloring without --split-degree: run `check` inline (`atos::apps::coloring::inline_check`):
    /// in persistent runs `assign`'s push runs its vertex's check in the same
    /// thread, instead of queueing it (same colourings; persistent thread workers hold up to 8
    /// checks and fence once for them, other workers fence per vertex; the
    /// check walks its vertex's edges on that one thread, whatever `--worker` runs `assign`);
    /// discrete and bsp runs queue the checks as without it.
    #[arg(long, conflicts_with = "split_degree")]
    inline_check: bool,
    /// sssp and sssp-priority: whether a task whose vertex has since got a shorter distance
    /// relaxes nothing (`on`), relaxes with the shorter one (`off`), or relaxes nothing only
    /// when its vertex has more than D out-edges (`above:D`) [default: sssp off, sssp-priority
    /// `atos::apps::sssp::Prune::PRIORITY`].
    #[arg(long, value_name = "on|off|above:D", value_parser = parse_prune)]
    prune_stale: Option<atos::apps::sssp::Prune>,
    /// sssp-priority, bfs-priority and kcore, persistent CTA workers: whether a group parks a
    /// batch of its pushes to the next band in shared memory and runs it itself once the band
    /// opens (`ProgramBuilder::park`) [default: sssp-priority off (up to 16% slower with it on an
    /// H100), the others on].
    #[arg(long, value_name = "on|off", value_parser = parse_on_off)]
    park: Option<bool>,
    /// Persistent CTA workers: whether a group whose balanced chunk spans 16 strides or more
    /// (a hub's edges) lets idle groups help run it (`ProgramBuilder::share`, docs/runtime.md
    /// "Shared ranges") [default: the program's: on, except for programs with an idle hook].
    #[arg(long, value_name = "on|off", value_parser = parse_on_off)]
    share: Option<bool>,
    /// Give each graph that has no edge weights uniform u32 weights in 1..=MAX (the same for
    /// both directions of an edge, from seed 1, as a generator's `w=MAX`): SSSP on files such as
    /// luxembourg_osm.
    #[arg(long, value_name = "MAX", value_parser = clap::value_parser!(u32).range(1..))]
    weights: Option<u32>,
    /// SSSP over f32 weights: each u32 weight w (generated, from --weights or from the file)
    /// becomes the f32 nearest w / 7, so distances are fractional and every addition rounds.
    #[arg(long)]
    float_weights: bool,
    /// auto (the GPU if `Gpu::new(0)` works, else the CPU), gpu or cpu.
    #[arg(long, value_enum, default_value = "auto")]
    device: DeviceArg,
    /// CPU executor threads [default: one per CPU].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    cpu_threads: Option<u32>,
    /// Seconds one run may take (GPU: the kernel is stopped; CPU: checked when it returns;
    /// originals: the process is killed).
    #[arg(long, default_value_t = 60.0, value_parser = parse_timeout)]
    timeout: f64,
    /// Append one JSON object per configuration to this file.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Write SVG plots into this folder.
    #[arg(long, value_name = "DIR")]
    plots: Option<PathBuf>,
    /// Also run each GPU persistent configuration once sampling tasks done over time; a spread
    /// run over peer-to-peer samples each device's items taken (claimed or kept) instead (`device_progress`,
    /// `device_active`, `end_tail_ms`; docs/bench.md, "Between devices").
    #[arg(long)]
    timeline: bool,
    /// Also run each GPU persistent configuration once with its phases traced on the GPU's
    /// clock (`ProgramBuilder::trace_phases`): when the last batch ended, when a group first saw
    /// the end, when the last block left, against the run's event time (`phases_us`;
    /// docs/bench.md, "Phases").
    #[arg(long)]
    phases: bool,
    /// GPU, one device, persistent, no priority queue: publish and free ring slots by stamps
    /// (on) or through tiled counters (off) (`ProgramBuilder::stamped_rings`; `--stamped-rings`
    /// alone is on) [default: the runtime's: `ATOS_STAMPED_RINGS` (`1` or `0`), else on where
    /// some task runs on thread or warp workers]. Recorded as `stamped_rings` where the kernel
    /// stamps.
    #[arg(long, value_name = "on|off", value_parser = parse_on_off, num_args = 0..=1,
          default_missing_value = "on")]
    stamped_rings: Option<bool>,
    /// Also run the original Atos binaries in DIR (built by
    /// ../shared/baselines/atos-original.sh build DIR) on every graph.
    #[arg(long, value_name = "DIR")]
    compare_original: Option<PathBuf>,
    /// Idle-poll counts (-i) for the originals: `N,N,...` for every binary or `BINARY=N,...`
    /// for one; repeatable [default: bfs_warp 1000,40000; bfs_cta_64 30000; bfs_discrete_64 10].
    #[arg(long = "original-idle", value_name = "[BINARY=]N,...")]
    original_idle: Vec<String>,
    /// Processes per original configuration, all timed when correct (each is a fresh process:
    /// there is no warm-up to skip) [default: --warmup + --runs, the first --warmup untimed].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    original_runs: Option<u32>,
    /// Device counts to spread each run over, comma-separated [default: 1]: each count above 1
    /// runs the program spread over that many GPUs (peer-to-peer; the CPU executor simulates
    /// them), persistent strategy and ring queues only.
    #[arg(long, value_delimiter = ',', value_parser = parse_devices)]
    devices: Vec<usize>,
    /// Also run each configuration as a spread program on one device (every index placed on
    /// device 0): what spread code costs (routing, system-scope atomics) apart from the traffic
    /// between devices.
    #[arg(long)]
    spread_one: bool,
    /// Spread runs: how vertices are split over the devices: `vertices` (equal ranges),
    /// `edges` (ranges of equal edge counts) or `random:SEED`.
    #[arg(long, default_value = "vertices", value_parser = parse_partition)]
    partition: atos_graph::partition::Partition,
    /// Spread runs: how pushes to another device travel, comma-separated, each a
    /// configuration: `eager` (straight into the owner's receive ring) or `BATCH:WAIT_US`
    /// (through a local outbox per destination, forwarded at BATCH items or WAIT_US
    /// microseconds after its last forward), or `BATCH:WAIT_US:idle` (the same, and at once
    /// by a group with nothing else to do) [default: eager].
    #[arg(long, value_delimiter = ',', value_parser = parse_aggregation)]
    aggregation: Vec<atos::Aggregation>,
    /// Spread runs on the GPU: `p2p` (this process drives every GPU, peer-to-peer) or
    /// `nvshmem` (one process per GPU over NVSHMEM: the bench starts its ranks itself, as
    /// `atos run --np N` would, N the one spread count of --devices; rank 0 reports).
    #[arg(long, value_enum, default_value = "p2p")]
    transport: Transport,
    /// More devices than this node has GPUs: device d on GPU d mod G. Peer-to-peer, the
    /// devices sharing a GPU run side by side in this process, each on its share of the SMs
    /// (their pushes and atomics between them stay in the GPU's memory). With `--transport
    /// nvshmem`, ranks share GPUs as `atos run --share-gpus`, time-slicing them. Either way the
    /// results are checked as always; the times are not a multi-GPU run's.
    #[arg(long)]
    share_gpus: bool,
    /// Spread runs of programs that `accumulate` (PageRank's re-scan form): whether each
    /// device combines its adds to other devices' elements and delivers them per element
    /// (`on`), or adds at the element's home at once (`off`). `auto`: on, except when every
    /// device shares one GPU (no add crosses a link there).
    #[arg(long, value_enum, default_value = "auto")]
    combine: Combine,
    /// Spread runs that combine: positions of its device's combine copies a group delivers per
    /// task after each batch (`MeshProgram::set_drain`; 0: only idle sweeps and the run's end
    /// deliver) [default: `atos::aggregation::COMBINE_DRAIN`].
    #[arg(long, value_name = "N")]
    combine_drain: Option<u32>,
    /// No progress bar and no notes (the table and failures are still printed).
    #[arg(long)]
    quiet: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Combine {
    Auto,
    On,
    Off,
}

/// The apps `atos bench` can run. Adding one: a variant here, its input and runner in a
/// module like `pagerank.rs` (on the shared loop of `runner.rs`), an arm in `Prepared`, and its
/// original binaries (if any).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum App {
    /// Speculative BFS (depths checked against a plain CPU BFS).
    Bfs,
    /// BFS with the depth as priority (`--delta` levels per band, default 1).
    BfsPriority,
    /// Owner-computes BFS (`atos::apps::bfs_owner`): each edge's relaxation is an inline task,
    /// run at once where the vertex is local and sent to its owner otherwise.
    BfsOwner,
    /// Asynchronous push PageRank (Algorithm 4), checked against power iteration.
    Pagerank,
    /// The same program with every queueing left to the re-scan: a push is one atomic add
    /// per edge whose result is not read (as the original's persistent `pr` kernels do).
    PagerankRescan,
    /// Bulk-synchronous push PageRank (Algorithm 3: advance and filter levels): `--strategy
    /// bsp` unless another is given (persistent runs its two tasks asynchronously).
    PagerankBsp,
    /// Speculative greedy colouring (asynchronous: persistent, discrete; Algorithm 5: bsp),
    /// checked proper; undirected graphs only.
    Coloring,
    /// Speculative SSSP in FIFO order, u32 weights or f32 (`--float-weights`; a file's f32
    /// weights must be 0 or more) (asynchronous: persistent, discrete; Bellman-Ford by
    /// levels: bsp), distances checked against Dijkstra from `--source`.
    Sssp,
    /// The same SSSP served by priority (distance below a threshold first, advanced by
    /// `--delta`; bsp: delta-stepping by levels).
    SsspPriority,
    /// k-core decomposition by peeling, one level per threshold advance (bsp: one level's
    /// peels per step), core numbers checked against bucket peeling; simple undirected graphs
    /// only.
    Kcore,
}

impl App {
    pub fn name(self) -> &'static str {
        match self {
            App::Bfs => "bfs",
            App::BfsPriority => "bfs-priority",
            App::BfsOwner => "bfs-owner",
            App::Pagerank => "pagerank",
            App::PagerankRescan => "pagerank-rescan",
            App::PagerankBsp => "pagerank-bsp",
            App::Coloring => "coloring",
            App::Sssp => "sssp",
            App::SsspPriority => "sssp-priority",
            App::Kcore => "kcore",
        }
    }

    /// The original Atos binaries for this app (`--compare-original`); the PageRank binaries
    /// run with `pagerank` (they are asynchronous).
    pub fn originals(self) -> &'static [OriginalBinary] {
        match self {
            App::Bfs => &original::BFS_BINARIES,
            App::Pagerank | App::PagerankRescan => &original::PR_BINARIES,
            App::PagerankBsp | App::BfsOwner => &[],
            App::Coloring => &original::GC_BINARIES,
            App::Sssp | App::SsspPriority | App::BfsPriority | App::Kcore => &[],
        }
    }

    fn prepare(self, g: &atos_graph::Csr, args: &BenchArgs) -> Result<Prepared, String> {
        match self {
            App::Bfs => bfs::BfsInput::new(g, args.source()).map(Prepared::Bfs),
            App::BfsOwner => bfs::BfsInput::new(g, args.source()).map(Prepared::BfsOwner),
            App::BfsPriority => {
                let delta = match args.delta {
                    None => atos::apps::bfs_priority::DEFAULT_DELTA,
                    Some(d) if d.fract() == 0.0 && d <= f64::from(u32::MAX) => d as u32,
                    Some(d) => return Err(format!("--delta {d}: depths take a whole delta")),
                };
                bfs::BfsInput::new(g, args.source())
                    .map(|b| Prepared::BfsPriority(delta, args.advance_slack.unwrap_or(0), b))
            }
            App::Pagerank => pagerank::PageRankInput::new(g, args.epsilon())
                .map(|p| Prepared::PageRank(pagerank::Form::Async, p)),
            App::PagerankRescan => pagerank::PageRankInput::new(g, args.epsilon())
                .map(|p| Prepared::PageRank(pagerank::Form::Rescan, p)),
            App::PagerankBsp => pagerank::PageRankInput::new(g, args.epsilon())
                .map(|p| Prepared::PageRank(pagerank::Form::Bsp, p)),
            App::Coloring => coloring::ColoringInput::new(
                g,
                match args.split_degree {
                    Some(degree) => coloring::Form::Split(coloring::Split {
                        degree,
                        big_fetch: args.split_big_fetch.unwrap_or(1),
                        tie_skip: args.tie_skip.unwrap_or(0),
                        hub_windows: args.hub_windows,
                        fused_check: args.fused_check,
                        hubs_by_degree: args.hubs_by_degree,
                    }),
                    None if args.inline_check => coloring::Form::InlineCheck,
                    None => coloring::Form::Plain,
                },
            )
            .map(Prepared::Coloring),
            App::Sssp => {
                let wanted = sssp::Wanted {
                    order: sssp::WantedOrder::Fifo,
                    prune: args.prune_stale,
                };
                sssp::Sssp::new(g, args.source(), wanted).map(Prepared::Sssp)
            }
            App::SsspPriority => {
                let wanted = sssp::Wanted {
                    order: sssp::WantedOrder::Priority {
                        delta: args.delta,
                        scale: args.delta_scale,
                        slack: args
                            .advance_slack
                            .unwrap_or(atos::apps::sssp::DEFAULT_SLACK),
                    },
                    prune: args.prune_stale,
                };
                sssp::Sssp::new(g, args.source(), wanted).map(Prepared::Sssp)
            }
            App::Kcore => kcore::KcoreInput::new(g, args.kcore_window).map(Prepared::Kcore),
        }
    }
}

/// An app's per-graph input (reference answer included).
enum Prepared {
    Bfs(bfs::BfsInput),
    BfsOwner(bfs::BfsInput),
    /// With the delta.
    /// The delta and the advance slack.
    BfsPriority(u32, u64, bfs::BfsInput),
    PageRank(pagerank::Form, pagerank::PageRankInput),
    Coloring(coloring::ColoringInput),
    Sssp(sssp::Sssp),
    Kcore(kcore::KcoreInput),
}

impl Prepared {
    /// BFS: the vertices the source reaches; the other apps: every vertex.
    fn reached(&self, g: &atos_graph::Csr) -> u64 {
        match self {
            Prepared::Bfs(b) | Prepared::BfsOwner(b) | Prepared::BfsPriority(_, _, b) => {
                b.reached()
            }
            Prepared::Sssp(p) => p.reached(),
            _ => g.num_vertices() as u64,
        }
    }

    /// BFS: the largest reference depth; SSSP: the most edges on any vertex's fewest-edge
    /// shortest path (both: the dependent steps any exact run makes); the other apps: 0.
    fn max_depth(&self) -> u32 {
        match self {
            Prepared::Bfs(b) | Prepared::BfsOwner(b) | Prepared::BfsPriority(_, _, b) => {
                b.max_depth()
            }
            Prepared::Sssp(p) => p.hops(),
            _ => 0,
        }
    }

    /// The GPU executor when `gpu` is set, else the CPU executor.
    fn run(
        &self,
        gpu: Option<&Gpu>,
        g: &atos_graph::Csr,
        cfg: &Config,
        opts: &RunOpts,
        rec: &mut Record,
    ) -> Result<(), Fail> {
        match self {
            Prepared::Bfs(b) => bfs::run(gpu, b, &g.cols, cfg, opts, rec),
            Prepared::BfsOwner(b) => bfs::run_owner(gpu, b, &g.cols, cfg, opts, rec),
            Prepared::BfsPriority(delta, slack, b) => {
                bfs::run_priority(gpu, b, (*delta, *slack), &g.cols, cfg, opts, rec)
            }
            Prepared::Sssp(p) => p.run(gpu, &g.cols, cfg, opts, rec),
            Prepared::Kcore(k) => kcore::run(gpu, k, &g.cols, cfg, opts, rec),
            Prepared::PageRank(form, p) => pagerank::run(*form, gpu, p, &g.cols, cfg, opts, rec),
            Prepared::Coloring(c) => coloring::run(gpu, g, c, cfg, opts, rec),
        }
    }

    /// The task whose batches could share ranges under `cfg` (`share_for`): the
    /// configuration's worker and fetch, except a colouring split's `check`
    /// ([`coloring::ColoringInput::sharer`]).
    fn sharer(&self, cfg: &Config) -> (Option<WorkerKind>, u32) {
        match self {
            Prepared::Coloring(c) => c.sharer(cfg),
            _ => (cfg.worker, cfg.fetch),
        }
    }

    /// The reference's fields every record of the graph carries (PageRank: the tolerance and
    /// its L1 bound; colouring: CPU greedy's colour count).
    fn annotate(&self, rec: &mut Record) {
        match self {
            Prepared::Bfs(_) | Prepared::BfsOwner(_) => {}
            Prepared::BfsPriority(delta, slack, _) => {
                rec.delta = Some(f64::from(*delta));
                rec.advance_slack = Some(*slack);
            }
            Prepared::Sssp(p) => {
                rec.delta = p.delta();
                rec.advance_slack = p.slack();
                rec.prune_stale = Some(p.prune().to_string());
            }
            Prepared::PageRank(_, p) => {
                // As given (0.001, not the f32's 0.0010000000474974513).
                rec.epsilon = p.epsilon.to_string().parse().ok();
                rec.rank_bound = Some(p.bound());
            }
            Prepared::Coloring(c) => rec.greedy_colors = Some(c.greedy_colors),
            Prepared::Kcore(k) => {
                rec.max_core = Some(k.max_core());
                rec.kcore_window = Some(k.window());
                rec.delta = Some(1.0);
            }
        }
    }

    /// Why a configuration does not apply (not a failure).
    fn skip_reason(&self, gpu: Option<&Gpu>, cfg: &Config, opts: &RunOpts) -> Option<String> {
        if cfg.spread {
            if cfg.strategy != Strategy::Persistent || cfg.queue == QueueMode::Linear {
                return Some(
                    "spread over several devices: persistent strategy and ring queues only".into(),
                );
            }
            if matches!(self, Prepared::BfsPriority(..) | Prepared::Kcore(_))
                || matches!(self, Prepared::Sssp(s) if s.is_priority())
            {
                return Some(
                    "spread over several devices: plain queues only (this app uses a priority queue)"
                        .into(),
                );
            }
        }
        if !matches!(self, Prepared::Bfs(_)) && cfg.queue == QueueMode::Linear {
            return Some(
                "linear queues need the total pushes in advance, which only BFS bounds; use ring"
                    .into(),
            );
        }
        let gpu = gpu?;
        match self {
            Prepared::Bfs(_) => bfs::gpu_skip_reason(gpu, cfg, opts),
            Prepared::BfsOwner(_) => bfs::gpu_skip_reason_owner(gpu, cfg, opts),
            Prepared::BfsPriority(..) => bfs::gpu_skip_reason_priority(gpu, cfg, opts),
            Prepared::Sssp(p) => p.gpu_skip_reason(gpu, cfg, opts),
            Prepared::PageRank(form, _) => pagerank::gpu_skip_reason(*form, gpu, cfg, opts),
            Prepared::Coloring(c) => coloring::gpu_skip_reason(gpu, c, cfg, opts),
            Prepared::Kcore(_) => kcore::gpu_skip_reason(gpu, cfg, opts),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Transport {
    P2p,
    Nvshmem,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum DeviceArg {
    Auto,
    Gpu,
    Cpu,
}

/// One configuration of the cross product (`worker` is `None` on the CPU).
pub struct Config {
    /// Devices the run is spread over.
    pub devices: usize,
    /// Whether it runs the spread program (always with several devices; on one device only
    /// with `--spread-one`) rather than the plain one.
    pub spread: bool,
    /// Spread runs: how pushes to another device travel.
    pub aggregation: atos::Aggregation,
    pub strategy: Strategy,
    pub worker: Option<WorkerKind>,
    pub fetch: u32,
    pub queue: QueueMode,
    /// `--grid`: blocks per launch (`None`: the program's default grid; always `None` on the
    /// CPU).
    pub grid: Option<u32>,
}

/// `--share` for one configuration: as given; without it, off for persistent CTA groups (the
/// only ones that share) where the graph's largest degree cannot make a chunk that would be
/// posted (`atos::share_can_post`: the unit that shares only spills more there), else the
/// program's default (`None`).
///
/// `(worker, fetch)` is the task that could share (`Prepared::sharer`): the configuration's,
/// except under a colouring split, whose `check` runs on CTAs fetching
/// [`coloring::SPLIT_CHECK_FETCH`] whatever `--worker`/`--fetch` give `assign`.
fn share_for(
    given: Option<bool>,
    (worker, fetch): (Option<WorkerKind>, u32),
    strategy: Strategy,
    block: u32,
    max_degree: u64,
) -> Option<bool> {
    // Which configurations share is codegen's one rule (`balance::shares`), asked of a unit of
    // this worker, fetch, block and strategy.
    let shares = worker.is_some_and(|w| {
        let spec = atos::codegen::KernelSpec::single(w, fetch, block).strategy(strategy);
        atos::codegen::balance::shares(&spec, &spec.tasks[0])
    });
    given.or_else(|| (shares && !atos::share_can_post([max_degree], fetch, block)).then_some(false))
}

/// Settings every configuration shares.
#[derive(Clone)]
pub struct RunOpts {
    pub block: u32,
    pub min_blocks: u32,
    /// `--idle-nap` (`None`: the program's default).
    pub idle_nap: Option<u32>,
    /// `--idle-nap-doublings` (`None`: the program's default).
    pub idle_nap_doublings: Option<u32>,
    /// `--park` as resolved for the app (`None`: an app that does not park: no priority queue, or
    /// FIFO SSSP's unordered one, which never pushes to the next ring).
    pub park: Option<bool>,
    /// `--share` as given, or `Some(false)` for a persistent CTA configuration on a graph that
    /// cannot post a chunk (`share_for`; `None`: the program's default).
    pub share: Option<bool>,
    pub runs: usize,
    pub warmup: usize,
    pub timeout: Duration,
    pub timeline: bool,
    pub phases: bool,
    /// `--stamped-rings` as given (`None`: the runtime's default).
    pub stamped_rings: Option<bool>,
    /// `ATOS_BENCH_CORRUPT=1`: change one depth after every run (test hook).
    pub corrupt: bool,
    pub cpu_threads: Option<usize>,
    /// Spread configurations on the GPU: the GPUs, by device count.
    pub gpus: std::collections::BTreeMap<usize, atos::Gpus>,
    /// `--share-gpus` (peer-to-peer): devices share GPUs, device d on GPU d mod G.
    pub share_gpus: bool,
    /// Spread configurations: the placement of the graph being run (set per graph and count).
    pub placement: Option<atos::Placement>,
    /// Spread configurations: the aggregation of the configuration being run.
    pub aggregation: atos::Aggregation,
    /// `--combine`: `None` for the executor's default.
    pub combine: Option<bool>,
    /// `--combine-drain`.
    pub drain: u32,
}

/// Why a configuration failed.
pub struct Fail {
    pub error: String,
    pub mismatches: Option<u64>,
    /// The run timed out on the GPU, which leaves the CUDA context unusable.
    pub gpu_unusable: bool,
}

impl Fail {
    pub fn new(error: String) -> Fail {
        Fail {
            error,
            mismatches: None,
            gpu_unusable: false,
        }
    }

    /// An answer compared element by element with a reference: `bad` of `of` `what` differ
    /// ("depths", "distances") from `reference` during `run`; `Ok` when none do.
    pub fn check_mismatches(
        bad: usize,
        of: usize,
        what: &str,
        reference: &str,
        run: &str,
    ) -> Result<(), Fail> {
        if bad == 0 {
            return Ok(());
        }
        Err(Fail {
            error: format!("{bad} of {of} {what} differ from {reference} ({run})"),
            mismatches: Some(bad as u64),
            gpu_unusable: false,
        })
    }
}

fn parse_strategy(s: &str) -> Result<Strategy, String> {
    Strategy::parse(s.trim())
        .ok_or_else(|| format!("unknown strategy `{s}`: use persistent, discrete or bsp"))
}

fn parse_worker(s: &str) -> Result<WorkerKind, String> {
    WorkerKind::parse(s.trim())
        .ok_or_else(|| format!("unknown worker `{s}`: use thread, warp or cta"))
}

fn parse_fetch(s: &str) -> Result<u32, String> {
    match s.trim().parse::<u32>() {
        Ok(f) if f >= 1 => Ok(f),
        _ => Err(format!("bad fetch `{s}`: use a whole number of at least 1")),
    }
}

/// A `--grid` value: blocks per launch, or `default` (`None`: the program's default grid).
fn parse_grid(s: &str) -> Result<Option<u32>, String> {
    match s.trim() {
        "default" => Ok(None),
        n => match n.parse::<u32>() {
            Ok(b) if b >= 1 => Ok(Some(b)),
            _ => Err(format!(
                "bad grid `{s}`: use a whole number of blocks of at least 1, or `default` (the program's own grid)"
            )),
        },
    }
}

fn parse_block(s: &str) -> Result<u32, String> {
    match s.trim().parse::<u32>() {
        Ok(b) if (32..=1024).contains(&b) && b.is_multiple_of(32) => Ok(b),
        _ => Err(format!(
            "bad block size `{s}`: use a multiple of 32 from 32 to 1024"
        )),
    }
}

fn parse_queue(s: &str) -> Result<QueueMode, String> {
    match s.trim() {
        "ring" => Ok(QueueMode::Ring),
        "linear" => Ok(QueueMode::Linear),
        _ => Err(format!("unknown queue mode `{s}`: use ring or linear")),
    }
}

fn parse_devices(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(d) if (1..=atos::codegen::layout::mesh::MAX_DEVICES).contains(&d) => Ok(d),
        _ => Err(format!(
            "bad device count `{s}`: use 1 to {}",
            atos::codegen::layout::mesh::MAX_DEVICES
        )),
    }
}

fn parse_aggregation(s: &str) -> Result<atos::Aggregation, String> {
    s.parse()
}

fn parse_partition(s: &str) -> Result<atos_graph::partition::Partition, String> {
    s.trim().parse()
}

/// The runtime's placement of a graph partition over `devices` devices.
pub fn placement_of(
    g: &atos_graph::Csr,
    p: atos_graph::partition::Partition,
    devices: usize,
) -> Result<atos::Placement, String> {
    use atos_graph::partition::Parts;
    match p.parts(g, devices) {
        Parts::Ranges(b) => atos::Placement::ranges(b),
        Parts::Owners(o) => atos::Placement::from_owners(o, devices),
    }
    .map_err(|e| e.to_string())
}

fn parse_on_off(s: &str) -> Result<bool, String> {
    match s.trim() {
        "on" => Ok(true),
        "off" => Ok(false),
        _ => Err(format!("bad value `{s}`: use on or off")),
    }
}

fn parse_prune(s: &str) -> Result<atos::apps::sssp::Prune, String> {
    atos::apps::sssp::Prune::parse(s).ok_or_else(|| {
        format!("bad value `{s}`: use on, off or above:D (D a whole number of out-edges)")
    })
}

/// A positive finite number, or a message naming `what` with `hint` for what to write.
fn positive(s: &str, what: &str, hint: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(x) if x > 0.0 && x.is_finite() => Ok(x),
        _ => Err(format!("bad {what} `{s}`: use a positive number{hint}")),
    }
}

/// `--epsilon`: an f32 that `atos::apps::pagerank::check_tolerance` accepts with the bench's
/// damping (a value that rounds to another f32 is refused as what it rounds to).
fn parse_epsilon(s: &str) -> Result<f32, String> {
    let e: f32 = s
        .trim()
        .parse()
        .map_err(|_| format!("bad tolerance `{s}`: use a number such as 0.01 or 1e-6"))?;
    atos::apps::pagerank::check_tolerance(e, pagerank::DAMPING).map_err(|err| err.to_string())?;
    Ok(e)
}

fn parse_delta(s: &str) -> Result<f64, String> {
    positive(s, "delta", " (whole for u32 keys)")
}

fn parse_delta_scale(s: &str) -> Result<f64, String> {
    positive(
        s,
        "delta scale",
        " (0.25 for a quarter of the default delta)",
    )
}

fn parse_timeout(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(t) if atos::seconds::positive_seconds(t).is_some() => Ok(t),
        _ => Err(format!(
            "bad timeout `{s}`: use a positive number of seconds up to {:e}",
            atos::seconds::MAX_SECONDS
        )),
    }
}

/// The configurations' grids: each of `--grid` once on the GPU (`None`: the default, also
/// without `--grid`); on the CPU executor, which launches no blocks, one configuration for them
/// all.
fn grid_choices(gpu: bool, grids: &[Option<u32>]) -> Vec<Option<u32>> {
    if gpu { dedup(grids, None) } else { vec![None] }
}

fn dedup<T: PartialEq + Copy>(v: &[T], default: T) -> Vec<T> {
    let mut out = Vec::new();
    for &x in v {
        if !out.contains(&x) {
            out.push(x);
        }
    }
    if out.is_empty() {
        out.push(default);
    }
    out
}

enum Device {
    Gpu(Gpu),
    Cpu,
}

/// Progress and notes on stderr.
struct Ui {
    bar: ProgressBar,
    quiet: bool,
}

impl Ui {
    fn new(total: u64, quiet: bool) -> Ui {
        let bar = ProgressBar::new(total);
        if quiet || !std::io::stderr().is_terminal() {
            bar.set_draw_target(ProgressDrawTarget::hidden());
        } else if let Ok(style) =
            ProgressStyle::with_template("{bar:30.cyan/blue} {pos}/{len} [{elapsed_precise}] {msg}")
        {
            bar.set_style(style);
        }
        Ui { bar, quiet }
    }

    fn print(&self, msg: &str) {
        if self.bar.is_hidden() {
            eprintln!("{msg}");
        } else {
            self.bar.suspend(|| eprintln!("{msg}"));
        }
    }

    fn note(&self, msg: &str) {
        if !self.quiet {
            self.print(msg);
        }
    }
}

struct Output {
    file: Option<(PathBuf, File)>,
}

impl Output {
    fn open(path: Option<&Path>) -> Result<Output, String> {
        let Some(path) = path else {
            return Ok(Output { file: None });
        };
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("creating {}: {e}", parent.display()))?;
        }
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| format!("opening {}: {e}", path.display()))?;
        Ok(Output {
            file: Some((path.to_path_buf(), file)),
        })
    }

    fn write(&mut self, rec: &Record) -> Result<(), String> {
        if let Some((path, file)) = &mut self.file {
            let line = serde_json::to_string(rec).map_err(|e| e.to_string())?;
            writeln!(file, "{line}")
                .and_then(|_| file.flush())
                .map_err(|e| format!("writing {}: {e}", path.display()))?;
        }
        Ok(())
    }
}

/// Options that only some apps take, given to another app: an error, not silently ignored.
fn check_app_options(args: &BenchArgs) -> Result<(), String> {
    let app = args.app;
    let takes = |apps: &[App]| apps.contains(&app);
    let given = [
        (
            "--delta",
            args.delta.is_some(),
            &[App::SsspPriority, App::BfsPriority][..],
        ),
        (
            "--delta-scale",
            args.delta_scale != 1.0,
            &[App::SsspPriority][..],
        ),
        (
            "--advance-slack",
            args.advance_slack.is_some(),
            &[App::SsspPriority, App::BfsPriority][..],
        ),
        (
            "--prune-stale",
            args.prune_stale.is_some(),
            &[App::Sssp, App::SsspPriority][..],
        ),
        (
            "--kcore-window",
            args.kcore_window.is_some(),
            &[App::Kcore][..],
        ),
        (
            "--split-degree",
            args.split_degree.is_some(),
            &[App::Coloring][..],
        ),
        (
            "--park",
            args.park.is_some(),
            &[App::SsspPriority, App::BfsPriority, App::Kcore][..],
        ),
        (
            "--source",
            args.source.is_some(),
            &[
                App::Bfs,
                App::BfsPriority,
                App::BfsOwner,
                App::Sssp,
                App::SsspPriority,
            ][..],
        ),
        (
            "--epsilon",
            args.epsilon.is_some(),
            &[App::Pagerank, App::PagerankRescan, App::PagerankBsp][..],
        ),
        (
            "--weights",
            args.weights.is_some(),
            &[App::Sssp, App::SsspPriority][..],
        ),
        (
            "--float-weights",
            args.float_weights,
            &[App::Sssp, App::SsspPriority][..],
        ),
    ];
    for (flag, set, apps) in given {
        if set && !takes(apps) {
            let names: Vec<&str> = apps.iter().map(|a| a.name()).collect();
            let names = match names.split_last() {
                Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
                _ => names.concat(),
            };
            let why = match (app, flag) {
                (App::Kcore, "--delta") => {
                    " (k-core peels one level at a time: its delta is always 1)"
                }
                (App::Kcore, _) => " (k-core needs each level peeled before the next starts)",
                _ => "",
            };
            return Err(format!(
                "{flag} is for {names} only; `{}` does not use it{why}",
                app.name(),
            ));
        }
    }
    if args.delta.is_some() && args.delta_scale != 1.0 {
        return Err("--delta-scale scales the default delta: give it or --delta, not both".into());
    }
    Ok(())
}

impl BenchArgs {
    /// `--source`, or 0.
    fn source(&self) -> u32 {
        self.source.unwrap_or(0)
    }

    /// `--epsilon`, or the original's 0.01.
    fn epsilon(&self) -> f32 {
        self.epsilon.unwrap_or(0.01)
    }
}

/// Runs `atos bench`; `Ok(false)` when some atos configuration failed (the exit code is then 1).
pub fn run(args: BenchArgs) -> Result<bool, Box<dyn std::error::Error>> {
    check_app_options(&args)?;
    // pagerank-bsp is the bulk-synchronous form: run as such unless asked otherwise.
    let default_strategy = match args.app {
        App::PagerankBsp => Strategy::Bsp,
        _ => Strategy::Persistent,
    };
    let strategies = dedup(&args.strategy, default_strategy);
    let workers = dedup(&args.worker, WorkerKind::Cta);
    let fetches = dedup(&args.fetch, 64);
    let queues = dedup(&args.queue, QueueMode::Ring);
    let opts = RunOpts {
        block: args.block,
        min_blocks: args.min_blocks.unwrap_or(atos::codegen::MIN_BLOCKS),
        idle_nap: args.idle_nap,
        idle_nap_doublings: args.idle_nap_doublings,
        park: match args.app {
            App::SsspPriority => Some(args.park.unwrap_or(false)),
            App::BfsPriority | App::Kcore => Some(args.park.unwrap_or(true)),
            _ => None,
        },
        share: args.share,
        runs: args.runs as usize,
        warmup: args.warmup as usize,
        timeout: Duration::from_secs_f64(args.timeout),
        timeline: args.timeline,
        phases: args.phases,
        stamped_rings: args.stamped_rings,
        corrupt: std::env::var(CORRUPT_ENV).is_ok_and(|v| !v.is_empty() && v != "0"),
        cpu_threads: args.cpu_threads.map(|t| t as usize),
        gpus: Default::default(),
        share_gpus: args.share_gpus && args.transport == Transport::P2p,
        placement: None,
        aggregation: atos::Aggregation::Eager,
        combine: match args.combine {
            Combine::Auto => None,
            Combine::On => Some(true),
            Combine::Off => Some(false),
        },
        drain: args
            .combine_drain
            .unwrap_or(atos::aggregation::COMBINE_DRAIN),
    };
    let mut opts = opts;
    let device_counts = dedup(&args.devices, 1);
    // NVSHMEM: every rank runs this same bench (see `nvshmem_rank`).
    let rank = match nvshmem_rank(&args, &device_counts)? {
        RankSetup::Launched(ok) => return Ok(ok),
        RankSetup::Plain => None,
        RankSetup::Rank(n, gpus) => {
            opts.gpus.insert(n, gpus.clone());
            Some(gpus)
        }
    };
    // Whether this process reports (always, but under NVSHMEM only rank 0).
    let lead = rank
        .as_ref()
        .and_then(|g| g.world())
        .is_none_or(|w| w.rank() == 0);
    let originals = match &args.compare_original {
        Some(dir) => {
            if !dir.is_dir() {
                return Err(format!(
                    "--compare-original {}: not a folder (build it with ../shared/baselines/atos-original.sh build DIR)",
                    dir.display()
                )
                .into());
            }
            original::check_idle_specs(&args.original_idle, args.app.originals())?;
            args.app.originals().to_vec()
        }
        None => {
            if !args.original_idle.is_empty() {
                return Err("--original-idle needs --compare-original DIR".into());
            }
            Vec::new()
        }
    };
    let mut out = Output::open(args.out.as_deref().filter(|_| lead))?;

    let mut early_notes = Vec::new();
    let device = match (&rank, args.device) {
        (Some(gpus), _) => Device::Gpu(gpus.gpu(0).clone()),
        (None, DeviceArg::Cpu) => Device::Cpu,
        (None, DeviceArg::Gpu) => {
            Device::Gpu(Gpu::new(0).map_err(|e| format!("--device gpu: {e}"))?)
        }
        (None, DeviceArg::Auto) => match Gpu::new(0) {
            Ok(g) => Device::Gpu(g),
            Err(e) => {
                early_notes.push(format!("no GPU ({e}): running on the CPU executor"));
                Device::Cpu
            }
        },
    };
    if args.share_gpus && matches!(device, Device::Cpu) {
        return Err("--share-gpus puts several devices on one GPU, and this run is on the CPU executor, which simulates its devices: drop the flag, or run on a GPU".into());
    }

    // (devices, spread, aggregation) in run order: the plain one-device run, then the spread
    // ones, each with every aggregation (one device has no peer: --spread-one runs eager only,
    // an aggregated run there would be the same run).
    let aggregations = dedup(&args.aggregation, atos::Aggregation::Eager);
    let mut layouts: Vec<(usize, bool, atos::Aggregation)> = Vec::new();
    for &d in &device_counts {
        if d == 1 {
            layouts.push((1, false, atos::Aggregation::Eager));
            if args.spread_one {
                layouts.push((1, true, atos::Aggregation::Eager));
            }
        } else {
            layouts.extend(aggregations.iter().map(|&a| (d, true, a)));
        }
    }
    if !lead {
        layouts.retain(|l| l.1);
    }
    if let Device::Gpu(_) = &device {
        for d in layouts.iter().filter(|l| l.1).map(|l| l.0) {
            if opts.gpus.contains_key(&d) {
                continue;
            }
            let gpus = if opts.share_gpus {
                atos::Gpus::shared(d)
            } else {
                atos::Gpus::first(d)
            };
            let gpus = gpus.map_err(|e| format!("--devices {d}: {e}"))?;
            opts.gpus.insert(d, gpus);
        }
    }
    // The configurations of one graph, in run order.
    let mut configs = Vec::new();
    // The CPU executor has no worker kinds: one configuration per fetch.
    let worker_choices: Vec<Option<WorkerKind>> = match &device {
        Device::Gpu(_) => workers.iter().map(|&w| Some(w)).collect(),
        Device::Cpu => vec![None],
    };
    let grids = grid_choices(matches!(device, Device::Gpu(_)), &args.grid);
    for &(devices, spread, aggregation) in &layouts {
        for &strategy in &strategies {
            for &queue in &queues {
                for &worker in &worker_choices {
                    for &fetch in &fetches {
                        for &grid in &grids {
                            configs.push(Config {
                                devices,
                                spread,
                                aggregation,
                                strategy,
                                worker,
                                fetch,
                                queue,
                                grid,
                            });
                        }
                    }
                }
            }
        }
    }
    let gpu_name = match &device {
        Device::Gpu(g) => Some(g.name().to_string()),
        Device::Cpu => None,
    };
    if matches!(device, Device::Cpu) {
        if !args.worker.is_empty() {
            early_notes.push(
                "--worker does not apply on the CPU executor: one configuration per strategy x fetch x queue (worker \"cpu\")".into(),
            );
        }
        if args.timeline {
            early_notes.push("--timeline needs the GPU (persistent runs): no timelines".into());
        }
        if args.phases {
            early_notes.push("--phases needs the GPU (persistent runs): no phases".into());
        }
        if !args.grid.is_empty() {
            early_notes.push(
                "--grid does not apply on the CPU executor (it launches no blocks): one configuration for all of its values".into(),
            );
        }
    }
    // The originals that exist, with their idle counts.
    let mut original_runs: Vec<(OriginalBinary, PathBuf, Vec<u64>)> = Vec::new();
    if lead && let Some(dir) = &args.compare_original {
        if gpu_name.is_none() {
            early_notes.push(
                "the original binaries run on the GPU while atos runs on the CPU here: their times do not compare".into(),
            );
        }
        for b in &originals {
            match original::binary_path(dir, b.name) {
                Some(p) => {
                    original_runs.push((*b, p, original::idle_counts(&args.original_idle, b)?))
                }
                None => early_notes.push(format!(
                    "original binary {} not found in {}/bin: skipped",
                    b.name,
                    dir.display()
                )),
            }
        }
    }
    let per_graph = configs.len() as u64
        + original_runs
            .iter()
            .map(|(_, _, idle)| idle.len() as u64)
            .sum::<u64>();
    let ui = Ui::new(per_graph * args.graphs.len() as u64, args.quiet || !lead);
    for n in &early_notes {
        ui.note(n);
    }

    let slugs = plots::unique_slugs(&args.graphs);
    let mut records: Vec<Record> = Vec::new();
    let mut failures = 0usize;
    let mut gpu_unusable = false;
    let app = args.app;
    let cpu_threads = opts.cpu_threads.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });

    for (spec, slug) in args.graphs.iter().zip(&slugs) {
        ui.bar.set_message(format!("loading {spec}"));
        let loaded = atos_graph::load(spec)
            .map(|mut g| {
                if let (Some(max), None) = (args.weights, &g.weights) {
                    atos_graph::generate::add_random_weights(&mut g, max, 1);
                }
                if args.float_weights
                    && let Some(atos_graph::Weights::U32(w)) = &g.weights
                {
                    let f = w.iter().map(|&x| x as f32 / 7.0).collect();
                    g.weights = Some(atos_graph::Weights::F32(f));
                }
                g
            })
            .map_err(|e| e.to_string())
            .and_then(|g| app.prepare(&g, &args).map(|p| (g, p)));
        let (mut g, prepared) = match loaded {
            Ok(x) => x,
            Err(e) => {
                ui.print(&format!("FAILED {spec}: {e}"));
                failures += 1;
                ui.bar.inc(per_graph);
                continue;
            }
        };
        let info = GraphInfo {
            spec: spec.clone(),
            signature: GraphSignature::of(&g),
            source: args.source(),
            reached: prepared.reached(&g),
            max_depth: prepared.max_depth(),
        };
        let what = match &prepared {
            Prepared::Bfs(_) | Prepared::BfsOwner(_) => {
                format!("{} reached from {}", info.reached, args.source())
            }
            Prepared::BfsPriority(delta, _, _) => format!(
                "{} reached from {}, priority order, delta {delta}",
                info.reached,
                args.source()
            ),
            Prepared::Sssp(p) => format!(
                "{} reached from {}, {}",
                info.reached,
                args.source(),
                p.describe()
            ),
            Prepared::PageRank(..) => format!("tolerance {}", args.epsilon()),
            Prepared::Coloring(c) => format!("CPU greedy uses {} colours", c.greedy_colors),
            Prepared::Kcore(k) => format!("largest core number {}", k.max_core()),
        };
        ui.note(&format!(
            "{spec}: {} vertices, {} directed edges, max degree {}, {what}",
            info.signature.vertices, info.signature.edges, info.signature.max_degree,
        ));

        let mut noted = std::collections::HashSet::new();
        for cfg in &configs {
            let sharer = prepared.sharer(cfg);
            opts.share = share_for(
                args.share,
                sharer,
                cfg.strategy,
                opts.block,
                info.signature.max_degree,
            );
            if opts.share != args.share
                && matches!(device, Device::Gpu(_))
                && noted.insert(sharer.1)
            {
                ui.note(&format!(
                    "{spec}: shared ranges off at fetch {}: {} items of the largest degree ({}) make no chunk of the {} lanes one needs to be shared (--share on to force)",
                    sharer.1,
                    sharer.1.min(opts.block),
                    info.signature.max_degree,
                    atos::codegen::unit::SHARE_MIN_STRIDES * opts.block
                ));
            }
            let mut rec = Record::new(&info, "atos", app.name());
            prepared.annotate(&mut rec);
            if let Prepared::Coloring(c) = &prepared {
                // Every atos row of a split names it, skipped and failed ones too (the
                // original's rows never ran one).
                let split = c.form.split();
                rec.split_degree = split.map(|s| s.degree);
                rec.split_big_fetch = split.map(|s| s.big_fetch);
                rec.tie_skip = split.map(|s| s.tie_skip);
                rec.hub_windows = split.and_then(|s| s.hub_windows.then_some(true));
                rec.fused_check = split.and_then(|s| s.fused_check.then_some(true));
                rec.hubs_by_degree = split.and_then(|s| s.hubs_by_degree.then_some(true));
                rec.inline_check = (c.form == coloring::Form::InlineCheck).then_some(true);
            }
            opts.placement = None;
            opts.aggregation = cfg.aggregation;
            if cfg.spread {
                rec.devices = Some(cfg.devices);
                rec.aggregation = Some(cfg.aggregation.to_string());
                rec.partition = Some(args.partition.to_string());
                match placement_of(&g, args.partition, cfg.devices) {
                    Ok(p) => opts.placement = Some(p),
                    Err(e) => {
                        ui.print(&format!("FAILED {spec}: {e}"));
                        failures += 1;
                        continue;
                    }
                }
            }
            rec.strategy = cfg.strategy.name().into();
            rec.worker = cfg.worker.map_or("cpu", |w| w.name()).into();
            rec.fetch = Some(cfg.fetch);
            rec.queue = cfg.queue.name().into();
            rec.runs = opts.runs;
            rec.warmup = opts.warmup;
            rec.timeout_s = opts.timeout.as_secs_f64();
            // The requested grid, on rows that fail or skip too; a run's stats put the launched
            // one in its place.
            rec.grid = cfg.grid.map(|b| [b, opts.block]);
            let label = format!(
                "{slug}{} {} {} {}{}",
                if cfg.spread {
                    format!(" x{} {}", cfg.devices, cfg.aggregation)
                } else {
                    String::new()
                },
                rec.strategy,
                rec.worker_fetch(),
                rec.queue,
                cfg.grid.map_or(String::new(), |b| format!(" grid {b}"))
            );
            ui.bar.set_message(label.clone());
            let result = match &device {
                Device::Gpu(gpu) => {
                    rec.executor = "gpu".into();
                    rec.block = Some(opts.block);
                    rec.min_blocks = Some(opts.min_blocks);
                    rec.idle_nap_ns = opts.idle_nap;
                    rec.idle_nap_doublings = opts.idle_nap_doublings;
                    rec.park = opts.park;
                    rec.share = opts.share;
                    // A spread run's devices (and transport), also on rows that fail or skip.
                    rec.device = match opts.gpus.get(&cfg.devices) {
                        Some(gpus) if cfg.spread => gpus.describe(),
                        _ => gpu.name().into(),
                    };
                    if let Some(why) = prepared.skip_reason(Some(gpu), cfg, &opts) {
                        rec.skip(why);
                        Ok(())
                    } else if gpu_unusable {
                        Err(Fail::new(
                            "not run: an earlier run timed out, which leaves the CUDA context unusable".into(),
                        ))
                    } else {
                        prepared.run(Some(gpu), &g, cfg, &opts, &mut rec)
                    }
                }
                Device::Cpu => {
                    rec.executor = "cpu".into();
                    rec.cpu_threads = Some(cpu_threads);
                    rec.device = format!("CPU ({cpu_threads} threads)");
                    if cfg.strategy == Strategy::Discrete {
                        rec.skip(
                            "the CPU executor has no discrete strategy (a GPU launch scheme); use persistent or bsp".into(),
                        );
                        Ok(())
                    } else if let Some(why) = prepared.skip_reason(None, cfg, &opts) {
                        rec.skip(why);
                        Ok(())
                    } else {
                        prepared.run(None, &g, cfg, &opts, &mut rec)
                    }
                }
            };
            match result {
                Ok(()) if rec.status == Status::Skipped => {}
                Ok(()) => {
                    rec.status = Status::Ok;
                    rec.verified = true;
                    rec.summarize_times();
                }
                Err(f) => {
                    gpu_unusable |= f.gpu_unusable;
                    ui.print(&format!("FAILED {label}: {}", f.error));
                    rec.fail(f.error, f.mismatches);
                    failures += 1;
                }
            }
            rec.finish();
            out.write(&rec)?;
            records.push(rec);
            ui.bar.inc(1);
        }

        if !original_runs.is_empty() {
            let csr_dir = std::env::temp_dir().join(format!("atos-bench-{}", std::process::id()));
            let csr = csr_dir.join(format!("{slug}.csr"));
            // The same writer as `atos graph convert <spec> out.csr`; the layout has no weights.
            let written = std::fs::create_dir_all(&csr_dir)
                .map_err(|e| e.to_string())
                .and_then(|()| {
                    let weights = g.weights.take();
                    let r =
                        atos_graph::format::write_file(&g, &csr, Some(atos_graph::Format::AtosCsr));
                    g.weights = weights;
                    r.map_err(|e| e.to_string())
                });
            if let Err(e) = written {
                ui.print(&format!(
                    "FAILED writing {spec} as an Atos .csr for the originals: {e}"
                ));
                ui.bar.inc(per_graph - configs.len() as u64);
            } else {
                for (bin, path, idles) in &original_runs {
                    for &idle in idles {
                        let label = format!("{slug} original {} -i {idle}", bin.label);
                        ui.bar.set_message(label.clone());
                        let mut rec = Record::new(&info, "original", app.name());
                        prepared.annotate(&mut rec);
                        let orig_opts = match args.original_runs {
                            Some(n) => RunOpts {
                                runs: n as usize,
                                warmup: 0,
                                ..opts.clone()
                            },
                            None => opts.clone(),
                        };
                        run_original(
                            &mut rec,
                            bin,
                            path,
                            &csr,
                            idle,
                            args.epsilon(),
                            &orig_opts,
                            gpu_name.as_deref().unwrap_or("GPU (not opened by atos)"),
                        );
                        if let Some(e) = &rec.error {
                            ui.note(&format!("original {label}: {e}"));
                        }
                        rec.finish();
                        out.write(&rec)?;
                        records.push(rec);
                        ui.bar.inc(1);
                    }
                }
            }
            let _ = std::fs::remove_file(&csr);
            let _ = std::fs::remove_dir(&csr_dir);
        }
    }
    ui.bar.finish_and_clear();

    if lead {
        summarize(&records, &args.graphs, &slugs);
    }
    if lead && let Some(dir) = &args.plots {
        match write_plots(dir, &records, &args.graphs, &slugs) {
            Ok(files) => ui.note(&format!("{} plots in {}", files.len(), dir.display())),
            Err(e) => {
                eprintln!("error: {e}");
                failures += 1;
            }
        }
    }
    if let Some(path) = &args.out {
        ui.note(&format!(
            "{} records appended to {}",
            records.len(),
            path.display()
        ));
    }
    if failures > 0 {
        eprintln!(
            "error: {failures} configuration(s) or graph(s) failed (see the FAILED lines and the records' `error`)"
        );
    }
    Ok(failures == 0)
}

/// What `--transport` makes of this process.
enum RankSetup {
    /// Peer-to-peer (or no spread run): this process runs everything.
    Plain,
    /// Not a rank yet: the ranks were started and have ended (whether all succeeded).
    Launched(bool),
    /// A rank of an NVSHMEM run over `n` devices, joined.
    Rank(usize, atos::Gpus),
}

/// `--transport nvshmem`: every rank runs this same bench. The spread configurations run in
/// lockstep (their uploads, runs and frees are collectives); rank 0 alone runs the one-device
/// ones, prints and writes. Started outside a run, the bench starts its ranks here and waits
/// for them.
fn nvshmem_rank(args: &BenchArgs, device_counts: &[usize]) -> Result<RankSetup, String> {
    if args.transport != Transport::Nvshmem {
        return Ok(RankSetup::Plain);
    }
    let spread: Vec<usize> = device_counts.iter().copied().filter(|&d| d > 1).collect();
    let [n] = spread[..] else {
        return Err(format!(
            "--transport nvshmem runs one spread device count per call (the ranks of one NVSHMEM run): give --devices N or --devices 1,N, not {device_counts:?}"
        ));
    };
    if args.device == DeviceArg::Cpu || args.spread_one {
        return Err(
            "--transport nvshmem runs on GPUs, with several devices (not --device cpu or --spread-one)".into(),
        );
    }
    match atos::gpu::nvshmem::RankEnv::from_env().map_err(|e| e.to_string())? {
        None => {
            let argv: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
            // Ranks past 0 wait at the next collective while rank 0 runs a graph's one-device
            // configurations (each up to warm-up + runs timeouts) and loads the next graph:
            // the watchdogs allow for all of that (or ATOS_BOOTSTRAP_TIMEOUT).
            let plain = args.strategy.len().max(1)
                * args.queue.len().max(1)
                * args.grid.len().max(1)
                * args.worker.len().max(1)
                * args.fetch.len().max(1);
            // The ranks read the same variable and refuse a bad value themselves; here a bad
            // one falls back to the computed allowance, which is capped so that it stays a
            // Duration.
            let computed = atos::gpu::nvshmem::DEFAULT_TIMEOUT_S
                + args.timeout * (f64::from(args.runs) + f64::from(args.warmup)) * plain as f64;
            let timeout = std::env::var(atos::gpu::nvshmem::TIMEOUT_VAR)
                .ok()
                .and_then(|t| t.parse::<f64>().ok())
                .and_then(atos::seconds::positive_seconds)
                .unwrap_or_else(|| {
                    Duration::from_secs_f64(computed.min(atos::seconds::MAX_SECONDS))
                });
            crate::launch::launch(n as u32, &argv, timeout, args.share_gpus)
                .map(RankSetup::Launched)
        }
        Some(env) if env.ranks as usize != n => Err(format!(
            "this rank is one of {} but --devices asks for {n}",
            env.ranks
        )),
        Some(env) => atos::Gpus::join(&env)
            .map(|gpus| RankSetup::Rank(n, gpus))
            .map_err(|e| e.to_string()),
    }
}

/// A spread record's transport in the table: " nvshmem", or nothing for peer-to-peer.
fn transport_of(r: &Record) -> &'static str {
    match r.transport() {
        "nvshmem" => " nvshmem",
        _ => "",
    }
}

/// Runs one original binary with one idle count `warmup + runs` times (a process each) and fills
/// `rec`. Wrong or crashed runs are counted, never timed; the row is `failed` if any run was.
#[allow(clippy::too_many_arguments)]
fn run_original(
    rec: &mut Record,
    bin: &OriginalBinary,
    path: &Path,
    csr: &Path,
    idle: u64,
    epsilon: f32,
    opts: &RunOpts,
    device: &str,
) {
    rec.executor = "gpu".into();
    rec.device = device.into();
    rec.strategy = bin.strategy.into();
    rec.worker = bin.worker.into();
    rec.fetch = bin.fetch;
    rec.queue = "original".into();
    rec.binary = Some(bin.label.into());
    rec.idle = Some(idle);
    rec.runs = opts.runs;
    rec.warmup = opts.warmup;
    rec.timeout_s = opts.timeout.as_secs_f64();
    let mut wrong = 0u64;
    let mut crashed = 0u64;
    let mut first_problem = None;
    let mut workloads = Vec::new();
    let mut colors = Vec::new();
    let mut rank_errors = Vec::new();
    for i in 0..opts.warmup + opts.runs {
        let mut p = original::run_once(path, bin, csr, idle, rec.source, epsilon, opts.timeout);
        // PageRank: the original's rank error against its own CPU push code, judged by the
        // bound two converged answers can differ by.
        if let (Verdict::Ok { .. }, Some(e), Some(bound)) =
            (&p.verdict, p.rank_error, rec.rank_bound)
            && e > 2.0 * bound
        {
            p.verdict = Verdict::Wrong {
                reason: format!(
                    "its ranks differ from its own CPU code's by {e:.3e} (L1), more than twice the tolerance's bound {bound:.3e}"
                ),
            };
        }
        match p.verdict {
            Verdict::Ok { time_ms } => {
                if i >= opts.warmup {
                    rec.times_ms.push(time_ms);
                }
                workloads.extend(p.workload.map(|w| w as f64));
                colors.extend(p.colors.map(|c| c as f64));
                rank_errors.extend(p.rank_error);
            }
            Verdict::Wrong { reason } => {
                wrong += 1;
                first_problem.get_or_insert(reason);
            }
            Verdict::Crashed { reason } => {
                crashed += 1;
                first_problem.get_or_insert(reason);
            }
        }
    }
    rec.colors = median(&colors).map(|c| c as u64);
    rec.rank_l1 = median(&rank_errors);
    let total = (opts.warmup + opts.runs) as u64;
    rec.runs_failed = wrong + crashed;
    rec.summarize_times();
    if let Some(w) = median(&workloads) {
        rec.popped = Some(w as u64);
        rec.workload_ratio = Some(w / rec.reached.max(1) as f64);
    }
    if rec.runs_failed == 0 {
        rec.status = Status::Ok;
        rec.verified = true;
    } else {
        rec.status = Status::Failed;
        rec.verified = false;
        rec.error = Some(format!(
            "{wrong} of {total} runs wrong, {crashed} crashed; first: {}",
            first_problem.unwrap_or_default()
        ));
    }
}

fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let t: String = s.chars().take(max.saturating_sub(3)).collect();
        format!("{t}...")
    }
}

/// The app's measure of the answer: PageRank's L1 distance (to power iteration for atos
/// rows, to the original's own CPU code for original rows), colouring's colour count (and CPU
/// greedy's, and the split's degree); `-` for BFS (depths are right or the row failed).
fn answer(r: &Record) -> String {
    if let Some(c) = r.colors {
        let split = match r.split_degree {
            Some(d) => {
                let fetch = match r.split_big_fetch {
                    Some(f) if f != 1 => format!(", hubs fetch {f}"),
                    _ => String::new(),
                };
                let skip = match r.tie_skip {
                    Some(k) if k > 0 => format!(", tie skip {k}"),
                    _ => String::new(),
                };
                let windows = if r.hub_windows == Some(true) {
                    ", hub windows"
                } else {
                    ""
                };
                let order = if r.hubs_by_degree == Some(true) {
                    ", hubs by degree"
                } else {
                    ""
                };
                let fused = if r.fused_check == Some(true) {
                    ", fused check"
                } else {
                    ""
                };
                format!(", split {d}{fetch}{skip}{windows}{order}{fused}")
            }
            None if r.inline_check == Some(true) => ", check inline".into(),
            None => String::new(),
        };
        return match r.greedy_colors {
            Some(g) => format!("{c} colours (greedy {g}{split})"),
            None => format!("{c} colours{split}"),
        };
    }
    match (r.rank_l1, r.rank_bound) {
        // `+ 0.0` turns a -0 (an empty graph's sum) into 0.
        (Some(l1), Some(b)) => format!("L1 {:.2e} (bound {:.2e})", l1 + 0.0, b + 0.0),
        (Some(l1), None) => format!("L1 {:.2e}", l1 + 0.0),
        _ => "-".into(),
    }
}

/// What a bench prints after its runs (and `atos report` from saved records): the records'
/// table, then for spread runs the strong-scaling table and what went between the devices.
pub fn summarize(records: &[Record], graphs: &[String], slugs: &[String]) {
    print_table(records, graphs, slugs);
    let slug = |spec: &str| slug_of(graphs, slugs, spec);
    let lines = scaling::table(&scaling::series(records), slug);
    if !lines.is_empty() {
        println!();
        lines.iter().for_each(|l| println!("{l}"));
    } else if records.iter().any(|r| r.devices.is_some_and(|d| d > 1)) {
        println!(
            "\nstrong scaling: no verified one-device run to compare with (add 1 to --devices)"
        );
    }
    let lines = traffic::table(records, slug);
    if !lines.is_empty() {
        println!();
        lines.iter().for_each(|l| println!("{l}"));
    }
}

/// The names plots and tables give `graphs` (a spec's or file's slug, made unique).
pub fn graph_slugs(graphs: &[String]) -> Vec<String> {
    plots::unique_slugs(graphs)
}

/// The SVG plots of `records` (each graph of `graphs`, named by its slug) into `dir`.
pub fn write_plots(
    dir: &Path,
    records: &[Record],
    graphs: &[String],
    slugs: &[String],
) -> Result<Vec<PathBuf>, String> {
    let graphs: Vec<(String, String)> = graphs.iter().cloned().zip(slugs.iter().cloned()).collect();
    plots::write_all(dir, &graphs, records)
        .map_err(|e| format!("writing plots into {}: {e}", dir.display()))
}

/// The plot and table name of the graph `spec` (one of `graphs`, named `slugs` in order).
fn slug_of(graphs: &[String], slugs: &[String], spec: &str) -> String {
    graphs
        .iter()
        .position(|g| g == spec)
        .map_or(spec.to_string(), |i| slugs[i].clone())
}

fn print_table(records: &[Record], graphs: &[String], slugs: &[String]) {
    if records.is_empty() {
        return;
    }
    let slug_of = |spec: &str| slug_of(graphs, slugs, spec);
    let with_grid = record::grids_vary(records);
    let header = [
        "graph",
        "impl",
        "strategy",
        "worker/fetch",
        "queue",
        "median ms",
        "MTEPS",
        "ratio",
        "launches",
        "answer",
        "verdict",
    ];
    let rows: Vec<[String; 11]> = records
        .iter()
        .map(|r| {
            let mut wf = r.worker_fetch_at(with_grid);
            if let Some(i) = r.idle {
                wf = format!("{wf} -i {i}");
            }
            let verdict = match r.status {
                Status::Ok => "ok".to_string(),
                Status::Skipped => format!("skipped: {}", r.note.as_deref().unwrap_or("")),
                Status::Failed if r.implementation == "original" => {
                    format!("WRONG {}/{} runs", r.runs_failed, r.runs + r.warmup)
                }
                Status::Failed => format!("FAILED: {}", r.error.as_deref().unwrap_or("")),
            };
            let num =
                |v: Option<f64>, prec: usize| v.map_or("-".to_string(), |v| format!("{v:.prec$}"));
            [
                slug_of(&r.graph),
                // A spread run: `atos x2` (spread over 2 devices), `atos x1` (--spread-one),
                // `atos x2 256:20` (aggregated).
                match (r.devices, r.aggregation.as_deref()) {
                    (Some(d), Some(a)) if a != "eager" => {
                        format!("{} x{d}{} {a}", r.implementation, transport_of(r))
                    }
                    (Some(d), _) => format!("{} x{d}{}", r.implementation, transport_of(r)),
                    (None, _) => r.implementation.clone(),
                },
                r.strategy.clone(),
                wf,
                // A kernel that stamps its rings (`stamped_rings`): `ring stamped`.
                match r.stamped_rings {
                    Some(true) => format!("{} stamped", r.queue),
                    _ => r.queue.clone(),
                },
                num(r.median_ms, 3),
                num(r.mteps, 1),
                num(r.workload_ratio, 3),
                r.launches.map_or("-".into(), |l| l.to_string()),
                answer(r),
                truncate(&verdict, 70),
            ]
        })
        .collect();
    let mut lines = vec![header.map(String::from).to_vec()];
    lines.extend(rows.into_iter().map(|r| r.to_vec()));
    for l in text_table::lines(&lines, |i| (5..=8).contains(&i)) {
        println!("{l}");
    }
}

#[cfg(test)]
mod share_tests {
    use super::*;

    #[test]
    fn sharing_is_turned_off_only_for_cta_groups_on_graphs_that_cannot_post() {
        let p = Strategy::Persistent;
        let cta = (Some(WorkerKind::Cta), 64);
        // A grid (largest degree 4): 64 x 4 < 16 x 256, so off; a Kronecker hub: the default.
        assert_eq!(share_for(None, cta, p, 256, 4), Some(false));
        assert_eq!(share_for(None, cta, p, 256, 162_552), None);
        assert_eq!(share_for(None, cta, p, 256, 64), None, "64 x 64 = 16 x 256");
        assert_eq!(share_for(None, cta, p, 256, 63), Some(false));
        // What the user gave always stands.
        assert_eq!(share_for(Some(true), cta, p, 256, 4), Some(true));
        assert_eq!(share_for(Some(false), cta, p, 256, 162_552), Some(false));
        // Workers and strategies that never share keep the program's default (and the
        // record's null).
        for (worker, strategy) in [
            ((Some(WorkerKind::Warp), 64), p),
            ((Some(WorkerKind::Thread), 1), p),
            (cta, Strategy::Discrete),
            (cta, Strategy::Bsp),
            ((None, 64), p),
        ] {
            assert_eq!(share_for(None, worker, strategy, 256, 4), None);
        }
    }

    /// Under a colouring split the task that could share is `check` (CTAs fetching 64),
    /// whatever `--worker`/`--fetch` give `assign`; without one, the configuration's.
    #[test]
    fn grid_is_a_configuration_on_the_gpu_only() {
        assert_eq!(grid_choices(true, &[]), vec![None]);
        assert_eq!(
            grid_choices(true, &[None, Some(264), Some(132), Some(264), None]),
            vec![None, Some(264), Some(132)]
        );
        assert_eq!(grid_choices(false, &[Some(264), Some(132)]), vec![None]);
        assert_eq!(parse_grid(" default"), Ok(None));
        assert_eq!(parse_grid("264"), Ok(Some(264)));
        for bad in ["0", "-1", "many", ""] {
            let e = parse_grid(bad).unwrap_err();
            assert!(e.contains("bad grid") && e.contains("default"), "{e}");
        }
    }

    #[test]
    fn a_colouring_split_decides_sharing_for_check() {
        let g = atos_graph::load("kron:8").unwrap();
        let warp = Config {
            devices: 1,
            spread: false,
            aggregation: atos::Aggregation::Eager,
            strategy: Strategy::Persistent,
            worker: Some(WorkerKind::Warp),
            fetch: 8,
            queue: QueueMode::Ring,
            grid: None,
        };
        let split = Prepared::Coloring(
            coloring::ColoringInput::new(
                &g,
                coloring::Form::Split(coloring::Split {
                    degree: 16,
                    big_fetch: 1,
                    tie_skip: 0,
                    hub_windows: false,
                    fused_check: false,
                    hubs_by_degree: false,
                }),
            )
            .unwrap(),
        );
        let plain =
            Prepared::Coloring(coloring::ColoringInput::new(&g, coloring::Form::Plain).unwrap());
        let cta = (Some(WorkerKind::Cta), coloring::SPLIT_CHECK_FETCH);
        assert_eq!(split.sharer(&warp), cta);
        assert_eq!(plain.sharer(&warp), (Some(WorkerKind::Warp), 8));
        // So a grid-like largest degree turns sharing off for the split, not for plain warps.
        assert_eq!(
            share_for(None, split.sharer(&warp), warp.strategy, 256, 4),
            Some(false)
        );
        assert_eq!(
            share_for(None, plain.sharer(&warp), warp.strategy, 256, 4),
            None
        );
    }
}
