//! Colouring configurations: speculative greedy colouring (`atos::apps::coloring`),
//! asynchronous under the persistent and discrete strategies, Algorithm 5 under `bsp`; every
//! run checked to be a proper colouring of every vertex, its colour count recorded beside CPU
//! first-fit's.

use atos::apps::coloring::{self, ColoringArrays, UNCOLORED};
use atos::{Gpu, Seeds, Stats};
use atos_graph::reference::coloring::{ColoringOrder, greedy_coloring, validate_coloring};

use super::record::Record;
use super::runner::{self, AppRun};
use super::{Config, Fail, RunOpts};

/// Everything the configurations of one graph share.
pub struct ColoringInput {
    pub offsets: Vec<u32>,
    /// Colours of CPU first-fit greedy in vertex order.
    pub greedy_colors: u64,
}

impl ColoringInput {
    pub fn new(g: &atos_graph::Csr) -> Result<ColoringInput, String> {
        let offsets = g.offsets_u32().map_err(|e| e.to_string())?;
        let greedy = greedy_coloring(g, ColoringOrder::Natural);
        let greedy_colors = validate_coloring(g, &greedy).map_err(|e| e.to_string())?;
        Ok(ColoringInput {
            offsets,
            greedy_colors,
        })
    }
}

/// Both tasks take the configuration's worker kind and fetch.
pub fn gpu_skip_reason(gpu: &Gpu, cfg: &Config, opts: &RunOpts) -> Option<String> {
    runner::skip_reason(&runner::builder(gpu, coloring::Tasks::default(), cfg, opts))
}

/// One configuration on the GPU (`gpu` set) or the CPU executor.
pub fn run(
    gpu: Option<&Gpu>,
    g: &atos_graph::Csr,
    input: &ColoringInput,
    cfg: &Config,
    opts: &RunOpts,
    rec: &mut Record,
) -> Result<(), Fail> {
    let n = g.num_vertices();
    let a = ColoringArrays::new(n);
    let state = a.state(&input.offsets, &g.cols);
    let colors = std::cell::Cell::new(0u64);
    let verify = |label: &str| {
        let mut c = a.color.to_vec();
        if opts.corrupt && n > 0 {
            // The test hook: vertex n - 1 loses its colour.
            c[n - 1] = UNCOLORED;
        }
        let used = validate_coloring(g, &c).map_err(|e| Fail::new(format!("{e} ({label})")))?;
        colors.set(used);
        Ok(())
    };
    let reset = || a.reset();
    // Colour tasks per vertex (checks are one per colour task).
    let workload = |s: &Stats| s.queue("work").map_or(0, |q| q.popped) as f64 / n.max(1) as f64;
    let app = AppRun {
        state: &state,
        seeds: Seeds::new().add(coloring::assign::Task, &a.seeds),
        verify: &verify,
        reset: &reset,
        workload: &workload,
    };
    let build = |gpu: &Gpu| runner::builder(gpu, coloring::Tasks::default(), cfg, opts);
    let result = runner::run(gpu, &build, &app, cfg, opts, rec);

    if result.is_ok() {
        rec.colors = Some(colors.get());
    }
    result
}
