//! The run loop every app shares: build (GPU) or configure (CPU) the program, then warm-up and
//! timed runs, each read back and verified by the app, stats into the record.

use std::time::Duration;

use atos::{CpuExecutor, Gpu, Program, ProgramBuilder, Seeds, Stats, Strategy, Task, TaskSet};

use super::record::{Record, downsample, median, ms};
use super::{Config, Fail, RunOpts};

/// What an app gives the loop for one configuration.
pub struct AppRun<'x, 's, P: TaskSet> {
    /// The state, whose `Atomics` hold the run's start values.
    pub state: &'x P::State<'s>,
    pub seeds: Seeds,
    pub checks: Checks<'x>,
}

/// What an app checks and counts of every run, whichever of its programs runs.
#[derive(Clone, Copy)]
pub struct Checks<'x> {
    /// Checks the host arrays after a run (read back on the GPU); the string names the run.
    pub verify: &'x dyn Fn(&str) -> Result<(), Fail>,
    /// Puts the host arrays back to the run's start values (CPU runs and the GPU timeline run
    /// start from the host arrays).
    pub reset: &'x dyn Fn(),
    /// Tasks per vertex (or per reached vertex) from a run's stats.
    pub workload: &'x dyn Fn(&Stats) -> f64,
}

impl<'x> Checks<'x> {
    /// The run of `state` from `seeds` with these checks.
    pub fn app<'s, P: TaskSet>(self, state: &'x P::State<'s>, seeds: Seeds) -> AppRun<'x, 's, P> {
        AppRun {
            state,
            seeds,
            checks: self,
        }
    }
}

pub fn run_label(i: usize, warmup: usize) -> String {
    if i < warmup {
        format!("warm-up run {}", i + 1)
    } else {
        format!("timed run {}", i - warmup + 1)
    }
}

pub fn run_failed(e: atos::RunError, during: &str) -> Fail {
    let gpu_unusable = matches!(e, atos::RunError::Gpu(atos::GpuError::Timeout { .. }));
    Fail {
        error: format!("{during}: {e}"),
        mismatches: None,
        gpu_unusable,
    }
}

fn fill_stats<P: TaskSet>(rec: &mut Record, app: &AppRun<'_, '_, P>, stats: &Stats) {
    rec.device = stats.device.clone();
    rec.popped = Some(stats.popped);
    rec.pushed = Some(stats.pushed);
    rec.queue_peak = Some(stats.queue_peak);
    rec.helped = Some(stats.queues.iter().map(|q| q.helped).sum());
    rec.launches = Some(stats.launches);
    rec.levels = Some(stats.levels);
    rec.grid = stats.grid.map(|(b, t)| [b, t]);
    rec.workload_ratio = Some((app.checks.workload)(stats));
    let priority_sum = |f: fn(&atos::stats::PriorityStats) -> u64| {
        stats.priority.iter().map(f).reduce(|a, b| a + b)
    };
    rec.advances = priority_sum(|p| p.advances);
    rec.far_examined = priority_sum(|p| p.examined);
    rec.far_moved = priority_sum(|p| p.moved);
    if !stats.devices.is_empty() {
        rec.remote_items = Some(stats.devices.iter().map(|d| d.sent).sum());
        rec.remote_bytes = Some(stats.devices.iter().map(|d| d.received_bytes).sum());
        rec.device_tasks = Some(stats.devices.iter().map(|d| d.tasks).collect());
        rec.device_remote_ops = stats.devices.iter().map(|d| d.remote_ops).collect();
        rec.device_delivered = Some(stats.devices.iter().map(|d| d.delivered).collect());
    }
}

/// The program with the configuration's strategy, block size and timeout, and its worker kind
/// and fetch for every task.
pub fn builder<P: TaskSet>(gpu: &Gpu, tasks: P, cfg: &Config, opts: &RunOpts) -> ProgramBuilder<P> {
    let mut b = base(gpu, tasks, cfg, opts).fetch(cfg.fetch);
    if let Some(w) = cfg.worker {
        b = b.worker(w);
    }
    b
}

/// The same, with the worker kind and fetch for `task` only: the program's other tasks keep
/// their attributes (PageRank's re-scan and filter).
pub fn builder_for<P: TaskSet, T: Task + Copy>(
    gpu: &Gpu,
    tasks: P,
    task: T,
    cfg: &Config,
    opts: &RunOpts,
) -> ProgramBuilder<P> {
    let mut b = base(gpu, tasks, cfg, opts).fetch_for(task, cfg.fetch);
    if let Some(w) = cfg.worker {
        b = b.worker_for(task, w);
    }
    b
}

fn base<P: TaskSet>(gpu: &Gpu, tasks: P, cfg: &Config, opts: &RunOpts) -> ProgramBuilder<P> {
    let b = Program::new(gpu, tasks)
        .strategy(cfg.strategy)
        .block_size(opts.block)
        .min_blocks(opts.min_blocks)
        // Only the priority apps resolve `park` (`RunOpts::park`). FIFO SSSP's queue is a
        // priority queue left unordered: it never pushes to the next ring, so parking there would
        // only add its code (a barrier per batch, shared arrays) to the kernel the priority run's
        // is compared with.
        .park(opts.park.unwrap_or(false))
        .timeout(opts.timeout);
    let b = match opts.share {
        Some(on) => b.share(on),
        None => b,
    };
    // Only when asked: a build left alone keeps the runtime's default.
    let b = match opts.stamped_rings {
        Some(on) => b.stamped_rings(on),
        None => b,
    };
    let b = match opts.idle_nap {
        Some(ns) => b.idle_nap_ns(ns),
        None => b,
    };
    let b = match opts.idle_nap_doublings {
        Some(k) => b.idle_nap_doublings(k),
        None => b,
    };
    match cfg.grid {
        Some(blocks) => b.grid(blocks),
        None => b,
    }
}

/// Runs one configuration on the GPU when `gpu` is set (built by `build`), else on the CPU
/// executor.
pub fn run<P: TaskSet + Default>(
    gpu: Option<&Gpu>,
    build: &dyn Fn(&Gpu) -> ProgramBuilder<P>,
    app: &AppRun<'_, '_, P>,
    cfg: &Config,
    opts: &RunOpts,
    rec: &mut Record,
) -> Result<(), Fail> {
    match (gpu, opts.gpus.get(&cfg.devices), &opts.placement) {
        (Some(_), Some(gpus), Some(placement)) => {
            mesh(gpus, &|| build(gpus.gpu(0)), app, placement, opts, rec)
        }
        (Some(gpu), _, _) => self::gpu(&|| build(gpu), app, cfg.strategy, opts, rec),
        (None, _, _) => cpu(app, cfg, opts, rec),
    }
}

/// A record's kernel resources (`Program::resources`); left out if the driver cannot say.
fn note_resources(rec: &mut Record, res: Result<atos::KernelResources, atos::GpuError>) {
    if let Ok(r) = res {
        rec.registers = Some(r.registers);
        rec.local_bytes = Some(r.local_bytes);
        rec.blocks_per_sm = Some(r.blocks_per_sm);
    }
}

/// A record's `unit`: the first 16 hex digits of the compiled unit's identity (none if NVRTC's
/// version could not be read, which the build before it would have failed on).
fn unit_short(id: Result<String, atos::GpuError>) -> Option<String> {
    id.ok().map(|id| id[..16].to_string())
}

/// One configuration spread over several GPUs: compile once, upload by the placement, then
/// warm-up and timed runs, each read back and verified.
fn mesh<P: TaskSet>(
    gpus: &atos::Gpus,
    builder: &dyn Fn() -> ProgramBuilder<P>,
    app: &AppRun<'_, '_, P>,
    placement: &atos::Placement,
    opts: &RunOpts,
    rec: &mut Record,
) -> Result<(), Fail> {
    let mut program = builder()
        .build_mesh(gpus)
        .map_err(|e| Fail::new(format!("building the kernel: {e}")))?;
    program.set_aggregation(opts.aggregation);
    if let Some(on) = opts.combine {
        program.set_combining(on);
    }
    program.set_drain(opts.drain);
    rec.unit = unit_short(program.unit_id());
    note_resources(rec, program.resources());
    let (compile, origin) = program.compile_time();
    rec.compile_ms = Some(ms(compile));
    rec.compile_origin = Some(format!("{origin:?}"));
    rec.combining = atos::program::accumulates::<P>().then(|| program.combining());
    rec.combine_drain = (rec.combining == Some(true)).then_some(opts.drain);
    let dev = program
        .upload(app.state, placement)
        .map_err(|e| run_failed(e, "uploading the state"))?;
    rec.upload_ms = Some(ms(dev.upload_time()));
    let run = |program: &atos::MeshProgram<P>, label: &str| {
        let stats = program
            .run_seeds_on(&dev, &app.seeds)
            .map_err(|e| run_failed(e, label))?;
        dev.read_back()
            .map_err(|e| run_failed(e, &format!("reading back the results of {label}")))?;
        Ok(stats)
    };
    timed_runs(app, opts, rec, |label| run(&program, label))?;
    // Peer-to-peer only: an NVSHMEM rank's host does not sample (docs/bench.md, "Between
    // devices"). One more run on the same state, after the warm ones, verified, not timed.
    // Sampling is best-effort: a run that failed otherwise than by a timeout or a wrong answer
    // keeps the configuration's times and says why in its note.
    if opts.timeline && gpus.world().is_none() {
        program.set_sampling(Some(Duration::from_micros(20)));
        let label = "the timeline run";
        let stats = match run(&program, label) {
            Ok(stats) => stats,
            Err(f) if f.gpu_unusable => return Err(f),
            Err(f) => {
                rec.note = Some(format!("no timeline: {}", f.error));
                return Ok(());
            }
        };
        (app.checks.verify)(label)?;
        if let Some(e) = &stats.progress_error {
            rec.note = Some(format!("no timeline: sampling stopped: {e}"));
        }
        let samples: Vec<Vec<(u64, u64)>> =
            stats.devices.iter().map(|d| d.progress.clone()).collect();
        if let Some(p) = super::traffic::Progress::of(&samples) {
            rec.device_active = Some(p.active);
            rec.end_tail_ms = Some(p.tail_ms);
            rec.last_items_ms = Some(p.last_items_ms);
            rec.sample_gap_us = Some(p.gap_us);
            rec.device_progress = Some(
                samples
                    .iter()
                    .map(|s| {
                        let us: Vec<(f64, u64)> =
                            s.iter().map(|&(ns, c)| (ns as f64 / 1e3, c)).collect();
                        downsample(&us, 500)
                    })
                    .collect(),
            );
        } else if rec.note.is_none() {
            rec.note = Some("no timeline: the run ended before a second sample".into());
        }
    }
    Ok(())
}

/// The warm-up and timed runs of one configuration: `run_once` runs (and reads back) one run
/// named by its label; every run is verified, then held to the timeout (a GPU kernel and a CPU
/// run are stopped at it already; a run that ended just past it fails here), the timed ones
/// recorded.
fn timed_runs<P: TaskSet>(
    app: &AppRun<'_, '_, P>,
    opts: &RunOpts,
    rec: &mut Record,
    mut run_once: impl FnMut(&str) -> Result<Stats, Fail>,
) -> Result<(), Fail> {
    let mut walls = Vec::new();
    for i in 0..opts.warmup + opts.runs {
        let label = run_label(i, opts.warmup);
        let stats = run_once(&label)?;
        (app.checks.verify)(&label)?;
        if stats.time > opts.timeout {
            return Err(Fail::new(format!(
                "{label} took {:?}, more than the timeout of {:?}",
                stats.time, opts.timeout
            )));
        }
        if i >= opts.warmup {
            rec.times_ms.push(ms(stats.time));
            walls.extend(stats.wall.map(ms));
        }
        fill_stats(rec, app, &stats);
    }
    rec.wall_ms = median(&walls);
    Ok(())
}

/// Why a GPU configuration cannot be built (a fetch size out of range for a worker kind, as
/// the kernel spec's own check says), so that it is skipped rather than failed.
pub fn skip_reason<P: TaskSet>(builder: &ProgramBuilder<P>) -> Option<String> {
    let names: Vec<String> = P::irs().iter().map(|ir| ir.name.clone()).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    builder.spec().validate(&names).err().map(|e| e.to_string())
}

/// One GPU configuration: compile, upload once, warm-up and timed runs on the uploaded state
/// (each run resets it on the device), every run read back and verified; with `--timeline`
/// (persistent only) one more run sampling progress, verified, never timed.
fn gpu<P: TaskSet>(
    builder: &dyn Fn() -> ProgramBuilder<P>,
    app: &AppRun<'_, '_, P>,
    strategy: Strategy,
    opts: &RunOpts,
    rec: &mut Record,
) -> Result<(), Fail> {
    let build = |sample: bool| {
        let mut b = builder();
        if sample {
            b = b.sample_progress(Duration::from_micros(20));
        }
        b.build()
            .map_err(|e| Fail::new(format!("building the kernel: {e}")))
    };
    let program = build(false)?;
    // What the kernel was built with: the flag, else the environment, else the default rule
    // (some task on thread or warp workers), where the program stamps its rings at all (one
    // GPU, persistent, no priority queue).
    rec.stamped_rings = program.stamps_rings().then_some(true);
    rec.unit = unit_short(program.unit_id());
    note_resources(rec, program.resources());
    let (compile, origin) = program.compile_time();
    rec.compile_ms = Some(ms(compile));
    rec.compile_origin = Some(format!("{origin:?}"));

    let mut dev = program
        .upload(app.state)
        .map_err(|e| run_failed(e, "uploading the state"))?;
    rec.upload_ms = Some(ms(dev.upload_time()));
    rec.uploaded_bytes = Some(dev.uploaded_bytes());
    timed_runs(app, opts, rec, |label| {
        let stats = program
            .run_seeds_on(&mut dev, &app.seeds)
            .map_err(|e| run_failed(e, label))?;
        dev.read_back()
            .map_err(|e| run_failed(e, &format!("reading back the results of {label}")))?;
        Ok(stats)
    })?;
    rec.device_bytes = Some(dev.device_bytes());
    drop(dev);

    if opts.timeline && strategy == Strategy::Persistent {
        let sampled = build(true)?;
        (app.checks.reset)();
        let stats = sampled
            .run_seeds(app.state, &app.seeds)
            .map_err(|e| run_failed(e, "the timeline run"))?;
        (app.checks.verify)("the timeline run")?;
        rec.timeline = stats.timeline.map(|t| downsample(&t, 500));
        // The same points of each queue's series as of the total's.
        rec.timeline_queues = stats.timeline_queues.map(|qs| {
            qs.into_iter()
                .map(|(name, done)| (name, downsample(&done, 500)))
                .collect()
        });
    }
    if opts.phases && strategy == Strategy::Persistent {
        let traced = builder()
            .trace_phases(true)
            .build()
            .map_err(|e| Fail::new(format!("building the traced kernel: {e}")))?;
        (app.checks.reset)();
        let stats = traced
            .run_seeds(app.state, &app.seeds)
            .map_err(|e| run_failed(e, "the traced run"))?;
        (app.checks.verify)("the traced run")?;
        rec.phases_us = stats.phases.map(|p| {
            [
                p.last_work_us,
                p.stop_seen_us,
                p.exit_us,
                stats.time.as_secs_f64() * 1e6,
            ]
        });
    }
    Ok(())
}

/// One CPU configuration (`Stats::time` is wall time; a run still going at the timeout is
/// stopped by the executor, `RunError::TimedOut`, and fails the configuration).
fn cpu<P: TaskSet + Default>(
    app: &AppRun<'_, '_, P>,
    cfg: &Config,
    opts: &RunOpts,
    rec: &mut Record,
) -> Result<(), Fail> {
    let mut cpu = CpuExecutor::new()
        .fetch(cfg.fetch)
        .strategy(cfg.strategy)
        .timeout(opts.timeout);
    if let Some(t) = opts.cpu_threads {
        cpu = cpu.threads(t);
    }
    if let Some(p) = &opts.placement {
        cpu = cpu
            .placement(p.clone())
            .aggregation(opts.aggregation)
            .combining(opts.combine.unwrap_or(true))
            .drain(opts.drain);
        rec.combining = atos::program::accumulates::<P>().then(|| opts.combine.unwrap_or(true));
        rec.combine_drain = (rec.combining == Some(true)).then_some(opts.drain);
    }
    timed_runs(app, opts, rec, |label| {
        (app.checks.reset)();
        let stats = cpu
            .run_seeds(P::default(), app.state, &app.seeds)
            .map_err(|e| run_failed(e, label))?;
        Ok(stats)
    })
}
