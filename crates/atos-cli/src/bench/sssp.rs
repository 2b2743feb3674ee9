//! SSSP configurations: speculative SSSP (`atos::apps::sssp`, u32 or f32 weights) in FIFO or
//! priority order on the GPU or the CPU executor (persistent and discrete: asynchronous; bsp:
//! Bellman-Ford or delta-stepping by levels), every run checked against Dijkstra (u32: exact
//! sums; f32: Dijkstra adding in f32 as the task does, compared bit for bit).

use atos::apps::sssp::{self, Order, Prune, SsspArrays, Weight};
use atos::{Gpu, Seeds, Stats};
use atos_graph::Weights;

use super::record::Record;
use super::runner;
use super::{Config, Fail, RunOpts};

/// Everything the configurations of one graph share, for weights of type `W`.
pub struct SsspInput<W: Weight> {
    pub offsets: Vec<u32>,
    pub weights: Vec<W>,
    /// Dijkstra's distances (`W::UNREACHED` where no path exists).
    pub reference: Vec<W>,
    /// The most edges on any vertex's fewest-edge shortest path
    /// (`atos_graph::reference::sssp::shortest_path_hops`): the dependent relaxations any
    /// exact run makes, the record's `max_depth`.
    pub hops: u32,
    pub source: u32,
    pub capacity: u64,
    pub order: Order<W>,
    /// Which stale tasks relax nothing (`SsspArrays::state_with`).
    pub prune: Prune,
}

/// An SSSP input of either weight type.
pub enum Sssp {
    U32(SsspInput<u32>),
    F32(SsspInput<f32>),
}

/// How a run orders its tasks: FIFO, or priority with a delta given or scaled from the
/// default; and which stale tasks are pruned (`None`: the order's, `Prune::default_for`).
#[derive(Clone, Copy)]
pub struct Wanted {
    pub order: WantedOrder,
    pub prune: Option<Prune>,
}

/// The order part of [`Wanted`].
#[derive(Clone, Copy)]
pub enum WantedOrder {
    Fifo,
    Priority {
        delta: Option<f64>,
        scale: f64,
        slack: u64,
    },
}

impl Sssp {
    /// Whether runs use the priority queue (else FIFO).
    pub fn is_priority(&self) -> bool {
        match self {
            Sssp::U32(i) => !matches!(i.order, Order::Fifo),
            Sssp::F32(i) => !matches!(i.order, Order::Fifo),
        }
    }

    pub fn new(g: &atos_graph::Csr, source: u32, wanted: Wanted) -> Result<Sssp, String> {
        match &g.weights {
            Some(Weights::U32(w)) => {
                let exact =
                    atos_graph::reference::sssp::dijkstra(g, source).map_err(|e| e.to_string())?;
                let hops = atos_graph::reference::sssp::shortest_path_hops(g, source, &exact)
                    .map_err(|e| e.to_string())?;
                let mut reference = Vec::with_capacity(exact.len());
                for (v, &d) in exact.iter().enumerate() {
                    if d.is_infinite() {
                        reference.push(sssp::UNREACHED);
                    } else if d >= f64::from(sssp::UNREACHED) {
                        return Err(format!(
                            "vertex {v} is at distance {d}, past what u32 distances hold ({})",
                            sssp::UNREACHED - 1
                        ));
                    } else {
                        reference.push(d as u32);
                    }
                }
                let given = |d: f64| {
                    if d.fract() != 0.0 || d > f64::from(u32::MAX) {
                        return Err(format!(
                            "--delta {d}: this graph has u32 weights, which take a whole delta of 1 or more"
                        ));
                    }
                    Ok(d as u32)
                };
                SsspInput::new(g, w, reference, hops, source, wanted, given).map(Sssp::U32)
            }
            Some(Weights::F32(w)) => {
                let offsets = g.offsets_u32().map_err(|e| e.to_string())?;
                sssp::check_weights(&offsets, &g.cols, w).map_err(|e| e.to_string())?;
                let reference = atos_graph::reference::sssp::dijkstra_f32(g, source)
                    .map_err(|e| e.to_string())?;
                // With every weight finite, a vertex the edges reach has a finite distance
                // unless the f32 sum overflowed; the u32 case above is refused likewise.
                if w.iter().all(|x| x.is_finite()) {
                    use atos_graph::reference::bfs::{UNREACHED, bfs_depths};
                    let depths = bfs_depths(g, source);
                    let lost = (0..depths.len())
                        .find(|&v| depths[v] != UNREACHED && reference[v].is_infinite());
                    if let Some(v) = lost {
                        return Err(format!(
                            "vertex {v} is reachable from {source} but its distance overflows f32 (past {:e}); scale the weights down",
                            f32::MAX
                        ));
                    }
                }
                let hops = atos_graph::reference::sssp::shortest_path_hops_f32(g, source, &reference)
                    .map_err(|e| e.to_string())?;
                SsspInput::new(g, w, reference, hops, source, wanted, |d| Ok(d as f32))
                    .map(Sssp::F32)
            }
            None => Err(
                "sssp needs edge weights: a weighted file (.gr, weighted .mtx), a generator with `w=MAX` (grid:4096x4096,w=100) or --weights MAX"
                    .into(),
            ),
        }
    }

    pub fn reached(&self) -> u64 {
        match self {
            Sssp::U32(i) => i.reached(),
            Sssp::F32(i) => i.reached(),
        }
    }

    /// The most edges on any vertex's fewest-edge shortest path.
    pub fn hops(&self) -> u32 {
        match self {
            Sssp::U32(i) => i.hops,
            Sssp::F32(i) => i.hops,
        }
    }

    /// The delta of a priority run (`None`: FIFO).
    pub fn delta(&self) -> Option<f64> {
        match self {
            Sssp::U32(SsspInput {
                order: Order::Priority { delta, .. },
                ..
            }) => Some(f64::from(*delta)),
            Sssp::F32(SsspInput {
                order: Order::Priority { delta, .. },
                ..
            }) => Some(f64::from(*delta)),
            _ => None,
        }
    }

    /// Which stale tasks relax nothing.
    pub fn prune(&self) -> Prune {
        match self {
            Sssp::U32(i) => i.prune,
            Sssp::F32(i) => i.prune,
        }
    }

    /// The advance slack of a priority run (`None`: FIFO).
    pub fn slack(&self) -> Option<u64> {
        match self {
            Sssp::U32(SsspInput {
                order: Order::Priority { slack, .. },
                ..
            })
            | Sssp::F32(SsspInput {
                order: Order::Priority { slack, .. },
                ..
            }) => Some(*slack),
            _ => None,
        }
    }

    /// `fifo` or `priority`, and the weight type.
    pub fn describe(&self) -> String {
        let (order, weights) = match self {
            Sssp::U32(i) => (i.order.name(), "u32"),
            Sssp::F32(i) => (i.order.name(), "f32"),
        };
        let delta = self
            .delta()
            .map_or(String::new(), |d| format!(", delta {d}"));
        format!(
            "{order} order, {weights} weights{delta}, pruning stale tasks {}",
            self.prune()
        )
    }

    pub fn run(
        &self,
        gpu: Option<&Gpu>,
        cols: &[u32],
        cfg: &Config,
        opts: &RunOpts,
        rec: &mut Record,
    ) -> Result<(), Fail> {
        match self {
            Sssp::U32(i) => run(gpu, i, cols, cfg, opts, rec),
            Sssp::F32(i) => run(gpu, i, cols, cfg, opts, rec),
        }
    }

    /// Why a GPU configuration cannot be built, so that it is skipped rather than failed.
    pub fn gpu_skip_reason(&self, gpu: &Gpu, cfg: &Config, opts: &RunOpts) -> Option<String> {
        match self {
            Sssp::U32(_) => skip::<u32>(gpu, cfg, opts),
            Sssp::F32(_) => skip::<f32>(gpu, cfg, opts),
        }
    }
}

/// FIFO order queues a vertex once per improvement: on one H100, persistent CTA workers had
/// 4.5x the edge count alive at once on grid:4096x4096,w=100 (303 M items; the overflow
/// stopped a run with 4x there). A run that needs more than 8x fails with the capacity it needs.
fn fifo_capacity(g: &atos_graph::Csr) -> u64 {
    8 * (g.num_vertices().max(g.num_edges()) as u64) + 1
}

/// Served by priority at the default delta or a narrower one, far fewer items are alive at
/// once: on one H100 the peak was at most 6% of the edge count (kron:22,w=1000 4.7 M of 128 M;
/// delaunay_n16 27 K of 393 K; every strategy), so each ring gets `V + E + 1` (`bfs::default_queue_capacity`). At FIFO's
/// `8 x max(V, E) + 1`, kron:22's three rings held 61 GB of the H100's 80
/// (docs/results/2026-11-24h-push-registers-h100.md). Wider bands come closer to FIFO order,
/// and so does relaxing every stale task: those runs keep FIFO's capacity.
fn priority_capacity(g: &atos_graph::Csr, wanted: &Wanted) -> u64 {
    let narrow =
        matches!(wanted.order, WantedOrder::Priority { delta: None, scale, .. } if scale <= 1.0);
    if narrow && wanted.prune != Some(Prune::Never) {
        atos::apps::bfs::default_queue_capacity(g.num_vertices(), g.num_edges())
    } else {
        fifo_capacity(g)
    }
}

impl<W: Weight> SsspInput<W> {
    /// The input over weights `w` with Dijkstra's distances and the fewest edges of each
    /// vertex's shortest paths (`hops`, `u32::MAX` where unreached); `given` turns a `--delta` (a
    /// positive number) into a delta of the weights' type or says why it cannot be one.
    fn new(
        g: &atos_graph::Csr,
        w: &[W],
        reference: Vec<W>,
        hops: Vec<u32>,
        source: u32,
        wanted: Wanted,
        given: impl Fn(f64) -> Result<W, String>,
    ) -> Result<SsspInput<W>, String> {
        let offsets = g.offsets_u32().map_err(|e| e.to_string())?;
        let order = match wanted.order {
            WantedOrder::Fifo => Order::Fifo,
            WantedOrder::Priority {
                delta: Some(d),
                slack,
                ..
            } => Order::Priority {
                delta: given(d)?,
                slack,
            },
            WantedOrder::Priority {
                delta: None,
                scale,
                slack,
            } => {
                let default: f64 = sssp::default_delta(&offsets, w).into();
                Order::Priority {
                    delta: W::delta_of_bands(default * scale, 1),
                    slack,
                }
            }
        };
        Ok(SsspInput {
            offsets,
            weights: w.to_vec(),
            reference,
            hops: atos_graph::reference::sssp::max_hops(&hops),
            source,
            capacity: match order {
                Order::Fifo => fifo_capacity(g),
                Order::Priority { .. } => priority_capacity(g, &wanted),
            },
            order,
            prune: wanted.prune.unwrap_or(Prune::default_for(order)),
        })
    }

    pub fn reached(&self) -> u64 {
        self.reference
            .iter()
            .filter(|&&d| d != W::UNREACHED)
            .count() as u64
    }
}

fn skip<W: Weight>(gpu: &Gpu, cfg: &Config, opts: &RunOpts) -> Option<String> {
    runner::skip_reason(&runner::builder(gpu, W::Relax::default(), cfg, opts))
}

/// One configuration on the GPU (`gpu` set) or the CPU executor: every run verified.
fn run<W: Weight>(
    gpu: Option<&Gpu>,
    input: &SsspInput<W>,
    cols: &[u32],
    cfg: &Config,
    opts: &RunOpts,
    rec: &mut Record,
) -> Result<(), Fail> {
    let a = SsspArrays::<W>::new(input.reference.len(), input.source);
    let state = a.state_with(
        &input.offsets,
        cols,
        &input.weights,
        input.capacity,
        input.order,
        input.prune,
    );
    let verify = |label: &str| {
        let mut got = a.dist.to_vec();
        if opts.corrupt {
            // The test hook: the last vertex off (its source distance, or unreached).
            let v = got.len() - 1;
            got[v] = if got[v] == W::ZERO {
                W::UNREACHED
            } else {
                W::ZERO
            };
        }
        let bad = atos::apps::bfs::mismatches(&got, &input.reference);
        Fail::check_mismatches(bad, input.reference.len(), "distances", "Dijkstra's", label)
    };
    let reset = || a.reset();
    let reached = input.reached().max(1) as f64;
    let workload = |s: &Stats| s.popped as f64 / reached;
    let checks = runner::Checks {
        verify: &verify,
        reset: &reset,
        workload: &workload,
    };
    let app = checks.app(&state, Seeds::new().add(W::Relax::default(), &a.seeds()));
    let build = |gpu: &Gpu| runner::builder(gpu, W::Relax::default(), cfg, opts);
    runner::run(gpu, &build, &app, cfg, opts, rec)
}
