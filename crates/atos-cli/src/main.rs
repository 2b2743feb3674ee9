//! `atos`: the command-line front end: graph inspection and conversion, the benchmark runner
//! (`atos bench`, docs/bench.md), its tables and plots from saved records (`atos report`), and
//! the launcher of one-process-per-GPU runs (`atos run`).

mod bench;
mod graph;
mod launch;
mod memory;
mod report;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

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
    /// The bench's tables (records, strong scaling, traffic between devices) and plots again,
    /// from the JSON lines `atos bench --out` wrote; runs nothing.
    Report(report::ReportArgs),
    /// Start an atos command on N processes of this node, one per GPU, as the ranks of an
    /// NVSHMEM run (docs/runtime.md, "NVSHMEM").
    Run(launch::RunArgs),
    /// Check an NVSHMEM run end to end (under `atos run --np N`): each rank runs a
    /// device-linked kernel that puts into the next rank's memory over NVSHMEM's device API.
    NvshmemCheck,
}

fn main() {
    // Output into a pipe its reader closed (`atos graph info ... | head`) ends the process
    // quietly, as other command-line tools do, instead of a panic in `println!`.
    #[cfg(unix)]
    // SAFETY: restoring the default action of one signal, at the start of `main`, before any
    // thread is started.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    // `atos --version` names the device code this binary carries (atos::headers), as bench
    // records do: a binary built from another tree says so.
    let version = format!(
        "{} (device code {})",
        env!("CARGO_PKG_VERSION"),
        atos::headers::device_code_id()
    );
    let version: &'static str = Box::leak(version.into_boxed_str());
    let matches = Cli::command().version(version).get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    let result = match cli.command {
        Command::Graph(cmd) => graph::run(cmd).map(|()| true),
        // Ok(false): some configuration failed; it was reported, the exit code says so.
        Command::Bench(args) => bench::run(*args),
        Command::Report(args) => report::run(&args).map(|()| true).map_err(Into::into),
        Command::Run(args) => launch::run(&args).map_err(Into::into),
        Command::NvshmemCheck => nvshmem_check().map(|()| true),
    };
    match result {
        Ok(true) => {}
        Ok(false) => std::process::exit(1),
        Err(e) => {
            launch::stderr_line(&format!("error: {e}"));
            std::process::exit(1);
        }
    }
}

/// `atos nvshmem-check`: joins the run this rank belongs to and runs the check kernel.
fn nvshmem_check() -> Result<(), Box<dyn std::error::Error>> {
    let env = atos::gpu::nvshmem::RankEnv::from_env()?
        .ok_or("not a rank: start it with `atos run --np N nvshmem-check`")?;
    let gpus = atos::Gpus::join(&env)?;
    println!("{}", atos::gpu::nvshmem::self_check(&gpus)?);
    Ok(())
}
