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
use atos::{Gpu, Program, RunError};
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
    #[arg(long, default_value_t = 5)]
    runs: usize,
    /// Large generated graphs for the timed part.
    #[arg(long = "graph", default_values = ["grid:4096x4096", "kron:20"])]
    graphs: Vec<String>,
}

type Programs = HashMap<(WorkerKind, u32, u32, Option<u32>), Program<bfs_task::Task>>;

fn program<'a>(
    gpu: &Gpu,
    cache: &'a mut Programs,
    w: WorkerKind,
    fetch: u32,
    block: u32,
    grid: Option<u32>,
    timeout: Duration,
) -> &'a Program<bfs_task::Task> {
    cache.entry((w, fetch, block, grid)).or_insert_with(|| {
        let mut b = Program::new(gpu, bfs_task::Task)
            .worker(w)
            .fetch(fetch)
            .block_size(block)
            .timeout(timeout);
        if let Some(g) = grid {
            b = b.grid(g);
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

#[path = "../tests/common/features.rs"]
mod features;

/// Runs the feature task over a 20 000-task binary tree; returns (sums, flags, mass bits).
fn features_run(
    program: Option<&Program<features::features::Task>>,
) -> (Vec<i64>, Vec<u32>, Vec<u32>) {
    use atos::{AtomicArray, Queue, Slice};
    let weights: Vec<i32> = (0..97).map(|i| (i * 37 % 211) - 100).collect();
    let limit = 20_000u32;
    let sums = AtomicArray::<i64>::filled(limit as usize, 0);
    let flags = AtomicArray::<u32>::filled(limit as usize, 0);
    let mass = AtomicArray::<f32>::filled(limit as usize, 0.0);
    let state = features::Features {
        weights: Slice::new(&weights),
        sums: sums.view(),
        flags: flags.view(),
        mass: mass.view(),
        work: Queue::with_capacity(u64::from(limit)),
        limit,
        scale: 3.0,
    };
    let stats = match program {
        Some(p) => p.run(&state, &[0]).unwrap(),
        None => atos::CpuExecutor::new()
            .run(features::features::Task, &state, &[0])
            .unwrap(),
    };
    assert_eq!(stats.popped, u64::from(limit));
    (
        sums.to_vec(),
        flags.to_vec(),
        mass.to_vec().iter().map(|m| m.to_bits()).collect(),
    )
}

fn main() {
    let args = Args::parse();
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
    let configs = [
        (WorkerKind::Thread, 1u32),
        (WorkerKind::Warp, 1),
        (WorkerKind::Warp, 4),
        (WorkerKind::Cta, 64),
        (WorkerKind::Cta, 8),
    ];
    println!(
        "\n== BFS: depths vs CPU reference, median of {} runs after 1 warm-up (CUDA events) ==",
        args.runs
    );
    println!(
        "{:<24} {:<12} {:>10} {:>9} {:>8} {:>8}  result",
        "graph", "worker", "median ms", "MTEPS", "ratio", "spread"
    );
    for (name, g) in &graphs {
        let reference = atos_graph::reference::bfs::bfs_depths(g, 0);
        let offsets = g.offsets_u32().unwrap();
        let cap = bfs::default_queue_capacity(g.num_vertices(), g.num_edges());
        for &(w, fetch) in &configs {
            let p = program(
                &gpu,
                &mut programs,
                w,
                fetch,
                256,
                None,
                Duration::from_secs(120),
            );
            let exec = Executor::Gpu(p);
            let mut times = Vec::new();
            let mut ratio = 0.0;
            let mut verdict = "ok".to_string();
            for i in 0..=args.runs {
                match bfs::run(&exec, &offsets, &g.cols, 0, cap) {
                    Ok(r) => {
                        if r.depths != reference {
                            let bad = r.mismatches(&reference);
                            verdict = format!("WRONG ({bad} depths)");
                        }
                        if i > 0 {
                            times.push(r.stats.time.as_secs_f64() * 1e3);
                        }
                        ratio = r.workload_ratio();
                    }
                    Err(e) => {
                        verdict = format!("ERROR {e}");
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
                "{:<24} {:<12} {:>10.3} {:>9.1} {:>8.3} {:>8.2}  {verdict}",
                name,
                format!("{}/{}", w.name(), fetch),
                med,
                g.num_edges() as f64 / (med / 1e3) / 1e6,
                ratio,
                spread
            );
        }
    }

    // ---- 2. every DSL feature: GPU == CPU executor ----
    println!(
        "\n== feature task (device fns, scalars, i64/f32 atomics, lanes, loops): GPU vs CPU =="
    );
    let cpu_result = features_run(None);
    for w in [WorkerKind::Thread, WorkerKind::Warp, WorkerKind::Cta] {
        let p = Program::new(&gpu, features::features::Task)
            .worker(w)
            .timeout(Duration::from_secs(10))
            .build()
            .unwrap();
        let gpu_result = features_run(Some(&p));
        let same = gpu_result == cpu_result;
        println!(
            "  {}: {}",
            w.name(),
            if same {
                "identical to the CPU executor"
            } else {
                "DIFFERENT"
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
    let (mut ok, mut wrong, mut hangs, mut errors) = (0, 0, 0, 0);
    let t0 = Instant::now();
    for i in 0..args.stress {
        let (name, g) = &small[i % small.len()];
        let w =
            [WorkerKind::Thread, WorkerKind::Warp, WorkerKind::Cta][(rng.next_u64() % 3) as usize];
        let fetch = [1, 7, 64][(rng.next_u64() % 3) as usize];
        let block = [64, 256, 1024][(rng.next_u64() % 3) as usize];
        let grid = [Some(1), Some(3), None][(rng.next_u64() % 3) as usize];
        let source = (rng.next_u64() % g.num_vertices() as u64) as u32;
        let p = program(
            &gpu,
            &mut programs,
            w,
            fetch,
            block,
            grid,
            Duration::from_secs(10),
        );
        let reference = atos_graph::reference::bfs::bfs_depths(g, source);
        let cap = bfs::default_queue_capacity(g.num_vertices(), g.num_edges());
        match bfs::run(
            &Executor::Gpu(p),
            &g.offsets_u32().unwrap(),
            &g.cols,
            source,
            cap,
        ) {
            Ok(r) if r.depths == reference => ok += 1,
            Ok(_) => {
                wrong += 1;
                println!(
                    "  WRONG: {name} {w:?}/fetch {fetch}/block {block}/grid {grid:?} source {source}"
                );
            }
            Err(RunError::Gpu(atos::GpuError::Timeout { .. })) => {
                hangs += 1;
                println!(
                    "  HANG: {name} {w:?}/fetch {fetch}/block {block}/grid {grid:?} source {source}; stopping (context unusable)"
                );
                break;
            }
            Err(e) => {
                errors += 1;
                println!("  ERROR: {name} {w:?}/fetch {fetch}/block {block}/grid {grid:?}: {e}");
            }
        }
    }
    println!(
        "stress: {ok} correct, {wrong} wrong, {hangs} hangs, {errors} errors, {} configurations compiled, {:.1} s",
        programs.len(),
        t0.elapsed().as_secs_f64()
    );
    failures += wrong + hangs + errors;

    // ---- 4. overflow ----
    println!("\n== queue overflow ==");
    let g = atos_graph::load("grid:256x256").unwrap();
    let offsets = g.offsets_u32().unwrap();
    for &(w, fetch) in &configs {
        let p = program(
            &gpu,
            &mut programs,
            w,
            fetch,
            256,
            None,
            Duration::from_secs(10),
        );
        match bfs::run(&Executor::Gpu(p), &offsets, &g.cols, 0, 100) {
            Err(RunError::QueueOverflow {
                capacity, needed, ..
            }) if capacity == 100 && needed > 100 => {
                let after = bfs::run(
                    &Executor::Gpu(p),
                    &offsets,
                    &g.cols,
                    0,
                    bfs::default_queue_capacity(g.num_vertices(), g.num_edges()),
                );
                let healthy = after
                    .map(|r| r.depths == atos_graph::reference::bfs::bfs_depths(&g, 0))
                    .unwrap_or(false);
                println!(
                    "  {}/{}: overflow reported (capacity 100, needed >= {needed}); next run correct: {healthy}",
                    w.name(),
                    fetch
                );
                if !healthy {
                    failures += 1;
                }
            }
            other => {
                failures += 1;
                println!(
                    "  {}/{}: expected an overflow error, got {:?}",
                    w.name(),
                    fetch,
                    other.map(|r| r.stats.to_string())
                );
            }
        }
    }
    println!("\nSUMMARY: {} failures", failures);
    std::process::exit(if failures == 0 { 0 } else { 1 });
}
