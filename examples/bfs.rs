//! Speculative BFS on generated or real graphs, on the GPU when there is one, else the CPU,
//! checked against a plain CPU BFS.
//!
//! `cargo run --release --example bfs -- --graph grid:1024x1024 --graph kron:16`

use std::time::Duration;

use atos::apps::bfs::{self, Executor, bfs as bfs_task};
use atos::{CpuExecutor, Gpu, Program, QueueMode, Strategy, WorkerKind};
use clap::Parser;

#[derive(Parser)]
#[command(about = "Speculative BFS with atos (Atos ICPP'22 Listing 4)")]
struct Args {
    /// Graph: a spec (`grid:WxH`, `kron:SCALE`, `er:N`, `geo:N`) or a file (.mtx, .gr, .acsr,
    /// .csr or an edge list). Repeatable.
    #[arg(long = "graph", default_values = ["grid:1024x1024", "kron:16"])]
    graphs: Vec<String>,
    /// auto (GPU if available, else CPU), gpu or cpu.
    #[arg(long, default_value = "auto")]
    device: String,
    /// thread, warp, cta or all.
    #[arg(long, default_value = "all")]
    worker: String,
    /// Tasks a worker grabs at a time (default: 1 for thread/warp, 64 for cta).
    #[arg(long)]
    fetch: Option<u32>,
    /// Timed runs per configuration (the median is reported, after one warm-up run).
    #[arg(long, default_value_t = 5)]
    runs: usize,
    /// BFS source vertex.
    #[arg(long, default_value_t = 0)]
    source: u32,
    /// Queue mode: ring (slots reused) or linear (one slot per push).
    #[arg(long, default_value = "ring")]
    queue: String,
    /// persistent, discrete (GPU only) or bsp (level by level).
    #[arg(long, default_value = "persistent")]
    strategy: String,
}

fn queue_mode(name: &str) -> Result<QueueMode, String> {
    match name {
        "ring" => Ok(QueueMode::Ring),
        "linear" => Ok(QueueMode::Linear),
        other => Err(format!("unknown --queue `{other}`: use ring or linear")),
    }
}

fn cpu_strategy_name(r: &bfs::BfsRun) -> &'static str {
    r.stats.strategy.name()
}

fn main() {
    if let Err(e) = run(Args::parse()) {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    let mode = queue_mode(&args.queue)?;
    let strategy = Strategy::parse(&args.strategy).ok_or_else(|| {
        format!(
            "unknown --strategy `{}`: use persistent, discrete or bsp",
            args.strategy
        )
    })?;
    let workers: Vec<WorkerKind> = match args.worker.as_str() {
        "all" => vec![WorkerKind::Thread, WorkerKind::Warp, WorkerKind::Cta],
        w => vec![
            WorkerKind::parse(w)
                .ok_or_else(|| format!("unknown worker `{w}`: use thread, warp, cta or all"))?,
        ],
    };
    let gpu = match args.device.as_str() {
        "cpu" => None,
        "gpu" => Some(Gpu::new(0)?),
        "auto" => match Gpu::new(0) {
            Ok(g) => Some(g),
            Err(e) => {
                println!("No GPU: {e}\nRunning on the CPU executor instead.\n");
                None
            }
        },
        d => return Err(format!("unknown device `{d}`: use auto, gpu or cpu").into()),
    };
    let cpu = CpuExecutor::new().strategy(if gpu.is_none() && strategy == Strategy::Discrete {
        println!("discrete launches are a GPU scheme: the CPU runs level by level (bsp) instead\n");
        Strategy::Bsp
    } else {
        strategy
    });
    for spec in &args.graphs {
        let g = atos_graph::load(spec)?;
        if args.source as usize >= g.num_vertices() {
            return Err(format!(
                "source {} is not a vertex of {spec} ({} vertices)",
                args.source,
                g.num_vertices()
            )
            .into());
        }
        let reference = atos_graph::reference::bfs::bfs_depths(&g, args.source);
        println!(
            "{spec}: {} vertices, {} directed edges, {} reached from {}",
            g.num_vertices(),
            g.num_edges(),
            atos_graph::reference::bfs::reached(&reference),
            args.source
        );
        let capacity = bfs::default_queue_capacity(g.num_vertices(), g.num_edges());
        let offsets = g.offsets_u32()?;
        for &worker in &workers {
            let fetch = args
                .fetch
                .unwrap_or(if worker == WorkerKind::Cta { 64 } else { 1 });
            let program;
            let exec = match &gpu {
                Some(gpu) => {
                    let builder = Program::new(gpu, bfs_task::Task)
                        .worker(worker)
                        .fetch(fetch)
                        .strategy(strategy)
                        .timeout(Duration::from_secs(60));
                    // Shared ranges only where a chunk of this graph can be posted (a hub's
                    // edges); elsewhere the unit that shares only spills more.
                    let degrees = g.offsets.windows(2).map(|w| w[1] - w[0]);
                    let can_post = atos::share_can_post(degrees, fetch, builder.spec().block_size);
                    program = builder.share(can_post).build()?;
                    Executor::Gpu(&program)
                }
                None => Executor::Cpu(&cpu),
            };
            let mut times = Vec::new();
            let mut last = None;
            for i in 0..=args.runs {
                let r = bfs::run(&exec, &offsets, &g.cols, args.source, capacity, mode)?;
                if r.depths != reference {
                    let bad = r.mismatches(&reference);
                    return Err(format!(
                        "{spec} {worker:?}: {bad} depths differ from the CPU reference"
                    )
                    .into());
                }
                if i > 0 {
                    times.push(r.stats.time.as_secs_f64());
                }
                last = Some(r);
            }
            let r = last.unwrap();
            times.sort_by(f64::total_cmp);
            let median = times[times.len() / 2];
            let label = if gpu.is_some() {
                format!("{worker:?}/fetch {fetch} {}", strategy.name())
            } else {
                format!("cpu {}", cpu_strategy_name(&r))
            };
            println!(
                "  {label:<16} {:>9.3} ms  {:>8.1} MTEPS  workload ratio {:.3}  depths verified  [{}]",
                median * 1e3,
                g.num_edges() as f64 / median / 1e6,
                r.workload_ratio(),
                r.stats.device
            );
            if gpu.is_none() {
                break;
            }
        }
    }
    Ok(())
}
