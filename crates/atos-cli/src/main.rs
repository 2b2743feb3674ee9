//! `atos`: the command-line front end. Today: graph inspection and conversion; it grows
//! into the benchmark runner.

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
}

fn main() {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Graph(cmd) => graph::run(cmd),
    };
    if let Err(e) = result {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
