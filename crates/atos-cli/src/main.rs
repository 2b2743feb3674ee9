//! `atos`: the command-line front end: graph inspection and conversion, and the benchmark
//! runner (`atos bench`, docs/bench.md).

mod bench;
mod graph;
mod memory;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "atos",
    version,
    about = "atos: task-parallel GPU scheduling from Rust"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Inspect and convert graphs.
    #[command(subcommand)]
    Graph(graph::GraphCommand),
    /// Run and verify benchmark configurations; write a table, JSON lines and plots.
    Bench(Box<bench::BenchArgs>),
}

fn main() {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Graph(cmd) => graph::run(cmd).map(|()| true),
        // Ok(false): some configuration failed; it was reported, the exit code says so.
        Command::Bench(args) => bench::run(*args),
    };
    match result {
        Ok(true) => {}
        Ok(false) => std::process::exit(1),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}
