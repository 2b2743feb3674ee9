//! One JSON line per configuration (`docs/bench.md` documents every field).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

/// The record format's version: bump it when a field changes meaning or type.
pub const SCHEMA: u32 = 2;

/// What a configuration's result depends on in the input, so that a later `auto` mode can pick
/// the best configuration measured on a graph of the same shape.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GraphSignature {
    pub vertices: u64,
    /// Directed entries (an undirected edge counts twice).
    pub edges: u64,
    pub max_degree: u64,
    pub avg_degree: f64,
}

impl GraphSignature {
    pub fn of(g: &atos_graph::Csr) -> GraphSignature {
        let n = g.num_vertices() as u64;
        let max_degree = g.offsets.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0);
        GraphSignature {
            vertices: n,
            edges: g.num_edges() as u64,
            max_degree,
            avg_degree: g.num_edges() as f64 / n.max(1) as f64,
        }
    }
}

/// How a configuration ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Every run (warm-up included) finished and matched the CPU reference.
    Ok,
    /// A run failed or gave a wrong answer: no time is reported for it.
    Failed,
    /// Not run on this device (`note` says why); not a failure.
    Skipped,
}

/// One configuration of one app on one graph.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Record {
    pub schema: u32,
    /// `atos` (this crate's executors) or `original` (the original Atos binaries).
    #[serde(rename = "impl")]
    pub implementation: String,
    pub app: String,
    /// The graph as given on the command line (spec or path).
    pub graph: String,
    pub graph_signature: GraphSignature,
    pub vertices: u64,
    pub edges: u64,
    pub source: u32,
    /// Vertices the reference reaches from `source`.
    pub reached: u64,
    /// The dependent steps any exact run makes: BFS, the largest finite reference depth; SSSP,
    /// the most edges on any vertex's fewest-edge shortest path; 0 for the other apps.
    pub max_depth: u32,
    /// `gpu` or `cpu`.
    pub executor: String,
    /// The device's name as the run reported it ("NVIDIA H100 80GB HBM3", "CPU (2 threads)").
    pub device: String,
    pub strategy: String,
    /// `thread`, `warp`, `cta`, or `cpu` for the CPU executor.
    pub worker: String,
    pub fetch: Option<u32>,
    /// Threads per block (GPU only).
    pub block: Option<u32>,
    /// `--min-blocks`: the kernel's second `__launch_bounds__` argument (GPU only; 0: none
    /// given). Absent in records written before it existed.
    #[serde(default)]
    pub min_blocks: Option<u32>,
    /// GPU runs: `--idle-nap` as given (absent: the program's default, 32 ns; and in older
    /// records).
    #[serde(default)]
    pub idle_nap_ns: Option<u32>,
    /// GPU runs: `--idle-nap-doublings` as given (absent: the program's default, 8, or 3 with
    /// a priority queue; and in older records).
    #[serde(default)]
    pub idle_nap_doublings: Option<u32>,
    /// `ring`, `linear`, or `original` for the original binaries' own queue.
    pub queue: String,
    pub cpu_threads: Option<usize>,
    /// Original rows: the binary's file name and its idle-poll count (`-i`).
    pub binary: Option<String>,
    pub idle: Option<u64>,
    pub runs: usize,
    pub warmup: usize,
    pub status: Status,
    /// True only when every run, warm-up included, matched the reference.
    pub verified: bool,
    pub error: Option<String>,
    pub note: Option<String>,
    /// Depths that differ from the reference in the failing run (atos rows).
    pub mismatches: Option<u64>,
    /// Runs that failed or were wrong (atos stops at the first; original rows count them all).
    pub runs_failed: u64,
    /// Timed runs that passed, in run order (`Stats::time`: CUDA events on the GPU).
    pub times_ms: Vec<f64>,
    pub median_ms: Option<f64>,
    pub min_ms: Option<f64>,
    /// Million traversed edges per second: `edges / median`.
    pub mteps: Option<f64>,
    /// Tasks processed per reached vertex (1.0: no speculation wasted).
    pub workload_ratio: Option<f64>,
    pub popped: Option<u64>,
    pub pushed: Option<u64>,
    pub queue_peak: Option<u64>,
    /// Indices of shared ranges that idle CTA groups ran for the group that posted them, over
    /// every queue (the last run's `QueueStats::helped`; 0 where nothing was shared).
    pub helped: Option<u64>,
    pub launches: Option<u64>,
    pub levels: Option<u64>,
    /// GPU launch shape: [blocks, threads per block], as launched; on a row that failed or
    /// was skipped, the `--grid` it asked for (null without one).
    pub grid: Option<[u32; 2]>,
    /// Median host wall time of the timed GPU runs (launches, polls and waits).
    pub wall_ms: Option<f64>,
    pub upload_ms: Option<f64>,
    pub uploaded_bytes: Option<u64>,
    pub compile_ms: Option<f64>,
    /// `Memory`, `Disk` or `Compiled` (where the CUBIN came from).
    pub compile_origin: Option<String>,
    /// `--timeline`: (microseconds since the launch, tasks done), at most 500 points.
    pub timeline: Option<Vec<(f64, u64)>>,
    /// `--timeline`, by queue: (the queue's name, its tasks done at each point of `timeline`),
    /// in the program's queue order: which task kind the run's tail is made of.
    pub timeline_queues: Option<Vec<(String, Vec<u64>)>>,
    /// `--phases`: one more run's phases on the GPU's clock, microseconds after its first block
    /// started its loop: [the last batch's end, the first sight of the end, the last block's
    /// exit, the run's event time (launch and events included)].
    pub phases_us: Option<[f64; 4]>,
    /// Runs whose kernel stamps its rings (a one-GPU persistent program without a priority
    /// queue, asked by `--stamped-rings` or `ATOS_STAMPED_RINGS`, or by default where some task
    /// runs on thread or warp workers: `KernelSpec::stamps_rings`): true; null otherwise.
    pub stamped_rings: Option<bool>,
    /// PageRank: the tolerance.
    pub epsilon: Option<f64>,
    /// PageRank: the L1 distance of the last run's ranks to power iteration's (atos rows), or
    /// the original's printed rank error against its own CPU push code (original rows).
    pub rank_l1: Option<f64>,
    /// PageRank: the L1 distance a converged answer may have, `n * epsilon / (1 - d)`.
    pub rank_bound: Option<f64>,
    /// Colouring: colours the last run used.
    pub colors: Option<u64>,
    /// Colouring: colours of CPU first-fit greedy in vertex order.
    pub greedy_colors: Option<u64>,
    /// Priority apps: the delta the threshold advances by (k-core: 1, one level).
    pub delta: Option<f64>,
    /// Priority queues: threshold advances of the last run.
    pub advances: Option<u64>,
    /// Priority queues: far items the last run's passes looked at (moved near or next, or
    /// pushed back to the far ring), and those they moved (`PriorityStats::examined`, `moved`).
    pub far_examined: Option<u64>,
    pub far_moved: Option<u64>,
    /// `sssp-priority`, `bfs-priority`: band items (near and open next) an advance may leave in flight
    /// (`--advance-slack`; 0: each advance waits for the band to finish). Absent in records
    /// written before it existed.
    #[serde(default)]
    pub advance_slack: Option<u64>,
    /// `sssp`, `sssp-priority`: which stale tasks relaxed nothing (`--prune-stale`: `on`,
    /// `off`, `above:D`). Absent in records written before it existed.
    #[serde(default)]
    pub prune_stale: Option<String>,
    /// `sssp-priority`, `bfs-priority`, `kcore` on the GPU: whether persistent CTA groups parked
    /// their next-band pushes (`--park`). Absent in records written before it existed.
    #[serde(default)]
    pub park: Option<bool>,
    /// GPU runs: `--share` as given; without it, `false` for a persistent CTA configuration
    /// where no chunk of the graph could be posted at this fetch (`atos::share_can_post`: the
    /// bench turns sharing off there), absent
    /// otherwise (the program's default; see docs/runtime.md "Shared ranges"). Absent in
    /// records written before it existed.
    #[serde(default)]
    pub share: Option<bool>,
    /// Colouring: the degree above which `assign_big` coloured a vertex on a CTA
    /// (`--split-degree`; absent: no split).
    #[serde(default)]
    pub split_degree: Option<u32>,
    /// Colouring with a split: how many vertices `assign_big` took at a time
    /// (`--split-big-fetch`, 1 by default; absent: no split, and in older records).
    #[serde(default)]
    pub split_big_fetch: Option<u32>,
    /// Colouring with a split: the most free colours `assign_big` passed over when it
    /// re-coloured (`--tie-skip`, 0 by default: first fit; absent: no split, and in older
    /// records).
    #[serde(default)]
    pub tie_skip: Option<u32>,
    /// Colouring with a split: `true` when each hub was coloured a window of 64 colours per
    /// task (`--hub-windows`); absent otherwise and in older records.
    #[serde(default)]
    pub hub_windows: Option<bool>,
    /// Colouring with a split: `true` when the hubs were seeded by descending degree
    /// (`--hubs-by-degree`); absent otherwise and in older records.
    #[serde(default)]
    pub hubs_by_degree: Option<bool>,
    /// Colouring with a split: `true` when each colour task checked its own vertex
    /// (`--fused-check`, `coloring::split_fused`); absent otherwise and in older records.
    #[serde(default)]
    pub fused_check: Option<bool>,
    /// Colouring: `true` when `check` ran inline (`--inline-check`); absent otherwise and in
    /// older records.
    #[serde(default)]
    pub inline_check: Option<bool>,
    /// k-core: the largest core number (bucket peeling's; every run is checked equal).
    pub max_core: Option<u32>,
    /// k-core: how many levels ahead vertices were queued (`--kcore-window`, clamped to
    /// `1..=bound + 1`).
    pub kcore_window: Option<u32>,
    /// Devices the run was spread over (absent: one).
    pub devices: Option<usize>,
    /// Spread runs: the partition (`vertices`, `edges`, `random:SEED`).
    pub partition: Option<String>,
    /// Spread runs: how pushes to another device travel (`eager`, `BATCH:WAIT_US` or `BATCH:WAIT_US:idle`).
    pub aggregation: Option<String>,
    /// Spread runs: items pushed from one device to another in the last run.
    pub remote_items: Option<u64>,
    /// Spread runs: bytes of those items (item size x items; remote atomics and loads are in
    /// `device_remote_ops`).
    pub remote_bytes: Option<u64>,
    /// Spread runs: tasks each device ran in the last run.
    pub device_tasks: Option<Vec<u64>>,
    /// Spread runs: loads, stores and atomics each device's tasks made on `Atomics` elements
    /// in another device's memory in the last run (the CPU executor counts what GPUs would).
    pub device_remote_ops: Option<Vec<u64>>,
    /// Spread runs: elements each device delivered from its combine copies in the last run
    /// (its `accumulate`s into other devices' elements, one add per element and delivery).
    pub device_delivered: Option<Vec<u64>>,
    /// Spread runs of programs that `accumulate`: whether their adds into other devices'
    /// elements were combined (`--combine`); absent for programs with nothing to combine.
    pub combining: Option<bool>,
    /// Spread runs that combined: combine-copy positions drained per task after each batch
    /// (`--combine-drain`).
    pub combine_drain: Option<u32>,
    /// `--timeline`, spread GPU runs over peer-to-peer: per device, (microseconds since just
    /// before the first launch, items it had taken: claimed from its local and receive rings,
    /// or kept by the group that pushed them),
    /// sampled by the host during one more run (verified, never timed), the last point at the
    /// latest kernel end, at most 500 points each. Absent in records written before it existed.
    #[serde(default)]
    pub device_progress: Option<Vec<Vec<(f64, u64)>>>,
    /// From `device_progress`: per device, the share of the sampled run in which its items
    /// taken grew (1.0: it took items between every two samples).
    #[serde(default)]
    pub device_active: Option<Vec<f64>>,
    /// From `device_progress`: from the first sample that saw every item the run took to
    /// its end: how long the devices went on after the last one was taken (finishing it, termination, an idle hook's last sweeps), at most one `sample_gap_us` short.
    #[serde(default)]
    pub end_tail_ms: Option<f64>,
    /// From `device_progress`: from the first sample at which the devices together had taken
    /// 99% of the run's items to its end (the run's last items). Absent in older records.
    #[serde(default)]
    pub last_items_ms: Option<f64>,
    /// The median gap between two progress samples, in microseconds.
    #[serde(default)]
    pub sample_gap_us: Option<f64>,
    pub timeout_s: f64,
    /// Unix seconds when the configuration finished.
    pub timestamp: u64,
    pub atos_version: String,
    /// atos rows: the fingerprint of the runtime's device headers the `atos` binary carries
    /// (`atos::headers::device_code_id`, as `atos --version` prints it; not of the CUDA
    /// atos-codegen generates per task); absent for the original's rows and in older records.
    pub device_code: Option<String>,
    /// GPU atos rows: the first 16 hex digits of the compiled unit's identity
    /// (`atos::gpu::nvrtc::unit_id`, its kernel-cache key: the generated CUDA, the device
    /// headers, NVRTC's options, the architecture and NVRTC's version). Equal ids ran the same
    /// compiled CUDA; absent on the CPU, for the original's rows and in older records.
    #[serde(default)]
    pub unit: Option<String>,
    /// GPU atos rows: registers per thread of the loaded kernel (`Program::resources`).
    #[serde(default)]
    pub registers: Option<u32>,
    /// GPU atos rows: local memory per thread (spilled registers, arrays indexed at run time).
    #[serde(default)]
    pub local_bytes: Option<u32>,
    /// GPU atos rows: blocks of the run's block size that fit on one SM at once.
    #[serde(default)]
    pub blocks_per_sm: Option<u32>,
    /// One-GPU atos rows: device memory the uploaded state held after the last run
    /// (`DeviceState::device_bytes`: fields, pristine copies, rings, control block).
    #[serde(default)]
    pub device_bytes: Option<u64>,
}

impl Record {
    /// A record with the graph's fields filled and nothing measured yet.
    pub fn new(graph: &GraphInfo, implementation: &str, app: &str) -> Record {
        Record {
            schema: SCHEMA,
            implementation: implementation.into(),
            app: app.into(),
            graph: graph.spec.clone(),
            graph_signature: graph.signature.clone(),
            vertices: graph.signature.vertices,
            edges: graph.signature.edges,
            source: graph.source,
            reached: graph.reached,
            max_depth: graph.max_depth,
            executor: String::new(),
            device: String::new(),
            strategy: String::new(),
            worker: String::new(),
            fetch: None,
            block: None,
            min_blocks: None,
            idle_nap_ns: None,
            idle_nap_doublings: None,
            queue: String::new(),
            cpu_threads: None,
            binary: None,
            idle: None,
            runs: 0,
            warmup: 0,
            status: Status::Ok,
            verified: false,
            error: None,
            note: None,
            mismatches: None,
            runs_failed: 0,
            times_ms: Vec::new(),
            median_ms: None,
            min_ms: None,
            mteps: None,
            workload_ratio: None,
            popped: None,
            pushed: None,
            queue_peak: None,
            helped: None,
            launches: None,
            levels: None,
            grid: None,
            wall_ms: None,
            upload_ms: None,
            uploaded_bytes: None,
            compile_ms: None,
            compile_origin: None,
            timeline: None,
            timeline_queues: None,
            phases_us: None,
            stamped_rings: None,
            epsilon: None,
            rank_l1: None,
            rank_bound: None,
            colors: None,
            greedy_colors: None,
            delta: None,
            advances: None,
            far_examined: None,
            far_moved: None,
            advance_slack: None,
            prune_stale: None,
            park: None,
            share: None,
            max_core: None,
            kcore_window: None,
            split_degree: None,
            split_big_fetch: None,
            tie_skip: None,
            hub_windows: None,
            fused_check: None,
            hubs_by_degree: None,
            inline_check: None,
            devices: None,
            partition: None,
            aggregation: None,
            remote_items: None,
            remote_bytes: None,
            device_tasks: None,
            device_remote_ops: None,
            device_delivered: None,
            combining: None,
            combine_drain: None,
            device_progress: None,
            device_active: None,
            end_tail_ms: None,
            last_items_ms: None,
            sample_gap_us: None,
            timeout_s: 0.0,
            timestamp: 0,
            atos_version: env!("CARGO_PKG_VERSION").into(),
            device_code: (implementation == "atos").then(|| atos::headers::device_code_id().into()),
            unit: None,
            registers: None,
            local_bytes: None,
            blocks_per_sm: None,
            device_bytes: None,
        }
    }

    /// Marks the record failed: no time is reported, whatever runs passed before.
    pub fn fail(&mut self, error: String, mismatches: Option<u64>) {
        self.status = Status::Failed;
        self.verified = false;
        self.error = Some(error);
        self.mismatches = mismatches;
        self.runs_failed = self.runs_failed.max(1);
        self.times_ms.clear();
        self.median_ms = None;
        self.min_ms = None;
        self.mteps = None;
        self.timeline = None;
        self.timeline_queues = None;
        self.phases_us = None;
    }

    pub fn skip(&mut self, note: String) {
        self.status = Status::Skipped;
        self.verified = false;
        self.note = Some(note);
    }

    /// Fills median, min and MTEPS from `times_ms` (nothing when it is empty).
    pub fn summarize_times(&mut self) {
        self.median_ms = median(&self.times_ms);
        self.min_ms = self.times_ms.iter().copied().reduce(f64::min);
        self.mteps = self
            .median_ms
            .filter(|&m| m > 0.0)
            .map(|m| self.edges as f64 / (m / 1e3) / 1e6);
    }

    pub fn finish(&mut self) {
        self.timestamp = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
    }

    /// `warp/64`, `cpu/8`, `cta` (original rows without a fetch).
    pub fn worker_fetch(&self) -> String {
        match self.fetch {
            Some(f) => format!("{}/{f}", self.worker),
            None => self.worker.clone(),
        }
    }

    /// [`Record::worker_fetch`], with the blocks the row launched (`thread/64 @264`) when
    /// `with_grid` and the row has a grid: the form tables and plots use where [`grids_vary`].
    pub fn worker_fetch_at(&self, with_grid: bool) -> String {
        match (with_grid, self.grid) {
            (true, Some([blocks, _])) => format!("{} @{blocks}", self.worker_fetch()),
            _ => self.worker_fetch(),
        }
    }

    /// Whether `other` ran the same app and configuration on the same graph (devices and how
    /// they were spread, strategy, worker/fetch, queue, split), whatever its grid.
    fn same_config_but_grid(&self, other: &Record) -> bool {
        self.graph == other.graph
            && self.app == other.app
            && self.devices == other.devices
            && self.spread_label() == other.spread_label()
            && self.strategy == other.strategy
            && self.worker == other.worker
            && self.fetch == other.fetch
            && self.queue == other.queue
            && self.split_degree == other.split_degree
            && self.split_big_fetch == other.split_big_fetch
            && self.tie_skip == other.tie_skip
            && self.hub_windows == other.hub_windows
            && self.hubs_by_degree == other.hubs_by_degree
            && self.fused_check == other.fused_check
            && self.inline_check == other.inline_check
            && self.idle_nap_ns == other.idle_nap_ns
            && self.idle_nap_doublings == other.idle_nap_doublings
            && self.stamped_rings == other.stamped_rings
    }

    /// How a spread run's devices talk: `nvshmem` for the ranks of an NVSHMEM run (their
    /// `device` names it), `simulated` for the CPU executor's devices, else `p2p`.
    pub fn transport(&self) -> &'static str {
        if self.device.contains("NVSHMEM") {
            "nvshmem"
        } else if self.device.starts_with("CPU") {
            "simulated"
        } else {
            "p2p"
        }
    }

    /// A spread run's way of spreading: `transport aggregation partition` (`p2p eager
    /// vertices`).
    pub fn spread_label(&self) -> String {
        format!(
            "{} {} {}",
            self.transport(),
            self.aggregation.as_deref().unwrap_or("eager"),
            self.partition.as_deref().unwrap_or("vertices")
        )
    }
}

/// What every record of a graph shares.
pub struct GraphInfo {
    pub spec: String,
    pub signature: GraphSignature,
    pub source: u32,
    pub reached: u64,
    pub max_depth: u32,
}

/// The median (mean of the middle two for an even count); `None` for no values.
pub fn median(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    Some(if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    })
}

pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// At most `max` points of `points`, evenly spaced, keeping the first and the last.
pub fn downsample<T: Clone>(points: &[T], max: usize) -> Vec<T> {
    if points.len() <= max || max < 2 {
        return points.to_vec();
    }
    let last = points.len() - 1;
    (0..max)
        .map(|i| points[i * last / (max - 1)].clone())
        .collect::<Vec<_>>()
}

/// Whether some atos configuration ran at more than one grid (`atos bench --grid` with
/// several values): its rows differ only in their blocks, so tables and plots name them
/// ([`Record::worker_fetch_at`]).
pub fn grids_vary<'r>(records: impl IntoIterator<Item = &'r Record>) -> bool {
    let ours: Vec<&Record> = records
        .into_iter()
        .filter(|r| r.implementation == "atos")
        .collect();
    let blocks = |r: &Record| r.grid.map(|g| g[0]);
    ours.iter().enumerate().any(|(i, a)| {
        ours[..i]
            .iter()
            .any(|b| a.same_config_but_grid(b) && blocks(a) != blocks(b))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[3.0]), Some(3.0));
        assert_eq!(median(&[5.0, 1.0, 3.0]), Some(3.0));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
    }

    #[test]
    fn rows_name_their_blocks_where_a_configuration_ran_at_several() {
        let info = GraphInfo {
            spec: "grid:64x64".into(),
            signature: GraphSignature {
                vertices: 4096,
                edges: 16128,
                max_degree: 4,
                avg_degree: 3.9,
            },
            source: 0,
            reached: 4096,
            max_depth: 126,
        };
        let row = |worker: &str, fetch: u32, blocks: u32| {
            let mut r = Record::new(&info, "atos", "coloring");
            r.strategy = "persistent".into();
            r.worker = worker.into();
            r.fetch = Some(fetch);
            r.queue = "ring".into();
            r.grid = Some([blocks, 256]);
            r
        };
        // Each configuration at its own (default) grid: nothing to tell apart.
        let plain = [
            row("thread", 64, 660),
            row("thread", 8, 528),
            row("cta", 64, 792),
        ];
        assert!(!grids_vary(&plain));
        assert_eq!(plain[0].worker_fetch_at(false), "thread/64");
        // thread/64 at 264 blocks and at the default.
        let swept = [
            row("thread", 64, 264),
            row("thread", 64, 660),
            row("cta", 64, 792),
        ];
        assert!(grids_vary(&swept));
        assert_eq!(swept[0].worker_fetch_at(true), "thread/64 @264");
        // A CPU row has no grid.
        let mut cpu = row("cpu", 64, 0);
        cpu.grid = None;
        assert_eq!(cpu.worker_fetch_at(true), "cpu/64");
        // The original's rows are not configurations of ours.
        let mut orig = row("thread", 64, 100);
        orig.implementation = "original".into();
        assert!(!grids_vary(&[row("thread", 64, 660), orig]));
    }

    #[test]
    fn downsampling_keeps_the_ends() {
        let v: Vec<u32> = (0..1000).collect();
        let d = downsample(&v, 500);
        assert_eq!(d.len(), 500);
        assert_eq!(d[0], 0);
        assert_eq!(*d.last().unwrap(), 999);
        assert!(d.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(downsample(&v[..10], 500).len(), 10);
    }
}
