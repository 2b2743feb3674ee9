//! BFS configurations: speculative BFS (`atos::apps::bfs`) on the GPU or the CPU executor, every
//! run checked against the plain CPU BFS of `atos_graph::reference`.

use std::time::Duration;

use atos::apps::bfs::{self, Executor, UNREACHED, bfs as bfs_task};
use atos::{CpuExecutor, Gpu, Program, Stats, Strategy};

use super::record::{Record, downsample, median, ms};
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
        if bad == 0 {
            return Ok(());
        }
        Err(Fail {
            error: format!(
                "{bad} of {} depths differ from the CPU reference ({run})",
                self.reference.len()
            ),
            mismatches: Some(bad as u64),
            gpu_unusable: false,
        })
    }
}

fn run_label(i: usize, warmup: usize) -> String {
    if i < warmup {
        format!("warm-up run {}", i + 1)
    } else {
        format!("timed run {}", i - warmup + 1)
    }
}

fn run_failed(e: atos::RunError, during: &str) -> Fail {
    let gpu_unusable = matches!(e, atos::RunError::Gpu(atos::GpuError::Timeout { .. }));
    Fail {
        error: format!("{during}: {e}"),
        mismatches: None,
        gpu_unusable,
    }
}

/// Fills what the last run's stats say.
fn fill_stats(rec: &mut Record, input: &BfsInput, stats: &Stats) {
    rec.device = stats.device.clone();
    rec.popped = Some(stats.popped);
    rec.pushed = Some(stats.pushed);
    rec.queue_peak = Some(stats.queue_peak);
    rec.launches = Some(stats.launches);
    rec.levels = Some(stats.levels);
    rec.grid = stats.grid.map(|(b, t)| [b, t]);
    rec.workload_ratio = Some(stats.popped as f64 / input.reached().max(1) as f64);
}

/// Why a GPU configuration cannot be built (a fetch size out of range for the worker kind, as
/// the kernel spec's own check says), so that it is skipped rather than failed.
pub fn gpu_skip_reason(gpu: &Gpu, cfg: &Config, opts: &RunOpts) -> Option<String> {
    let worker = cfg.worker?;
    let builder = Program::new(gpu, bfs_task::Task)
        .worker(worker)
        .fetch(cfg.fetch)
        .strategy(cfg.strategy)
        .block_size(opts.block);
    builder
        .spec()
        .validate(&["bfs"])
        .err()
        .map(|e| e.to_string())
}

/// One GPU configuration: compile, upload once, warm-up and timed runs on the uploaded state
/// (each run resets it on the device), every run read back and verified.
pub fn run_gpu(
    gpu: &Gpu,
    input: &BfsInput,
    cols: &[u32],
    cfg: &Config,
    opts: &RunOpts,
    rec: &mut Record,
) -> Result<(), Fail> {
    let worker = cfg.worker.expect("GPU configurations have a worker kind");
    let build = |sample: bool| {
        let mut b = Program::new(gpu, bfs_task::Task)
            .worker(worker)
            .fetch(cfg.fetch)
            .strategy(cfg.strategy)
            .block_size(opts.block)
            .timeout(opts.timeout);
        if sample {
            b = b.sample_progress(Duration::from_micros(20));
        }
        b.build()
            .map_err(|e| Fail::new(format!("building the kernel: {e}")))
    };
    let program = build(false)?;
    let (compile, origin) = program.compile_time();
    rec.compile_ms = Some(ms(compile));
    rec.compile_origin = Some(format!("{origin:?}"));
    rec.device = gpu.name().to_string();

    let depth = bfs::initial_depths(input.reference.len(), input.source);
    let state = bfs::state(&input.offsets, cols, &depth, input.capacity, cfg.queue);
    let mut dev = program
        .upload(&state)
        .map_err(|e| run_failed(e, "uploading the state"))?;
    rec.upload_ms = Some(ms(dev.upload_time()));
    rec.uploaded_bytes = Some(dev.uploaded_bytes());
    let mut walls = Vec::new();
    for i in 0..opts.warmup + opts.runs {
        let label = run_label(i, opts.warmup);
        let stats = program
            .run_on(&mut dev, &[input.source])
            .map_err(|e| run_failed(e, &label))?;
        dev.read_back()
            .map_err(|e| run_failed(e, &format!("reading back the depths of {label}")))?;
        if opts.corrupt {
            let v = input.corrupt_vertex();
            depth.view().store(v, depth.view().load(v) ^ 1);
        }
        input.verify(&depth.to_vec(), &label)?;
        if i >= opts.warmup {
            rec.times_ms.push(ms(stats.time));
            walls.extend(stats.wall.map(ms));
        }
        fill_stats(rec, input, &stats);
    }
    rec.wall_ms = median(&walls);
    drop(dev);

    if opts.timeline && cfg.strategy == Strategy::Persistent {
        let sampled = build(true)?;
        depth.fill(UNREACHED);
        depth.view().store(input.source, 0);
        let stats = sampled
            .run(&state, &[input.source])
            .map_err(|e| run_failed(e, "the timeline run"))?;
        if opts.corrupt {
            let v = input.corrupt_vertex();
            depth.view().store(v, depth.view().load(v) ^ 1);
        }
        input.verify(&depth.to_vec(), "the timeline run")?;
        rec.timeline = stats.timeline.map(|t| downsample(&t, 500));
    }
    Ok(())
}

/// One CPU configuration (`Stats::time` is wall time; the CPU executor cannot be interrupted,
/// so a run over the timeout fails the configuration when it returns).
pub fn run_cpu(
    input: &BfsInput,
    cols: &[u32],
    cfg: &Config,
    opts: &RunOpts,
    rec: &mut Record,
) -> Result<(), Fail> {
    let mut cpu = CpuExecutor::new().fetch(cfg.fetch).strategy(cfg.strategy);
    if let Some(t) = opts.cpu_threads {
        cpu = cpu.threads(t);
    }
    let exec = Executor::Cpu(&cpu);
    for i in 0..opts.warmup + opts.runs {
        let label = run_label(i, opts.warmup);
        let mut r = bfs::run(
            &exec,
            &input.offsets,
            cols,
            input.source,
            input.capacity,
            cfg.queue,
        )
        .map_err(|e| run_failed(e, &label))?;
        if opts.corrupt {
            let v = input.corrupt_vertex() as usize;
            r.depths[v] ^= 1;
        }
        input.verify(&r.depths, &label)?;
        if r.stats.time > opts.timeout {
            return Err(Fail::new(format!(
                "{label} took {:.1} s, more than the timeout of {:.1} s",
                r.stats.time.as_secs_f64(),
                opts.timeout.as_secs_f64()
            )));
        }
        if i >= opts.warmup {
            rec.times_ms.push(ms(r.stats.time));
        }
        fill_stats(rec, input, &r.stats);
    }
    Ok(())
}
