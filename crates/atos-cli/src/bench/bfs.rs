//! BFS configurations: speculative BFS (`atos::apps::bfs`) on the GPU or the CPU executor, every
//! run checked against the plain CPU BFS of `atos_graph::reference`.

use atos::apps::bfs::{self, UNREACHED, bfs as bfs_task};
use atos::apps::bfs_owner;
use atos::apps::bfs_priority::{self, visit};
use atos::{Gpu, Seeds, Stats, Task, TaskSet};

use super::record::Record;
use super::runner;
use super::{Config, Fail, RunOpts};

/// Everything the configurations of one graph share.
pub struct BfsInput {
    pub offsets: Vec<u32>,
    pub reference: Vec<u32>,
    pub source: u32,
    pub capacity: u64,
}

impl BfsInput {
    pub fn new(g: &atos_graph::Csr, source: u32) -> Result<BfsInput, String> {
        let n = g.num_vertices();
        if source as usize >= n {
            return Err(format!(
                "source {source} is not a vertex of this graph ({n} vertices)"
            ));
        }
        let offsets = g.offsets_u32().map_err(|e| e.to_string())?;
        Ok(BfsInput {
            offsets,
            reference: atos_graph::reference::bfs::bfs_depths(g, source),
            source,
            capacity: bfs::default_queue_capacity(n, g.num_edges()),
        })
    }

    pub fn reached(&self) -> u64 {
        self.reference.iter().filter(|&&d| d != UNREACHED).count() as u64
    }

    pub fn max_depth(&self) -> u32 {
        self.reference
            .iter()
            .copied()
            .filter(|&d| d != UNREACHED)
            .max()
            .unwrap_or(0)
    }

    /// The vertex the `ATOS_BENCH_CORRUPT` test hook changes.
    fn corrupt_vertex(&self) -> u32 {
        (self.reference.len() - 1) as u32
    }

    fn verify(&self, depths: &[u32], run: &str) -> Result<(), Fail> {
        let bad = bfs::mismatches(depths, &self.reference);
        Fail::check_mismatches(
            bad,
            self.reference.len(),
            "depths",
            "the CPU reference",
            run,
        )
    }
}

/// Why a GPU configuration cannot be built, so that it is skipped rather than failed.
pub fn gpu_skip_reason(gpu: &Gpu, cfg: &Config, opts: &RunOpts) -> Option<String> {
    runner::skip_reason(&runner::builder(gpu, bfs_task::Task, cfg, opts))
}

/// One configuration on the GPU (`gpu` set) or the CPU executor: every run verified.
pub fn run(
    gpu: Option<&Gpu>,
    input: &BfsInput,
    cols: &[u32],
    cfg: &Config,
    opts: &RunOpts,
    rec: &mut Record,
) -> Result<(), Fail> {
    let depth = bfs::initial_depths(input.reference.len(), input.source);
    let state = bfs::state(&input.offsets, cols, &depth, input.capacity, cfg.queue);
    run_task(gpu, bfs_task::Task, &state, &depth, input, cfg, opts, rec)
}

/// BFS with the depth as priority (`atos::apps::bfs_priority`), the threshold advancing by
/// `delta` levels with `slack` near items allowed in flight.
pub fn run_priority(
    gpu: Option<&Gpu>,
    input: &BfsInput,
    (delta, slack): (u32, u64),
    cols: &[u32],
    cfg: &Config,
    opts: &RunOpts,
    rec: &mut Record,
) -> Result<(), Fail> {
    let depth = bfs::initial_depths(input.reference.len(), input.source);
    let mut state = bfs_priority::state(&input.offsets, cols, &depth, input.capacity, delta);
    state.work = state.work.advance_slack(slack);
    run_task(gpu, visit::Task, &state, &depth, input, cfg, opts, rec)
}

/// Runs a BFS task (either form) over `state`, whose depths are `depth`, from the source.
#[allow(clippy::too_many_arguments)]
fn run_task<T: Task<Item = u32> + TaskSet + Default>(
    gpu: Option<&Gpu>,
    task: T,
    state: &<T as TaskSet>::State<'_>,
    depth: &atos::AtomicArray<u32>,
    input: &BfsInput,
    cfg: &Config,
    opts: &RunOpts,
    rec: &mut Record,
) -> Result<(), Fail> {
    let (verify, reset, workload) = checks(input, depth, opts);
    let checks = runner::Checks {
        verify: &verify,
        reset: &reset,
        workload: &workload,
    };
    let app = checks.app(state, Seeds::new().add(task, &[input.source]));
    let build = |gpu: &Gpu| runner::builder(gpu, task, cfg, opts);
    runner::run(gpu, &build, &app, cfg, opts, rec)
}

/// Owner-computes BFS (`atos::apps::bfs_owner`): `visit` takes the configuration's worker
/// and fetch, the inline `relax` keeps its own (thread workers, 64 items). The workload ratio
/// counts `visit` tasks only (the offers are edges).
pub fn run_owner(
    gpu: Option<&Gpu>,
    input: &BfsInput,
    cols: &[u32],
    cfg: &Config,
    opts: &RunOpts,
    rec: &mut Record,
) -> Result<(), Fail> {
    let depth = bfs::initial_depths(input.reference.len(), input.source);
    let state = bfs_owner::state(&input.offsets, cols, &depth, input.capacity, cfg.queue);
    let (verify, reset, _) = checks(input, &depth, opts);
    let reached = input.reached();
    let checks = runner::Checks {
        verify: &verify,
        reset: &reset,
        workload: &|s: &Stats| bfs_owner::workload_ratio(s, reached),
    };
    let app = checks.app(
        &state,
        Seeds::new().add(bfs_owner::visit::Task, &[input.source]),
    );
    runner::run(gpu, &|g| owner_builder(g, cfg, opts), &app, cfg, opts, rec)
}

fn owner_builder(
    gpu: &Gpu,
    cfg: &Config,
    opts: &RunOpts,
) -> atos::ProgramBuilder<bfs_owner::Tasks> {
    runner::builder_for(
        gpu,
        bfs_owner::Tasks::default(),
        bfs_owner::visit::Task,
        cfg,
        opts,
    )
}

/// Why an owner-computes BFS configuration cannot be built on the GPU.
pub fn gpu_skip_reason_owner(gpu: &Gpu, cfg: &Config, opts: &RunOpts) -> Option<String> {
    runner::skip_reason(&owner_builder(gpu, cfg, opts))
}

/// Why a priority BFS configuration cannot be built on the GPU.
pub fn gpu_skip_reason_priority(gpu: &Gpu, cfg: &Config, opts: &RunOpts) -> Option<String> {
    runner::skip_reason(&runner::builder(gpu, visit::Task, cfg, opts))
}

type Check<'a> = Box<dyn Fn(&str) -> Result<(), Fail> + 'a>;

/// What both BFS forms do around a run: verify the depths (with the corrupting test hook),
/// reset them, and the workload ratio.
fn checks<'a>(
    input: &'a BfsInput,
    depth: &'a atos::AtomicArray<u32>,
    opts: &'a RunOpts,
) -> (Check<'a>, impl Fn() + 'a, impl Fn(&Stats) -> f64 + 'a) {
    let verify = move |label: &str| {
        if opts.corrupt {
            let v = input.corrupt_vertex();
            depth.view().store(v, depth.view().load(v) ^ 1);
        }
        input.verify(&depth.to_vec(), label)
    };
    let reset = move || {
        depth.fill(UNREACHED);
        depth.view().store(input.source, 0);
    };
    let reached = input.reached().max(1) as f64;
    let workload = move |s: &Stats| s.popped as f64 / reached;
    (Box::new(verify), reset, workload)
}
