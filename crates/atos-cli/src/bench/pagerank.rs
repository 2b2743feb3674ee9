//! PageRank configurations: asynchronous push PageRank (`atos::apps::pagerank`, Algorithm 4)
//! or its bulk-synchronous form (`atos::apps::pagerank_bsp`, Algorithm 3), every run checked
//! against power iteration: no residue above the tolerance left, and the L1 distance to the
//! exact ranks within what its residuals left can still add, at most `n * epsilon / (1 - d)`
//! (`check_converged`).

use atos::apps::{pagerank, pagerank_bsp};
use atos::{AtomicArray, Gpu, ProgramBuilder, Seeds, Stats};
use atos_graph::reference::pagerank::{PageRankOptions, check_converged, pagerank_power};

use super::record::Record;
use super::runner;
use super::{Config, Fail, RunOpts};

/// The damping factor (the papers' and the original's lambda).
pub const DAMPING: f32 = 0.85;

/// Which program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// Crossing neighbours queued by the push (Algorithm 4 as written).
    Async,
    /// The same program, every queueing left to the re-scan (`push_crossings` off).
    Rescan,
    Bsp,
}

/// Everything the configurations of one graph share.
pub struct PageRankInput {
    pub offsets: Vec<u32>,
    pub exact: Vec<f64>,
    pub opts: PageRankOptions,
    /// Rounding slack for `check_converged`: f32 sums, plus power iteration's own error.
    slack: f64,
    pub epsilon: f32,
}

impl PageRankInput {
    pub fn new(g: &atos_graph::Csr, epsilon: f32) -> Result<PageRankInput, String> {
        pagerank::check_tolerance(epsilon, DAMPING).map_err(|e| format!("--epsilon: {e}"))?;
        let offsets = g.offsets_u32().map_err(|e| e.to_string())?;
        let opts = PageRankOptions {
            damping: f64::from(DAMPING),
            tolerance: f64::from(epsilon),
            max_iterations: 1000,
        };
        // Power iteration to 1/100 of the tolerance: its own error is then about 1% of the
        // bound the check allows.
        let exact = pagerank_power(
            g,
            PageRankOptions {
                tolerance: f64::from(epsilon) / 100.0,
                ..opts
            },
        );
        let total: f64 = exact.rank.iter().sum();
        Ok(PageRankInput {
            offsets,
            slack: 1e-5 + exact.error_bound / total.max(1e-30),
            exact: exact.rank,
            opts,
            epsilon,
        })
    }

    /// The L1 distance any converged answer may have from the exact ranks, rounding slack
    /// included (`Converged::bound`; each run is held to the tighter `Converged::owed`, what
    /// its own residuals can still add).
    pub fn bound(&self) -> f64 {
        let total: f64 = self.exact.iter().sum();
        self.exact.len() as f64 * f64::from(self.epsilon) / (1.0 - f64::from(DAMPING))
            + self.slack * total
    }

    fn verify(
        &self,
        rank: &AtomicArray<f32>,
        residue: &AtomicArray<f32>,
        corrupt: bool,
        run: &str,
    ) -> Result<f64, Fail> {
        let mut rank = rank.to_vec();
        if corrupt {
            // The test hook: a rank far off (the L1 bound cannot absorb it).
            let last = rank.len() - 1;
            rank[last] += 1e6;
        }
        check_converged(&rank, &residue.to_vec(), &self.exact, self.opts, self.slack)
            .map(|c| c.l1)
            .map_err(|e| Fail::new(format!("{e} ({run})")))
    }
}

pub fn gpu_skip_reason(form: Form, gpu: &Gpu, cfg: &Config, opts: &RunOpts) -> Option<String> {
    match form {
        Form::Async | Form::Rescan => runner::skip_reason(&async_builder(gpu, cfg, opts)),
        Form::Bsp => runner::skip_reason(&bsp_builder(gpu, cfg, opts)),
    }
}

/// The vertex task (`push_rank`, `advance`) takes the configuration's worker kind and fetch;
/// the helper task (the async re-scan, the BSP filter: thread workers, 64 items) keeps its own.
fn async_builder(gpu: &Gpu, cfg: &Config, opts: &RunOpts) -> ProgramBuilder<pagerank::Tasks> {
    runner::builder_for(
        gpu,
        pagerank::Tasks::default(),
        pagerank::push_rank::Task,
        cfg,
        opts,
    )
}

fn bsp_builder(gpu: &Gpu, cfg: &Config, opts: &RunOpts) -> ProgramBuilder<pagerank_bsp::Tasks> {
    runner::builder_for(
        gpu,
        pagerank_bsp::Tasks::default(),
        pagerank_bsp::advance::Task,
        cfg,
        opts,
    )
}

/// One configuration on the GPU (`gpu` set) or the CPU executor.
pub fn run(
    form: Form,
    gpu: Option<&Gpu>,
    input: &PageRankInput,
    cols: &[u32],
    cfg: &Config,
    opts: &RunOpts,
    rec: &mut Record,
) -> Result<(), Fail> {
    let n = input.exact.len();
    let l1 = std::cell::Cell::new(0.0f64);
    // Both forms keep ranks and residues in `PageRankArrays`: one check for both.
    let verify = |ranks: &pagerank::PageRankArrays, label: &str| {
        l1.set(input.verify(&ranks.rank, &ranks.residue, opts.corrupt, label)?);
        Ok(())
    };
    let per_vertex = |tasks: u64| tasks as f64 / n.max(1) as f64;
    let result = match form {
        Form::Async | Form::Rescan => {
            let a = pagerank::PageRankArrays::new(n, DAMPING);
            let mut state = a.state(&input.offsets, cols, input.epsilon, DAMPING);
            state.push_crossings = form == Form::Async;
            let checks = runner::Checks {
                verify: &|label| verify(&a, label),
                reset: &|| a.reset(DAMPING),
                workload: &|s: &Stats| per_vertex(s.popped),
            };
            let app = checks.app(
                &state,
                Seeds::new().add(pagerank::push_rank::Task, &a.seeds),
            );
            runner::run(gpu, &|g| async_builder(g, cfg, opts), &app, cfg, opts, rec)
        }
        Form::Bsp => {
            let a = pagerank_bsp::PageRankBspArrays::new(n, DAMPING);
            let state = a.state(&input.offsets, cols, input.epsilon, DAMPING);
            let checks = runner::Checks {
                verify: &|label| verify(&a.ranks, label),
                reset: &|| a.reset(DAMPING),
                // Vertex tasks are the advances; the filters are bookkeeping.
                workload: &|s: &Stats| per_vertex(s.queue("frontier").map_or(0, |q| q.popped)),
            };
            let app = checks.app(
                &state,
                Seeds::new().add(pagerank_bsp::advance::Task, &a.ranks.seeds),
            );
            runner::run(gpu, &|g| bsp_builder(g, cfg, opts), &app, cfg, opts, rec)
        }
    };
    if result.is_ok() {
        rec.rank_l1 = Some(l1.get());
    }
    result
}
