// Kept with docs/results/2026-11-23-activemask-h100.md: the diagnostic of the wrong windowed
// float-SSSP runs (docs/results/2026-11-23-gpu-suite-h100.md). To run it, copy it into
// examples/ and build it as an example (it includes tests/common/tuples.rs by path).
// window_probe VARIANT STRATEGY RUNS [GRAPH] [BLOCK] [FETCH]   (RUNS 0: compile only, no GPU)
// `base` is the runtime's own push: before the fix, mask = __activemask(); after it,
// converged_lanes (calls 1-2 ran the first, call 3 the second).
//   base   the generated kernel as is
//   check  + per-launch checks (one-block launches): at entry window_next == lo, end >= hi,
//          done == lo; at exit done == hi, end == end_alloc, window_next >= hi. A failed check
//          faults with word 0xDk.. | value (k the check).
//   solo   check + every push reserves alone (no warp aggregation)
//   match  check + mask = __match_any_sync(__activemask(), counters) (what the fix does)
//   X-nocheck  variant X without the checks
#[path = "../tests/common/tuples.rs"]
#[allow(dead_code)]
mod tuples;
use atos::codegen::{Strategy, WorkerKind};
use atos::{Gpu, Program};
use std::collections::BTreeMap;
use tuples::*;

const CHECKS: &str = r#"
#define ATOS_PROBE_F(k, v) atos::fault(0xD000000000000000ull | ((unsigned long long)(k) << 52) | ((v) & 0xFFFFFFFFFFFFFull))
__device__ __forceinline__ void probe_entry(const atos::QueueRef<atos_tuple_u32_f32>& q, const atos::Window& w) {
    if (w.queue != 0 || gridDim.x != 1) return;
    if (threadIdx.x == 0) {
        atos::QueueCounters* c = q.counters;
        atos::fence_acq_rel();
        unsigned long long wn = atos::ld_relaxed(&c->window_next.value), e = atos::ld_relaxed(&c->end.value);
        unsigned long long ea = atos::ld_relaxed(&c->end_alloc.value), dn = atos::ld_relaxed(&c->done.value);
        if (wn != w.lo) ATOS_PROBE_F(1, wn - w.lo);
        else if (e < w.hi) ATOS_PROBE_F(2, w.hi - e);
        else if (dn != w.lo) ATOS_PROBE_F(3, dn - w.lo);
        else if (ea != e) ATOS_PROBE_F(4, ea - e);
    }
    __syncthreads();
}
__device__ __forceinline__ void probe_exit(const atos::QueueRef<atos_tuple_u32_f32>& q, const atos::Window& w) {
    if (w.queue != 0 || gridDim.x != 1) return;
    __syncthreads();
    if (threadIdx.x == 0) {
        atos::QueueCounters* c = q.counters;
        atos::fence_acq_rel();
        unsigned long long wn = atos::ld_relaxed(&c->window_next.value), e = atos::ld_relaxed(&c->end.value);
        unsigned long long ea = atos::ld_relaxed(&c->end_alloc.value), dn = atos::ld_relaxed(&c->done.value);
        if (dn != w.hi) ATOS_PROBE_F(5, w.hi - dn);
        else if (ea != e) ATOS_PROBE_F(6, ea - e);
        else if (wn < w.hi) ATOS_PROBE_F(7, w.hi - wn);
    }
}
template <class T> struct MatchPusher {
    atos::QueueRef<T> q;
    atos::Control* ctl;
    __device__ void push(T item) const { atos::push_lanes(q, item, ctl, __match_any_sync(__activemask(), (unsigned long long)q.counters)); }
    template <class G> __device__ void flush(const G&) const {}
};
template <class T> struct SoloPusher {
    atos::QueueRef<T> q;
    atos::Control* ctl;
    __device__ void push(T item) const { atos::push_lanes(q, item, ctl, 1u << (threadIdx.x & 31u)); }
    template <class G> __device__ void flush(const G&) const {}
};
"#;

fn patch(variant: &str, src: String) -> String {
    if variant == "base" {
        return src;
    }
    let mut s = src.replacen(
        "struct atos_Out {",
        &format!("{CHECKS}\nstruct atos_Out {{"),
        1,
    );
    s = s.replacen(
        "    atos::run_window(group, out, window, idle, serve0);",
        "    probe_entry(state.work, window);\n    atos::run_window(group, out, window, idle, serve0);\n    probe_exit(state.work, window);",
        1,
    );
    assert!(
        s.contains("probe_exit(state.work") || !s.contains("run_window"),
        "patch point not found"
    );
    if variant.starts_with("solo") {
        s = s.replace(
            "atos::DirectPusher<atos_tuple_u32_f32>",
            "SoloPusher<atos_tuple_u32_f32>",
        );
    }
    if variant.starts_with("match") {
        s = s.replace(
            "atos::DirectPusher<atos_tuple_u32_f32>",
            "MatchPusher<atos_tuple_u32_f32>",
        );
    }
    if variant.ends_with("-nocheck") {
        s = s
            .replace("    probe_entry(state.work, window);\n", "")
            .replace("\n    probe_exit(state.work, window);", "");
    }
    s
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let variant = a[1].clone();
    let strategy = match a[2].as_str() {
        "discrete" => Strategy::Discrete,
        "bsp" => Strategy::Bsp,
        _ => Strategy::Persistent,
    };
    let runs: usize = a[3].parse().unwrap();
    let graph = a.get(4).cloned().unwrap_or("grid:200x200".into());
    let block: u32 = a.get(5).map_or(256, |s| s.parse().unwrap());
    let fetch: u32 = a.get(6).map_or(4, |s| s.parse().unwrap());
    if runs == 0 {
        // compile only (no GPU): the patched unit through NVRTC
        let mut spec = atos::spec_of::<relax_item::Task>();
        spec.strategy = strategy;
        spec.block_size = block;
        for t in spec.tasks.iter_mut() {
            t.worker = WorkerKind::Thread;
            t.fetch = fetch;
        }
        let src = patch(
            &variant,
            atos::cuda_source::<relax_item::Task>(&spec).unwrap(),
        );
        let c = atos::gpu::nvrtc::compile_cubin(&src, (9, 0)).unwrap();
        std::fs::write(format!("/tmp/{variant}.cubin"), c.cubin.as_slice()).unwrap();
        println!("{variant}: compiles");
        return;
    }
    let gpu = Gpu::new(0).unwrap();
    let g = atos_graph::load(&graph).unwrap();
    let want = float_dijkstra(&g);
    let v = variant.clone();
    let p = Program::new(&gpu, relax_item::Task)
        .worker(WorkerKind::Thread)
        .fetch(fetch)
        .block_size(block)
        .strategy(strategy)
        .timeout(std::time::Duration::from_secs(30))
        .patch_source(move |s| patch(&v, s))
        .build()
        .unwrap();
    let (mut wrong, mut faults) = (0, BTreeMap::<String, usize>::new());
    let mut times = Vec::new();
    for i in 0..runs {
        let weights = float_weights(&g);
        let offsets = g.offsets_u32().unwrap();
        let mut start = vec![f32::INFINITY; g.num_vertices()];
        start[0] = 0.0;
        let dist = atos::AtomicArray::from_vec(start);
        let state = FloatSssp {
            offsets: atos::Slice::new(&offsets),
            cols: atos::Slice::new(&g.cols),
            weights: atos::Slice::new(&weights),
            dist: dist.view(),
            work: atos::Queue::with_capacity(g.num_edges() as u64 + 1),
        };
        let r = p.run(&state, &[(0, 0.0)]);
        if let Ok(st) = &r {
            times.push(st.time.as_secs_f64() * 1e3);
        }
        let err = r.err().map(|e| e.to_string());
        let got = dist.to_vec();
        if let Some(e) = err {
            let key = e.split("site word ").nth(1).map_or(e.clone(), |w| {
                let w = u64::from_str_radix(
                    w.trim_start_matches("0x")
                        .split(|c: char| !c.is_ascii_hexdigit())
                        .next()
                        .unwrap(),
                    16,
                )
                .unwrap();
                format!("check {} value {}", (w >> 52) & 0xF, w & 0xFFFFFFFFFFFFF)
            });
            println!("run {i}: fault: {key}");
            *faults
                .entry(key.split(" value").next().unwrap().to_string())
                .or_default() += 1;
            continue;
        }
        if got != want {
            wrong += 1;
            let high = got.iter().zip(&want).filter(|(a, b)| a > b).count();
            println!("run {i}: WRONG, {high} too high");
        }
    }
    times.sort_by(f64::total_cmp);
    let median = times.get(times.len() / 2).copied().unwrap_or(f64::NAN);
    println!(
        "{variant} {} {graph} block {block} fetch {fetch}: {wrong}/{runs} wrong, faults {faults:?}, median {median:.3} ms",
        a[2]
    );
}
