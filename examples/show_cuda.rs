//! Prints the CUDA a task becomes for a specialization:
//! `cargo run --example show_cuda -- [thread|warp|cta] [fetch] [block]`.

use atos::apps::bfs::bfs;
use atos::codegen::{KernelSpec, Strategy, WorkerKind};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let worker = args
        .first()
        .and_then(|w| WorkerKind::parse(w))
        .unwrap_or(WorkerKind::Warp);
    let fetch = args.get(1).and_then(|f| f.parse().ok()).unwrap_or(1);
    let block_size = args.get(2).and_then(|b| b.parse().ok()).unwrap_or(256);
    let spec = KernelSpec {
        worker,
        fetch,
        block_size,
        strategy: Strategy::Persistent,
    };
    match atos::cuda_source::<bfs::Task>(&spec) {
        Ok(src) => print!("{src}"),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}
