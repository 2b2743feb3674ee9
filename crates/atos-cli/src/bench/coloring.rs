//! Colouring configurations: speculative greedy colouring (`atos::apps::coloring`),
//! asynchronous under the persistent and discrete strategies, Algorithm 5 under `bsp`; every
//! run checked to be a proper colouring of every vertex, its colour count recorded beside CPU
//! first-fit's.

use atos::apps::coloring::{
    self, ColoringArrays, UNCOLORED, hub_windows, inline_check, split, split_fused,
};
use atos::codegen::WorkerKind;
use atos::{Gpu, ProgramBuilder, Seeds, Stats};
use atos_graph::reference::coloring::{ColoringOrder, greedy_coloring, validate_coloring};

use super::record::Record;
use super::runner;
use super::{Config, Fail, RunOpts};

/// Everything the configurations of one graph share.
pub struct ColoringInput {
    pub offsets: Vec<u32>,
    /// Colours of CPU first-fit greedy in vertex order.
    pub greedy_colors: u64,
    /// Which colouring program runs.
    pub form: Form,
    /// With a split, every vertex in id order, up to the split's degree and above it.
    small: Vec<u32>,
    large: Vec<u32>,
}

/// Which colouring program a bench runs: one of three (clap refuses `--inline-check` with
/// `--split-degree`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Form {
    /// [`coloring::Tasks`], every task on the configuration's worker and fetch.
    Plain,
    /// `--inline-check`: [`inline_check::Tasks`], the check inline.
    InlineCheck,
    /// `--split-degree` and what goes with it: [`split::Tasks`], the hubs coloured by
    /// `split::assign_big` (with `--hub-windows`, [`hub_windows::Tasks`]; with `--fused-check`,
    /// [`split_fused::Tasks`]).
    Split(Split),
}

impl Form {
    /// The split's settings, if the form is a split.
    pub fn split(self) -> Option<Split> {
        match self {
            Form::Split(s) => Some(s),
            _ => None,
        }
    }
}

/// A split colouring's settings (`--split-degree`, `--split-big-fetch`, `--tie-skip`,
/// `--hub-windows`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Split {
    /// Vertices of degree above it are coloured by `split::assign_big` on CTAs.
    pub degree: u32,
    /// How many vertices `assign_big` takes at a time.
    pub big_fetch: u32,
    /// The most free colours `assign_big` passes over when it re-colours (`tie_skip`).
    pub tie_skip: u32,
    /// Whether the hubs are coloured a window per task ([`hub_windows`]; `tie_skip` is then 0).
    pub hub_windows: bool,
    /// Whether each colour task checks its own vertex ([`split_fused`]; no check queue).
    pub fused_check: bool,
    /// Whether the hubs are seeded by descending degree ([`coloring::hubs_by_degree`]).
    pub hubs_by_degree: bool,
}

impl ColoringInput {
    pub fn new(g: &atos_graph::Csr, form: Form) -> Result<ColoringInput, String> {
        let offsets = g.offsets_u32().map_err(|e| e.to_string())?;
        coloring::check_graph(&offsets, &g.cols).map_err(|e| e.to_string())?;
        let greedy = greedy_coloring(g, ColoringOrder::Natural);
        let greedy_colors = validate_coloring(g, &greedy).map_err(|e| e.to_string())?;
        let (small, mut large) = match form {
            Form::Split(split) => coloring::split_seeds(&offsets, split.degree),
            _ => (Vec::new(), Vec::new()),
        };
        if form.split().is_some_and(|s| s.hubs_by_degree) {
            coloring::hubs_by_degree(&offsets, &mut large);
        }
        Ok(ColoringInput {
            offsets,
            greedy_colors,
            form,
            small,
            large,
        })
    }

    /// The task whose batches could share ranges (the bench's `share_for`): without a split,
    /// every task on the configuration's worker and fetch; with one, `check` on CTAs fetching
    /// [`SPLIT_CHECK_FETCH`] (`split_program`), whatever `assign` runs on.
    pub fn sharer(&self, cfg: &Config) -> (Option<WorkerKind>, u32) {
        match self.form {
            // No check task, and colour tasks run item by item: nothing to share.
            Form::Split(s) if s.fused_check => (None, 0),
            Form::Split(_) => (Some(WorkerKind::Cta), SPLIT_CHECK_FETCH),
            Form::Plain | Form::InlineCheck => (cfg.worker, cfg.fetch),
        }
    }
}

/// `check`'s fetch under a split: CTA batches of 64 vertices, balanced.
pub const SPLIT_CHECK_FETCH: u32 = 64;

/// Without a split, the program [`coloring::Tasks`], every task on the configuration's worker
/// kind and fetch.
fn plain(gpu: &Gpu, cfg: &Config, opts: &RunOpts) -> ProgramBuilder<coloring::Tasks> {
    runner::builder(gpu, coloring::Tasks::default(), cfg, opts)
}

/// `--inline-check`: [`inline_check::Tasks`], both tasks on the configuration's worker kind
/// and fetch (the check runs inline on a thread in persistent runs).
fn inlined(gpu: &Gpu, cfg: &Config, opts: &RunOpts) -> ProgramBuilder<inline_check::Tasks> {
    runner::builder(gpu, inline_check::Tasks::default(), cfg, opts)
}

/// With a split, [`split::Tasks`]: `assign` on the configuration's worker kind and fetch, `check`
/// on CTAs fetching 64 (balanced) and `assign_big` on CTAs fetching `big_fetch` (its attribute
/// says 1).
fn split_program(
    gpu: &Gpu,
    cfg: &Config,
    opts: &RunOpts,
    big_fetch: u32,
) -> ProgramBuilder<split::Tasks> {
    runner::builder_for(gpu, split::Tasks::default(), split::assign::Task, cfg, opts)
        .worker_for(split::check::Task, WorkerKind::Cta)
        .fetch_for(split::check::Task, SPLIT_CHECK_FETCH)
        .fetch_for(split::assign_big::Task, big_fetch)
}

/// With `--fused-check`, [`split_fused::Tasks`]: `assign` on the configuration's worker kind and
/// fetch, `assign_big` on CTAs fetching `big_fetch`; no check task.
fn fused_program(
    gpu: &Gpu,
    cfg: &Config,
    opts: &RunOpts,
    big_fetch: u32,
) -> ProgramBuilder<split_fused::Tasks> {
    runner::builder_for(
        gpu,
        split_fused::Tasks::default(),
        split_fused::assign::Task,
        cfg,
        opts,
    )
    .fetch_for(split_fused::assign_big::Task, big_fetch)
}

/// With `--hub-windows`, [`hub_windows::Tasks`], set up as [`split_program`] sets up its own.
fn windows_program(
    gpu: &Gpu,
    cfg: &Config,
    opts: &RunOpts,
    big_fetch: u32,
) -> ProgramBuilder<hub_windows::Tasks> {
    runner::builder_for(
        gpu,
        hub_windows::Tasks::default(),
        hub_windows::assign::Task,
        cfg,
        opts,
    )
    .worker_for(hub_windows::check::Task, WorkerKind::Cta)
    .fetch_for(hub_windows::check::Task, SPLIT_CHECK_FETCH)
    .fetch_for(hub_windows::assign_big::Task, big_fetch)
}

pub fn gpu_skip_reason(
    gpu: &Gpu,
    input: &ColoringInput,
    cfg: &Config,
    opts: &RunOpts,
) -> Option<String> {
    match input.form {
        Form::InlineCheck => runner::skip_reason(&inlined(gpu, cfg, opts)),
        Form::Plain => runner::skip_reason(&plain(gpu, cfg, opts)),
        Form::Split(split) if split.hub_windows => {
            runner::skip_reason(&windows_program(gpu, cfg, opts, split.big_fetch))
        }
        Form::Split(split) if split.fused_check => {
            runner::skip_reason(&fused_program(gpu, cfg, opts, split.big_fetch))
        }
        Form::Split(split) => runner::skip_reason(&split_program(gpu, cfg, opts, split.big_fetch)),
    }
}

/// One configuration on the GPU (`gpu` set) or the CPU executor.
pub fn run(
    gpu: Option<&Gpu>,
    g: &atos_graph::Csr,
    input: &ColoringInput,
    cfg: &Config,
    opts: &RunOpts,
    rec: &mut Record,
) -> Result<(), Fail> {
    let n = g.num_vertices();
    let a = ColoringArrays::new(n);
    let colors = std::cell::Cell::new(0u64);
    let verify = |label: &str| {
        let mut c = a.colors();
        if opts.corrupt && n > 0 {
            // The test hook: vertex n - 1 loses its colour.
            c[n - 1] = UNCOLORED;
        }
        let used = validate_coloring(g, &c).map_err(|e| Fail::new(format!("{e} ({label})")))?;
        colors.set(used);
        Ok(())
    };
    let reset = || a.reset();
    // Colour tasks per vertex (checks are one per colour task of a vertex with edges). With hub
    // windows a hub's colouring is several tasks of `work_big`, and only the last queues a
    // check: there the checks count the colourings of vertices with edges, and a vertex without
    // is coloured once (no check can queue it again).
    let popped = |s: &Stats, q: &str| s.queue(q).map_or(0, |q| q.popped);
    let windows = input.form.split().is_some_and(|s| s.hub_windows);
    let isolated = coloring::vertices_without_edges(&input.offsets);
    let workload = |s: &Stats| {
        let colourings = if windows {
            popped(s, "check") + isolated
        } else {
            popped(s, "work") + popped(s, "work_big")
        };
        colourings as f64 / n.max(1) as f64
    };
    let checks = runner::Checks {
        verify: &verify,
        reset: &reset,
        workload: &workload,
    };
    let result = match input.form {
        Form::InlineCheck => {
            let state = a.state(&input.offsets, &g.cols);
            let app = checks.app(
                &state,
                Seeds::new().add(inline_check::assign::Task, &a.seeds),
            );
            runner::run(gpu, &|gpu| inlined(gpu, cfg, opts), &app, cfg, opts, rec)
        }
        Form::Plain => {
            let state = a.state(&input.offsets, &g.cols);
            let app = checks.app(&state, Seeds::new().add(coloring::assign::Task, &a.seeds));
            runner::run(gpu, &|gpu| plain(gpu, cfg, opts), &app, cfg, opts, rec)
        }
        Form::Split(split) if split.hub_windows => {
            let state = a.state_hub_windows(&input.offsets, &g.cols, split.degree);
            let hubs = hub_windows::hub_seeds(&input.large);
            let seeds = Seeds::new()
                .add(hub_windows::assign::Task, &input.small)
                .add(hub_windows::assign_big::Task, &hubs);
            let build = |gpu: &Gpu| windows_program(gpu, cfg, opts, split.big_fetch);
            runner::run(gpu, &build, &checks.app(&state, seeds), cfg, opts, rec)
        }
        Form::Split(split) if split.fused_check => {
            let mut state = a.state_split_fused(&input.offsets, &g.cols, split.degree);
            state.tie_skip = split.tie_skip;
            let seeds = Seeds::new()
                .add(split_fused::assign::Task, &input.small)
                .add(split_fused::assign_big::Task, &input.large);
            let build = |gpu: &Gpu| fused_program(gpu, cfg, opts, split.big_fetch);
            runner::run(gpu, &build, &checks.app(&state, seeds), cfg, opts, rec)
        }
        Form::Split(split) => {
            let mut state = a.state_split(&input.offsets, &g.cols, split.degree);
            state.tie_skip = split.tie_skip;
            let seeds = Seeds::new()
                .add(split::assign::Task, &input.small)
                .add(split::assign_big::Task, &input.large);
            let build = |gpu: &Gpu| split_program(gpu, cfg, opts, split.big_fetch);
            runner::run(gpu, &build, &checks.app(&state, seeds), cfg, opts, rec)
        }
    };
    if result.is_ok() {
        rec.colors = Some(colors.get());
    }
    result
}
