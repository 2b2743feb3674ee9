//! Connected components by label propagation, written as an atos task in a crate of its own
//! (README.md, "Use atos from your own crate").
//!
//! Every vertex starts labelled with its own id and queued. A task lowers each neighbour's label
//! to its own (`fetch_min`) and queues the neighbours it lowered, so each component ends
//! labelled with its smallest vertex id. The graph (rings with chords, a path and isolated
//! vertices) is built here with the graph crate (`atos-graph`), whose union-find reference
//! checks the labels.
//!
//! `cargo run --release` runs on the GPU when there is one and NVRTC can be loaded (from
//! `LD_LIBRARY_PATH`), else on the CPU executor; `-- --device cpu` or `-- --device gpu` chooses.
//! `-- --nvrtc` also compiles the task's CUDA for sm_90 with NVRTC, which needs no GPU: how a
//! crate's tests can check its kernels on a machine without one.

use atos::prelude::*;
use atos_graph::reference::components::connected_components;
use atos_graph::{BuildOptions, Csr, EdgeList};

#[atos::state]
pub struct Components<'a> {
    pub offsets: Slice<'a, u32>,
    pub cols: Slice<'a, u32>,
    pub label: Atomics<'a, u32>,
    pub work: Queue<'a, u32>,
}

#[atos::task(worker = "warp", fetch = 1)]
pub fn propagate(v: u32, s: &Components) {
    let mine = s.label.load(v);
    for e in lanes(s.offsets[v]..s.offsets[v + 1]) {
        let u = s.cols[e];
        // `lower(u, x)`: `fetch_min(u, x) > x`, after a plain load that skips most edges.
        if s.label.lower(u, mine) {
            s.work.push(u);
        }
    }
}

/// Rings of 2 to 40,000 vertices, the large ones with chords across them, then a path of 5,000
/// vertices (its smallest label has to travel its whole length), then 3 isolated vertices. The
/// graph crate builds the CSR (each edge both ways, duplicates merged).
fn graph() -> Result<Csr, atos_graph::build::BuildError> {
    let mut edges = Vec::new();
    let mut first = 0u32;
    for (ring, len) in [1_000u32, 40_000, 7, 12_345, 2].into_iter().enumerate() {
        for i in 0..len {
            edges.push((first + i, first + (i + 1) % len));
            if len > 100 && i % 97 == ring as u32 {
                edges.push((first + i, first + (i * 31 + 7) % len));
            }
        }
        first += len;
    }
    let path = 5_000;
    for i in 0..path - 1 {
        edges.push((first + i, first + i + 1));
    }
    let mut list = EdgeList::new(first + path + 3);
    for (u, v) in edges {
        list.push(u, v);
    }
    Ok(list.into_csr(BuildOptions::default())?.0)
}

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

const USAGE: &str = "usage: my-components [--device auto|gpu|cpu] [--nvrtc]";

/// The command line: the device (`auto` unless given) and whether to compile with NVRTC; `None`
/// for `--help`.
fn parse_args() -> Result<Option<(String, bool)>, String> {
    let (mut device, mut nvrtc) = ("auto".to_string(), false);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--device" => {
                device = args
                    .next()
                    .ok_or(format!("--device needs a value\n{USAGE}"))?
            }
            "--nvrtc" => nvrtc = true,
            "-h" | "--help" => return Ok(None),
            other => match other.strip_prefix("--device=") {
                Some(d) => device = d.to_string(),
                None => return Err(format!("unknown argument `{other}`\n{USAGE}")),
            },
        }
    }
    Ok(Some((device, nvrtc)))
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let Some((device, nvrtc)) = parse_args()? else {
        println!("{USAGE}");
        return Ok(());
    };
    if nvrtc {
        // The translation unit `Program::build` would compile, with the task's own attributes.
        let cuda = atos::cuda::<propagate::Task>()?;
        let compiled = atos::gpu::nvrtc::compile_cubin(&cuda, (9, 0))?;
        if !compiled.log.is_empty() {
            return Err(format!("NVRTC warned:\n{}", compiled.log).into());
        }
        println!(
            "NVRTC: {} lines of CUDA -> {} bytes of sm_90 CUBIN",
            cuda.lines().count(),
            compiled.cubin.len()
        );
    }
    let g = graph()?;
    let vertices = g.num_vertices() as u32;
    // `Slice<u32>` offsets: the graph crate refuses a graph with too many edges for them.
    let offsets = g.offsets_u32()?;
    // Union-find: each vertex labelled with its component's smallest vertex.
    let want = connected_components(&g);

    let labels = AtomicArray::from_vec((0..vertices).collect());
    let state = Components {
        offsets: Slice::new(&offsets),
        cols: Slice::new(&g.cols),
        label: labels.view(),
        // A vertex is queued again each time its label drops, so it may wait in the ring more
        // than once at a time: no capacity bounds that in general. A push per vertex and per
        // edge end is room enough here; a run that needs more stops with an error that names
        // the capacity it needs.
        work: Queue::with_capacity(vertices as u64 + g.num_edges() as u64 + 1),
    };
    let seeds: Vec<u32> = (0..vertices).collect();

    // `Gpu::new` needs the driver and a device; `build` needs NVRTC too.
    let gpu = match device.as_str() {
        "cpu" => None,
        "gpu" => Some(Gpu::new(0)?),
        "auto" => match Gpu::new(0) {
            Ok(_) if !atos::gpu::nvrtc::nvrtc_available() => {
                println!("NVRTC could not be loaded: running on the CPU executor");
                None
            }
            Ok(gpu) => Some(gpu),
            Err(e) => {
                println!("no GPU ({e}): running on the CPU executor");
                None
            }
        },
        other => return Err(format!("unknown --device `{other}`: use auto, gpu or cpu").into()),
    };
    let stats = match &gpu {
        Some(gpu) => Program::new(gpu, propagate::Task)
            .worker(WorkerKind::Warp)
            .build()?
            .run(&state, &seeds)?,
        None => CpuExecutor::new().run(propagate::Task, &state, &seeds)?,
    };

    let got = labels.to_vec();
    let wrong = got.iter().zip(&want.label).filter(|(a, b)| a != b).count();
    println!(
        "{} vertices, {} edges: {} components, {} tasks on {} in {:.3} ms",
        vertices,
        g.num_edges() / 2,
        want.count,
        stats.popped,
        stats.device,
        stats.time.as_secs_f64() * 1e3
    );
    if wrong > 0 {
        return Err(format!("{wrong} labels differ from the union-find reference").into());
    }
    println!("every label matches the union-find reference");
    Ok(())
}
