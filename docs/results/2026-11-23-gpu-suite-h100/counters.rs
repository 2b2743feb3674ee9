// Kept with docs/results/2026-11-23-gpu-suite-h100.md (call 4): in wrong runs, were items lost in the
// queue or relaxations lost in tasks? To run it, copy it into examples/ and build it as an example.
#[path = "../tests/common/tuples.rs"]
#[allow(dead_code)]
mod tuples;
use atos::codegen::{Strategy, WorkerKind};
use atos::{Gpu, Program};
use tuples::*;
fn main() {
    let gpu = Gpu::new(0).unwrap();
    let g = atos_graph::load("grid:200x200").unwrap();
    let want = float_dijkstra(&g);
    for strategy in [Strategy::Discrete, Strategy::Bsp] {
        let p = Program::new(&gpu, relax_item::Task).worker(WorkerKind::Thread).fetch(4).block_size(256).strategy(strategy)
            .timeout(std::time::Duration::from_secs(30)).build().unwrap();
        let mut wrong = 0;
        for i in 0..40 {
            let mut st = None;
            let got = float_sssp_run(&g, |s, seeds| { let r = p.run(s, seeds); if let Ok(x) = &r { st = Some(x.clone()); } r });
            let s = st.unwrap();
            let q = &s.queues[0];
            let bad = got != want;
            if bad { wrong += 1; }
            if bad || i < 2 {
                let high = got.iter().zip(&want).filter(|(a, b)| a > b).count();
                println!("{} run {i}: {} seeded {} pushed {} popped {} (lost in queue: {}) peak {} launches {} levels {} high {high}",
                    strategy.name(), if bad {"WRONG"} else {"ok"}, q.seeded, q.pushed, q.popped, (q.seeded + q.pushed) as i64 - q.popped as i64, q.peak, s.launches, s.levels);
            }
        }
        println!("{}: {wrong}/40 wrong", strategy.name());
    }
}
