// The throwaway diagnostic behind calls 4-6 (built as examples/zz_hang.rs at the session's
// work tree, run from .gpu/, not landed). Arguments: worker fetch slack capacity balance(0|1)
// reps grid(0: occupancy x SMs) [fifo|prio] [graph]. Priority (or FIFO) SSSP, persistent, with
// an 8 s timeout; a timeout prints the run's counters (GpuError::Timeout) and exits 3.
// DIAG=1 (calls 5-6) patches the generated unit (ProgramBuilder::patch_source): counters in the
// control block's idle words around the balanced batch's loop, and (call 6) the balanced
// batch's push replaced by `diag_put` from call6/diag_pusher.cuh; DIAGFIX=1 defines DIAG_FIX
// there (the lanes of a push wait for room together).
use atos::apps::sssp;
use atos::codegen::WorkerKind;
use atos::{Gpu, Program, RunError, Strategy};
use std::time::Duration;

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let worker = WorkerKind::parse(&a[0]).unwrap();
    let fetch: u32 = a[1].parse().unwrap();
    let slack: u64 = a[2].parse().unwrap();
    let cap: u64 = a[3].parse().unwrap();
    let balance = a[4] == "1";
    let reps: usize = a[5].parse().unwrap();
    let grid: u32 = a[6].parse().unwrap();
    let fifo = a.get(7).map(|s| s == "fifo").unwrap_or(false);
    let graph = a.get(8).cloned().unwrap_or("kron:14,w=60,seed=5".into());
    let gpu = Gpu::new(0).unwrap();
    let g = atos_graph::load(&graph).unwrap();
    let off = g.offsets_u32().unwrap();
    let Some(atos_graph::Weights::U32(w)) = &g.weights else { panic!() };
    let mut b = Program::new(&gpu, sssp::relax::Task)
        .worker(worker)
        .fetch(fetch)
        .balance(balance)
        .strategy(Strategy::Persistent)
        .timeout(Duration::from_secs(8));
    if grid > 0 {
        b = b.grid(grid);
    }
    if std::env::var("DIAG").is_ok() {
        b = b.patch_source(|src| {
            let c = "atomicAdd((unsigned long long*)&atos::fault_control->";
            let src = src.replacen(
                "        const uint64_t atos_total = atos::balance_scan(",
                &format!("        {c}idle_sweeps.value, 1ull);\n        const uint64_t atos_total = atos::balance_scan("),
                1,
            );
            let src = src.replacen(
                "            uint64_t atos_at;\n",
                &format!("            uint64_t atos_at;\n            {c}idle_cursor.value, 1ull);\n"),
                1,
            );
            let push = "                atos_out.work.push(atos_tuple_u32_u32{u, nd}, nd);  // line 85\n";
            let at = src.rfind(push).unwrap(); // the balanced batch's copy
            let mut out = src[..at].to_string();
            out += "                diag_put(atos_out.work, atos_tuple_u32_u32{u, nd}, nd, s);\n";
            let rest = &src[at + push.len()..];
            let rest = rest.replacen(
                "        worker.lanes_end();\n",
                &format!("        worker.lanes_end();\n        {c}idle_finished.value, 1ull);\n"),
                1,
            );
            let out = out + &rest;
            let anchor = "struct atos_relax_Frame {";
            let fix = if std::env::var("DIAGFIX").is_ok() { "#define DIAG_FIX 1\n" } else { "" };
            out.replacen(anchor, &format!("{fix}{}\n{anchor}", include_str!("/tmp/diag_pusher.cuh")), 1)
        });
    }
    let p = b.build().unwrap();
    let order = if fifo {
        sssp::Order::Fifo
    } else {
        sssp::Order::Priority { delta: sssp::band_delta(&off, w), slack }
    };
    let mut tally = std::collections::BTreeMap::<String, usize>::new();
    for _ in 0..reps {
        let arr = sssp::SsspArrays::<u32>::new(g.num_vertices(), 0);
        let st = arr.state(&off, &g.cols, w, cap, order);
        let seeds = atos::Seeds::new().add(sssp::relax::Task, &arr.seeds());
        let key = match p.run_seeds(&st, &seeds) {
            Ok(_) => "ok".to_string(),
            Err(RunError::QueueOverflow { queue, .. }) => format!("overflow {queue}"),
            Err(e) => {
                println!("{worker:?} f{fetch} slack {slack} cap {cap} bal {balance} grid {grid} fifo {fifo}: {e}");
                std::process::exit(3);
            }
        };
        *tally.entry(key).or_default() += 1;
    }
    println!("{worker:?} f{fetch} slack {slack} cap {cap} bal {balance} grid {grid} fifo {fifo} {graph}: {tally:?}");
}
