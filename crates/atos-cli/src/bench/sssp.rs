//! SSSP configurations: speculative SSSP (`atos::apps::sssp`, u32 weights) in FIFO or priority
//! order on the GPU or the CPU executor (persistent and discrete: asynchronous; bsp:
//! Bellman-Ford or delta-stepping by levels), every run checked against Dijkstra.

use atos::apps::sssp::{self, Order, UNREACHED, relax};
use atos::{Gpu, Seeds, Stats};
use atos_graph::Weights;

use super::record::Record;
use super::runner::{self, AppRun};
use super::{Config, Fail, RunOpts};

/// Everything the configurations of one graph share.
pub struct SsspInput {
    pub offsets: Vec<u32>,
    pub weights: Vec<u32>,
    /// Dijkstra's distances (`UNREACHED` where no path exists).
    pub reference: Vec<u32>,
    pub source: u32,
    pub capacity: u64,
    pub order: Order,
}

impl SsspInput {
    /// FIFO order when `priority` is `None`; else priority order with the delta given (or
    /// `sssp::default_delta` times the scale).
    pub fn new(
        g: &atos_graph::Csr,
        source: u32,
        priority: Option<(Option<u32>, f64)>,
    ) -> Result<SsspInput, String> {
        let weights = match &g.weights {
            Some(Weights::U32(w)) => w.clone(),
            Some(Weights::F32(_)) => {
                return Err(
                    "sssp runs u32 weights; this graph has f32 weights (f32 SSSP is not built yet)"
                        .into(),
                );
            }
            None => {
                return Err(
                    "sssp needs edge weights: a weighted file (.gr, weighted .mtx) or a generator with `w=MAX` (grid:4096x4096,w=100)"
                        .into(),
                );
            }
        };
        let exact = atos_graph::reference::sssp::dijkstra(g, source).map_err(|e| e.to_string())?;
        let mut reference = Vec::with_capacity(exact.len());
        for (v, &d) in exact.iter().enumerate() {
            if d.is_infinite() {
                reference.push(UNREACHED);
            } else if d >= f64::from(UNREACHED) {
                return Err(format!(
                    "vertex {v} is at distance {d}, past what u32 distances hold ({})",
                    UNREACHED - 1
                ));
            } else {
                reference.push(d as u32);
            }
        }
        let offsets = g.offsets_u32().map_err(|e| e.to_string())?;
        Ok(SsspInput {
            reference,
            source,
            // FIFO order queues a vertex once per improvement: on one H100, persistent CTA
            // workers had 4.5x the edge count alive at once on grid:4096x4096,w=100 (303 M
            // items; the overflow stopped a run with 4x there). A run that needs more than 8x
            // fails with the capacity it needs.
            capacity: 8 * (g.num_vertices().max(g.num_edges()) as u64) + 1,
            order: match priority {
                None => Order::Fifo,
                Some((delta, scale)) => Order::Priority {
                    delta: delta.unwrap_or_else(|| {
                        let d = f64::from(sssp::default_delta(&offsets, &weights)) * scale;
                        d.clamp(1.0, f64::from(u32::MAX)) as u32
                    }),
                },
            },
            weights,
            offsets,
        })
    }

    pub fn reached(&self) -> u64 {
        self.reference.iter().filter(|&&d| d != UNREACHED).count() as u64
    }

    fn verify(&self, dist: &[u32], run: &str) -> Result<(), Fail> {
        let bad = atos::apps::bfs::mismatches(dist, &self.reference);
        Fail::check_mismatches(bad, self.reference.len(), "distances", "Dijkstra's", run)
    }
}

/// Why a GPU configuration cannot be built, so that it is skipped rather than failed.
pub fn gpu_skip_reason(gpu: &Gpu, cfg: &Config, opts: &RunOpts) -> Option<String> {
    runner::skip_reason(&runner::builder(gpu, relax::Task, cfg, opts))
}

/// One configuration on the GPU (`gpu` set) or the CPU executor: every run verified.
pub fn run(
    gpu: Option<&Gpu>,
    input: &SsspInput,
    cols: &[u32],
    cfg: &Config,
    opts: &RunOpts,
    rec: &mut Record,
) -> Result<(), Fail> {
    let a = sssp::SsspArrays::new(input.reference.len(), input.source);
    let state = a.state(
        &input.offsets,
        cols,
        &input.weights,
        input.capacity,
        input.order,
    );
    let verify = |label: &str| {
        if opts.corrupt {
            // The test hook: the last vertex one off.
            let v = (input.reference.len() - 1) as u32;
            a.dist.view().store(v, a.dist.view().load(v) ^ 1);
        }
        input.verify(&a.dist.to_vec(), label)
    };
    let reset = || a.reset();
    let reached = input.reached().max(1) as f64;
    let workload = |s: &Stats| s.popped as f64 / reached;
    let app = AppRun {
        state: &state,
        seeds: Seeds::new().add(relax::Task, &a.seeds()),
        verify: &verify,
        reset: &reset,
        workload: &workload,
    };
    let build = |gpu: &Gpu| runner::builder(gpu, relax::Task, cfg, opts);
    runner::run(gpu, &build, &app, cfg, opts, rec)
}
