// Kept with docs/results/2026-11-23-gpu-suite-h100.md (call 3): which configurations make tuple-item
// float SSSP wrong. To run it, copy it into examples/ and `cargo build --release --example NAME`.
#[path = "../tests/common/tuples.rs"]
#[allow(dead_code)]
mod tuples;
use atos::codegen::{Strategy, WorkerKind};
use atos::{Gpu, Program};
use tuples::*;
fn main() {
    let gpu = Gpu::new(0).unwrap();
    let reps: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(20);
    for spec in ["grid:200x200", "grid:100x100", "kron:14,seed=7"] {
        let g = atos_graph::load(spec).unwrap();
        let want = float_dijkstra(&g);
        for strategy in [Strategy::Discrete, Strategy::Bsp, Strategy::Persistent] {
            for (w, f) in [(WorkerKind::Thread, 1), (WorkerKind::Thread, 2), (WorkerKind::Thread, 3), (WorkerKind::Thread, 4), (WorkerKind::Thread, 8), (WorkerKind::Warp, 4)] {
                for block in [256u32, 64] {
                    let p = Program::new(&gpu, relax_item::Task).worker(w).fetch(f).block_size(block).strategy(strategy)
                        .timeout(std::time::Duration::from_secs(30)).build().unwrap();
                    let (mut wrong, mut higher, mut lower, mut launches) = (0, 0, 0, 0u64);
                    for _ in 0..reps {
                        let mut st = None;
                        let got = float_sssp_run(&g, |s, seeds| { let r = p.run(s, seeds); if let Ok(x) = &r { st = Some(x.launches); } r });
                        launches += st.unwrap_or(0);
                        if got != want {
                            wrong += 1;
                            for (a, b) in got.iter().zip(&want) { if a > b { higher += 1 } else if a < b { lower += 1 } }
                        }
                    }
                    println!("{spec} {} {}/{f} block {block} grid {}: wrong {wrong}/{reps} (vertices too high {higher}, too low {lower}), launches/run {:.0}",
                        strategy.name(), w.name(), p.grid(), launches as f64 / reps as f64);
                }
            }
        }
    }
}
