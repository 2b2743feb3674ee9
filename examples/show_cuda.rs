//! Prints the CUDA a task becomes for a specialization:
//! `cargo run --example show_cuda -- [thread|warp|cta] [fetch] [block]`.

use atos::apps::bfs::bfs;
use atos::codegen::{KernelSpec, WorkerKind};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--headers") {
        // `show_cuda --headers DIR`: writes the runtime's device headers (what NVRTC includes)
        // under DIR, to compile a printed unit by hand.
        let dir = std::path::PathBuf::from(args.get(1).map(String::as_str).unwrap_or("."));
        for (name, body) in atos::headers::device_headers() {
            let path = dir.join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, body).unwrap();
            println!("{}", path.display());
        }
        return;
    }
    let worker = args
        .first()
        .and_then(|w| WorkerKind::parse(w))
        .unwrap_or(WorkerKind::Warp);
    let fetch = args.get(1).and_then(|f| f.parse().ok()).unwrap_or(1);
    let block_size = args.get(2).and_then(|b| b.parse().ok()).unwrap_or(256);
    let spec = KernelSpec::single(worker, fetch, block_size);
    match atos::cuda_source::<bfs::Task>(&spec) {
        Ok(src) => print!("{src}"),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}
