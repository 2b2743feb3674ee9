//! k-core configurations: peeling on a priority queue (`atos::apps::kcore`) on the GPU or the
//! CPU executor (persistent and discrete: levels without barriers; bsp: one level's peels per
//! step), every run's core numbers checked against bucket peeling.

use atos::apps::kcore::{self, KcoreArrays, peel};
use atos::{Gpu, Seeds, Stats};
use atos_graph::reference::kcore::core_numbers;

use super::record::Record;
use super::runner;
use super::{Config, Fail, RunOpts};

/// Everything the configurations of one graph share.
pub struct KcoreInput {
    pub offsets: Vec<u32>,
    pub degrees: Vec<u32>,
    /// Bucket peeling's core numbers.
    pub reference: Vec<u32>,
    pub capacity: u64,
    /// `--kcore-window`, if given.
    pub window: Option<u32>,
}

impl KcoreInput {
    pub fn new(g: &atos_graph::Csr, window: Option<u32>) -> Result<KcoreInput, String> {
        let offsets = g.offsets_u32().map_err(|e| e.to_string())?;
        // The library's check first: its error is the one a program of one's own would get.
        let checked = KcoreArrays::for_graph(&offsets, &g.cols).map_err(|e| e.to_string())?;
        let reference = core_numbers(g).map_err(|e| e.to_string())?;
        Ok(KcoreInput {
            degrees: checked.degrees().to_vec(),
            offsets,
            reference,
            capacity: kcore::capacity(g.num_vertices(), g.num_edges()),
            window,
        })
    }

    /// The arrays of a run, with the window asked for.
    fn arrays(&self) -> KcoreArrays {
        let a = KcoreArrays::new(self.degrees.clone());
        match self.window {
            Some(w) => a.with_window(w),
            None => a,
        }
    }

    /// The window runs use (clamped as the state clamps it).
    pub fn window(&self) -> u32 {
        kcore::effective_window(
            self.window.unwrap_or(kcore::DEFAULT_WINDOW),
            kcore::core_bound(&self.degrees),
        )
    }

    /// The largest core number (the degeneracy).
    pub fn max_core(&self) -> u32 {
        self.reference.iter().copied().max().unwrap_or(0)
    }
}

/// Why a GPU configuration cannot be built, so that it is skipped rather than failed.
pub fn gpu_skip_reason(gpu: &Gpu, cfg: &Config, opts: &RunOpts) -> Option<String> {
    runner::skip_reason(&runner::builder(gpu, peel::Task, cfg, opts))
}

/// One configuration on the GPU (`gpu` set) or the CPU executor: every run verified.
pub fn run(
    gpu: Option<&Gpu>,
    input: &KcoreInput,
    cols: &[u32],
    cfg: &Config,
    opts: &RunOpts,
    rec: &mut Record,
) -> Result<(), Fail> {
    let a = input.arrays();
    let state = a.state(&input.offsets, cols, input.capacity);
    let n = input.reference.len();
    let verify = |label: &str| {
        if opts.corrupt && n > 0 {
            // The test hook: the last vertex one level off.
            let v = (n - 1) as u32;
            a.core.view().store(v, a.core.view().load(v) ^ 1);
        }
        let bad = atos::apps::bfs::mismatches(&a.core.to_vec(), &input.reference);
        Fail::check_mismatches(bad, n, "core numbers", "bucket peeling's", label)
    };
    let reset = || a.reset();
    let workload = |s: &Stats| s.popped as f64 / n.max(1) as f64;
    let seeds = a.seeds();
    let checks = runner::Checks {
        verify: &verify,
        reset: &reset,
        workload: &workload,
    };
    let app = checks.app(&state, Seeds::new().add(peel::Task, &seeds));
    let build = |gpu: &Gpu| runner::builder(gpu, peel::Task, cfg, opts);
    runner::run(gpu, &build, &app, cfg, opts, rec)
}
