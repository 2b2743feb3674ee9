//! `atos graph info` and `atos graph convert`.

use std::path::PathBuf;
use std::time::Instant;

use atos_graph::limits::human_bytes;
use atos_graph::stats::stats;
use atos_graph::{
    Base, BuildOptions, Format, LoadOptions, Loaded, Origin, ReadOptions, format, load_with,
};
use clap::{Args, Subcommand};

use crate::memory::{parse_size, peak_rss};

#[derive(Subcommand)]
pub enum GraphCommand {
    /// Print a graph's sizes, degrees, components and a diameter estimate.
    Info {
        /// A file (.mtx, .gr, .acsr, .csr, anything else an edge list) or a spec such as
        /// kron:22, grid:4096x4096,drop=0.2, er:100000,deg=8, geo:100000.
        input: String,
        #[command(flatten)]
        load: LoadArgs,
        /// BFS sweeps for the diameter estimate.
        #[arg(long, default_value_t = 4)]
        sweeps: u32,
        /// Sizes, degrees and timings only (skip components and the diameter).
        #[arg(long)]
        quick: bool,
    },
    /// Load a graph (file or spec) and write it in another format.
    Convert {
        input: String,
        /// Output file; the format follows its extension unless --to names one.
        output: PathBuf,
        /// Output format: acsr, csr, mtx, edges or gr.
        #[arg(long, value_parser = parse_format)]
        to: Option<Format>,
        #[command(flatten)]
        load: LoadArgs,
    },
}

/// How to read and build the input.
#[derive(Args)]
pub struct LoadArgs {
    /// Input format (acsr, csr, mtx, edges, gr) instead of going by the extension.
    #[arg(long, value_parser = parse_format)]
    format: Option<Format>,
    /// Keep edges one way (default: add the reverse of every edge).
    #[arg(long)]
    directed: bool,
    #[arg(long)]
    keep_self_loops: bool,
    #[arg(long)]
    keep_duplicates: bool,
    /// Ignore weight columns.
    #[arg(long)]
    no_weights: bool,
    /// Edge-list id base: detect, 0 or 1.
    #[arg(long, default_value = "detect", value_parser = parse_base)]
    base: Base,
    /// Relabel vertices with a random permutation from this seed.
    #[arg(long)]
    relabel: Option<u64>,
    /// Refuse inputs that would need more memory than this (default: physical memory).
    #[arg(long, value_parser = parse_size)]
    max_memory: Option<u64>,
}

fn parse_format(s: &str) -> Result<Format, String> {
    Format::from_name(s)
        .ok_or_else(|| format!("unknown format `{s}`: use acsr, csr, mtx, edges or gr"))
}

fn parse_base(s: &str) -> Result<Base, String> {
    match s {
        "detect" => Ok(Base::Detect),
        "0" => Ok(Base::Zero),
        "1" => Ok(Base::One),
        _ => Err(format!("unknown base `{s}`: use detect, 0 or 1")),
    }
}

impl LoadArgs {
    fn options(&self) -> LoadOptions {
        let mut read = ReadOptions {
            base: self.base,
            weights: !self.no_weights,
            ..ReadOptions::default()
        };
        if let Some(m) = self.max_memory {
            read.max_bytes = m;
        }
        LoadOptions {
            build: BuildOptions {
                symmetrize: !self.directed,
                drop_self_loops: !self.keep_self_loops,
                drop_duplicates: !self.keep_duplicates,
            },
            read,
            format: self.format,
            relabel: self.relabel,
        }
    }
}

type CmdResult<T> = Result<T, Box<dyn std::error::Error>>;

pub fn run(cmd: GraphCommand) -> CmdResult<()> {
    match cmd {
        GraphCommand::Info {
            input,
            load,
            sweeps,
            quick,
        } => info(&input, &load, sweeps, quick),
        GraphCommand::Convert {
            input,
            output,
            to,
            load,
        } => convert(&input, &output, to, &load),
    }
}

fn info(input: &str, args: &LoadArgs, sweeps: u32, quick: bool) -> CmdResult<()> {
    let mut loaded = load_with(input, &args.options())?;
    if args.no_weights {
        loaded.graph.weights = None;
    }
    describe_load(input, &loaded);
    let g = &loaded.graph;
    let n = g.num_vertices() as u64;
    println!("vertices     {n}");
    println!("edges        {} directed entries", g.num_edges());
    let degrees = (0..n as u32).map(|v| g.degree(v));
    println!(
        "degree       min {}, avg {:.2}, max {}",
        degrees.clone().min().unwrap_or(0),
        g.num_edges() as f64 / n.max(1) as f64,
        degrees.max().unwrap_or(0)
    );
    let weights = g
        .weight_kind()
        .map_or("none".to_string(), |k| k.to_string());
    println!("weights      {weights}");
    if !quick {
        let t = Instant::now();
        let s = stats(g, sweeps);
        println!("isolated     {}", s.isolated);
        println!("self-loops   {}", s.self_loops);
        println!("symmetric    {}", if s.symmetric { "yes" } else { "no" });
        println!(
            "components   {} (largest {})",
            s.components, s.largest_component
        );
        println!(
            "diameter     >= {} ({} BFS sweeps)",
            s.diameter_lower_bound, s.sweeps
        );
        println!("stats time   {:.1} ms", t.elapsed().as_secs_f64() * 1e3);
    }
    println!(
        "memory       csr {}, peak RSS {}",
        human_bytes(g.size_bytes()),
        peak_rss().map_or("unknown".into(), human_bytes)
    );
    Ok(())
}

fn describe_load(input: &str, loaded: &Loaded) {
    let read_s = loaded.read_time.as_secs_f64();
    match &loaded.origin {
        Origin::File { format, bytes } => {
            println!("graph        {input} ({format}, {})", human_bytes(*bytes));
            println!(
                "read         {:.1} ms ({:.0} MB/s), build {:.1} ms",
                read_s * 1e3,
                *bytes as f64 / 1e6 / read_s.max(1e-9),
                loaded.build_time.as_secs_f64() * 1e3
            );
        }
        Origin::Generated(_) => {
            println!("graph        {input} (generated)");
            println!(
                "generate     {:.1} ms (including the CSR build)",
                read_s * 1e3
            );
        }
    }
    if let Some(r) = &loaded.report {
        let base = loaded
            .base
            .map_or(String::new(), |b| format!(", {b}-based"));
        println!("input        {} edges{base}", r.input_edges);
        println!(
            "build        {} self-loops dropped, {} mirrored, {} duplicates dropped",
            r.self_loops_dropped, r.mirrored, r.duplicates_dropped
        );
    }
}

fn convert(input: &str, output: &PathBuf, to: Option<Format>, args: &LoadArgs) -> CmdResult<()> {
    let mut loaded = load_with(input, &args.options())?;
    if args.no_weights {
        loaded.graph.weights = None;
    }
    describe_load(input, &loaded);
    let t = Instant::now();
    format::write_file(&loaded.graph, output, to)?;
    let bytes = std::fs::metadata(output)?.len();
    println!(
        "wrote        {} ({}, {}) in {:.1} ms: {} vertices, {} entries",
        output.display(),
        to.unwrap_or(Format::from_path(output)),
        human_bytes(bytes),
        t.elapsed().as_secs_f64() * 1e3,
        loaded.graph.num_vertices(),
        loaded.graph.num_edges()
    );
    Ok(())
}
