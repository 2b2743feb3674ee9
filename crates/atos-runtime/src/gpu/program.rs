//! Program: a task set specialized, compiled and loaded for one GPU; and its runs.

use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Duration;

use atos_codegen::faults::{FaultFunction, fault_functions};
use atos_codegen::{KernelSpec, Plan, Strategy, WorkerKind, generate_unit};
use cudarc::driver::{CudaFunction, CudaStream};

use super::device_state::DeviceState;
use super::{Gpu, GpuError, driver_err, nvrtc};
use crate::error::RunError;
use crate::program::{
    Seeds, check_seed_room, check_uploaded_from, idle_range, plan_of, seeds_per_queue,
};
use crate::state::State;
use crate::stats::Stats;
use crate::task::{Task, TaskSet};

/// What the loaded kernel takes of an SM, as the driver reports it: the registers and local
/// memory ptxas gave each thread (local memory holds spilled registers and arrays indexed at
/// run time), the static shared memory of a block, and how many blocks of the program's block
/// size fit on one SM at once (a persistent launch's default grid is that times the SMs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelResources {
    pub registers: u32,
    pub local_bytes: u32,
    pub shared_bytes: u32,
    pub blocks_per_sm: u32,
}

impl KernelResources {
    /// Reads `function`'s attributes and its occupancy at `block_size` threads per block.
    pub(crate) fn of(function: &CudaFunction, block_size: u32) -> Result<Self, GpuError> {
        let read = |r: Result<i32, cudarc::driver::DriverError>| {
            r.map(|v| v.max(0) as u32)
                .map_err(driver_err("reading the kernel's attributes"))
        };
        Ok(KernelResources {
            registers: read(function.num_regs())?,
            local_bytes: read(function.local_size_bytes())?,
            shared_bytes: read(function.shared_size_bytes())?,
            blocks_per_sm: blocks_per_sm(function, block_size)?,
        })
    }
}

/// Blocks of `block_size` threads of `function` that fit on one SM at once, as the driver
/// reports it: a persistent launch's default grid is that (at least 1) times the SMs.
pub(crate) fn blocks_per_sm(function: &CudaFunction, block_size: u32) -> Result<u32, GpuError> {
    function
        .occupancy_max_active_blocks_per_multiprocessor(block_size, 0, None)
        .map_err(driver_err("computing occupancy"))
}

/// Builds a [`Program`]: the tasks' own `worker`/`fetch` unless overridden.
pub struct ProgramBuilder<P: TaskSet> {
    gpu: Gpu,
    spec: KernelSpec,
    grid: Option<u32>,
    timeout: Option<Duration>,
    sample_every: Option<Duration>,
    patch: Option<SourcePatch>,
    _tasks: PhantomData<P>,
}

type SourcePatch = Box<dyn Fn(String) -> String>;

/// A task set compiled for one GPU and specialization. Build once, run many times.
pub struct Program<P: TaskSet> {
    gpu: Gpu,
    spec: KernelSpec,
    plan: Plan,
    source: String,
    function: CudaFunction,
    /// Blocks per launch: the grid the user set, or the default (`KernelSpec::default_blocks_per_sm`
    /// x SMs).
    grid: u32,
    timeout: Option<Duration>,
    sample_every: Option<Duration>,
    compile_log: String,
    compile_time: Duration,
    compile_origin: nvrtc::CacheHit,
    /// The unit's functions in fault-site order (`atos_codegen::faults`).
    fault_functions: Vec<FaultFunction>,
    /// Held for a run: the module's globals (shared ranges' boards, docs/runtime.md) serve one
    /// run at a time, so runs of one program from several threads take turns.
    run_lock: std::sync::Mutex<()>,
    _tasks: PhantomData<P>,
}

/// The spec a program of `P` starts from: each task's own `worker` and `fetch`, 256 threads
/// per block, persistent. Chain changes: `spec_of::<bfs::Task>().fetch(64)`.
pub fn spec_of<P: TaskSet>() -> KernelSpec {
    KernelSpec::for_tasks(&P::irs())
}

/// The CUDA the task set `P` becomes with its own attributes, no GPU needed:
/// `println!("{}", atos::cuda::<bfs::Task>()?)`. For another specialization,
/// [`cuda_source`] with [`spec_of`].
pub fn cuda<P: TaskSet>() -> Result<String, atos_codegen::CodegenError> {
    cuda_source::<P>(&spec_of::<P>())
}

/// Generates the CUDA translation unit for the task set `P` under `spec` (what NVRTC compiles).
pub fn cuda_source<P: TaskSet>(spec: &KernelSpec) -> Result<String, atos_codegen::CodegenError> {
    let deps: Vec<_> = P::device_fns().into_iter().cloned().collect();
    generate_unit(&P::irs(), &deps, &<P::State<'_> as State>::desc(), spec)
}

impl<P: TaskSet> ProgramBuilder<P> {
    /// Sets every task's worker kind.
    pub fn worker(mut self, worker: WorkerKind) -> Self {
        self.spec.tasks.iter_mut().for_each(|t| t.worker = worker);
        self
    }

    /// Sets every task's fetch size.
    pub fn fetch(mut self, fetch: u32) -> Self {
        self.spec.tasks.iter_mut().for_each(|t| t.fetch = fetch);
        self
    }

    /// Sets the worker kind of one task of the set.
    pub fn worker_for<T: Task>(mut self, _task: T, worker: WorkerKind) -> Self {
        if let Some(i) = task_index::<P, T>() {
            self.spec.tasks[i].worker = worker;
        }
        self
    }

    /// Sets the fetch size of one task of the set.
    pub fn fetch_for<T: Task>(mut self, _task: T, fetch: u32) -> Self {
        if let Some(i) = task_index::<P, T>() {
            self.spec.tasks[i].fetch = fetch;
        }
        self
    }

    /// Threads per block (a multiple of 32, at most 1024). Default 256.
    pub fn block_size(mut self, threads: u32) -> Self {
        self.spec.block_size = threads;
        self
    }

    /// Blocks per SM the register budget leaves room for, the second `__launch_bounds__`
    /// argument (0, the default: atos's choice, a per-kind bound for units with a priority
    /// queue, spread units that combine adds and units that share chunks, none for the others;
    /// see [`KernelSpec::min_blocks`] and [`KernelSpec::launch_min_blocks`]).
    /// [`Program::resources`] says what the kernel got.
    pub fn min_blocks(mut self, blocks: u32) -> Self {
        self.spec.min_blocks = blocks;
        self
    }

    /// Number of blocks; default: as many as can be resident (occupancy x SM count), but at
    /// most [`THREAD_PERSISTENT_BLOCKS_PER_SM`](atos_codegen::unit::THREAD_PERSISTENT_BLOCKS_PER_SM)
    /// per SM for a persistent program whose every task runs on thread workers and that has no
    /// priority queue (`KernelSpec::default_blocks_per_sm`). Spread programs (`build_mesh`)
    /// take the occupancy.
    pub fn grid(mut self, blocks: u32) -> Self {
        self.grid = Some(blocks.max(1));
        self
    }

    pub fn persistent(mut self) -> Self {
        self.spec.strategy = Strategy::Persistent;
        self
    }

    /// How the kernel is driven: persistent (default), discrete or bulk-synchronous.
    pub fn strategy(mut self, strategy: Strategy) -> Self {
        self.spec.strategy = strategy;
        self
    }

    /// Persistent runs: record the tasks done every `every` while the kernel runs
    /// (`Stats::timeline`; the host reads the counters, so keep it off for timing runs). A
    /// spread program (`build_mesh`, peer-to-peer) records instead each device's claimed
    /// items (`DeviceStats::progress`).
    pub fn sample_progress(mut self, every: Duration) -> Self {
        self.sample_every = Some(every);
        self
    }

    /// Persistent CTA groups keep up to a batch of their own pushes and run it next (default
    /// on; see docs/runtime.md).
    pub fn keep(mut self, on: bool) -> Self {
        self.spec.keep = on;
        self
    }

    /// Persistent CTA groups that keep their pushes also park a batch of their pushes to a
    /// priority queue's next ring until its band opens (default on; see docs/runtime.md,
    /// "Parked items").
    pub fn park(mut self, on: bool) -> Self {
        self.spec.park = on;
        self
    }

    /// Persistent kernels: the first idle nap in nanoseconds (default 32; see `KernelSpec`).
    pub fn idle_nap_ns(mut self, ns: u32) -> Self {
        self.spec.idle_nap_ns = ns;
        self
    }

    /// Persistent kernels: how many times an idle group's nap doubles, so the longest nap (and
    /// the longest a push waits for a napping group) is `idle_nap_ns << doublings` (default 8,
    /// 3 with a priority queue; at most 16; see `KernelSpec::idle_nap_doublings`).
    pub fn idle_nap_doublings(mut self, doublings: u32) -> Self {
        self.spec.idle_nap_doublings = Some(doublings);
        self
    }

    /// One-GPU persistent programs without a priority queue: publish and free ring slots by
    /// stamps (`true`) or through tiled counters (`false`). Left unset, the
    /// `ATOS_STAMPED_RINGS` environment variable decides (`1` or `0`), and without it
    /// `atos_codegen::unit::stamps_by_default`: stamps where some task runs on thread or warp
    /// workers (`KernelSpec::stamped_rings`). Other programs ignore it.
    pub fn stamped_rings(mut self, on: bool) -> Self {
        self.spec.stamped_rings = Some(on);
        self
    }

    /// Persistent kernels: trace when the run's phases happen on the GPU's clock (the first
    /// block's start, the last batch's end, the first sight of the end, the last block's exit),
    /// reported in [`Stats::phases`](crate::Stats::phases). Costs a clock read per batch;
    /// windowed strategies refuse it. Off by default.
    pub fn trace_phases(mut self, on: bool) -> Self {
        self.spec.trace_phases = on;
        self
    }

    /// Checked arithmetic: overflow in `+ - *`, negation and shifts stops the run with
    /// [`RunError::Fault`] naming the Rust line, as a debug build of the task panics. Default:
    /// on when atos is compiled with debug assertions (the dev profile), off otherwise. Indices,
    /// division by zero and `step_by(0)` are checked in every build.
    pub fn checked(mut self, on: bool) -> Self {
        self.spec.checked = on;
        self
    }

    /// Load-balanced batches for tasks of the balanced shape (default on; see docs/runtime.md).
    pub fn balance(mut self, on: bool) -> Self {
        self.spec.balance = on;
        self
    }

    /// Shared ranges: persistent CTA groups let idle groups help with a balanced chunk too
    /// large for one group (a hub's edges; default on, except for programs with an idle hook;
    /// see docs/runtime.md). A unit that shares spills more registers even where nothing is
    /// posted (grid BFS 10% slower on one H200): [`share_can_post`] tells from the lanes
    /// ranges' lengths (a graph's degrees) whether turning it off costs anything.
    pub fn share(mut self, on: bool) -> Self {
        self.spec.share = on;
        self
    }

    /// Fails a run that takes longer than this instead of waiting for ever.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    pub fn spec(&self) -> &KernelSpec {
        &self.spec
    }

    /// Edits the generated CUDA before NVRTC compiles it: for experiments (a `printf`, a
    /// variant of the device code) and for checks that must fail without a piece of the
    /// generated code. The unit must keep the kernel's name and parameters. The GPU no longer
    /// runs what the CPU executor runs once you change its meaning: never use it for results.
    pub fn patch_source(mut self, patch: impl Fn(String) -> String + 'static) -> Self {
        self.patch = Some(Box::new(patch));
        self
    }

    /// The CUDA this program compiles.
    pub fn source(&self) -> Result<String, GpuError> {
        let source = cuda_source::<P>(&self.spec)?;
        Ok(match &self.patch {
            Some(patch) => patch(source),
            None => source,
        })
    }

    /// Generates, compiles (cached) and loads the kernel.
    pub fn build(self) -> Result<Program<P>, GpuError> {
        let (plan, irs) = plan_of::<P>()?;
        let source = self.source()?;
        let compiled = nvrtc::compile_cubin(&source, self.gpu.arch())?;
        let module = self
            .gpu
            .ctx()
            .load_module(cudarc::nvrtc::Ptx::from_binary(compiled.cubin.to_vec()))
            .map_err(driver_err("loading the compiled module"))?;
        let kernel = self.spec.kernel_name(&irs[0].name);
        let function = module
            .load_function(&kernel)
            .map_err(driver_err("finding the kernel"))?;
        let grid = match self.grid {
            Some(g) => g,
            None => {
                let fit = blocks_per_sm(&function, self.spec.block_size)?;
                let traits = atos_codegen::unit::BoundTraits::of(&plan);
                self.spec.default_blocks_per_sm(traits, fit) * self.gpu.sm_count()
            }
        };
        Ok(Program {
            gpu: self.gpu,
            spec: self.spec,
            plan,
            source,
            function,
            grid,
            timeout: self.timeout,
            sample_every: self.sample_every,
            compile_log: compiled.log,
            compile_time: compiled.compile_time,
            compile_origin: compiled.origin,
            fault_functions: fault_functions(
                &irs,
                &P::device_fns().into_iter().cloned().collect::<Vec<_>>(),
            ),
            run_lock: std::sync::Mutex::new(()),
            _tasks: PhantomData,
        })
    }
}

impl<P: TaskSet> ProgramBuilder<P> {
    /// Generates the unit for a program spread over `gpus` (`KernelSpec::multi_device`),
    /// compiles it once (cached) and loads it on every GPU. Persistent only; the grid is per
    /// device. Run it with [`MeshProgram::run`](crate::MeshProgram::run) and a [`Placement`](crate::Placement).
    pub fn build_mesh(mut self, gpus: &super::Gpus) -> Result<super::MeshProgram<P>, GpuError> {
        self.spec.multi_device = true;
        let (plan, irs) = plan_of::<P>()?;
        let source = self.source()?;
        let kernel = self.spec.kernel_name(&irs[0].name);
        let super::mesh::Loaded {
            functions,
            compile_time,
            origin,
        } = super::mesh::load_everywhere(gpus, &source, &kernel)?;
        let found = (0..functions.len())
            .map(|k| super::mesh::mesh_symbol(gpus, &functions, k))
            .collect::<Result<Vec<_>, _>>()
            .and_then(|symbols| Ok((symbols, blocks_per_sm(&functions[0], self.spec.block_size)?)));
        let (mesh_symbols, resident) = match found {
            Ok((symbols, per_sm)) => (symbols, per_sm.max(1) * gpus.gpu(0).sm_count()),
            Err(e) => {
                // No MeshProgram owns the modules yet: take them out of NVSHMEM here.
                super::mesh::finalize_modules(gpus, &functions);
                return Err(e);
            }
        };
        // Devices sharing a GPU split its SMs: their persistent kernels must all be resident at
        // once, or one would wait for SMs another never gives back.
        let share = (resident / gpus.per_gpu() as u32).max(1);
        let grid = match self.grid {
            Some(g) if gpus.per_gpu() > 1 && g > share => {
                super::mesh::finalize_modules(gpus, &functions);
                return Err(GpuError::Mesh(format!(
                    "a grid of {g} blocks per device does not fit {} devices sharing one GPU: {resident} blocks of this kernel fit on it at once, so give at most {share} (or leave the grid unset)",
                    gpus.per_gpu()
                )));
            }
            Some(g) => g,
            None => share,
        };
        Ok(super::MeshProgram {
            gpus: gpus.clone(),
            spec: self.spec,
            plan,
            source,
            functions,
            mesh_symbols,
            grid,
            timeout: self.timeout,
            fault_functions: fault_functions(
                &irs,
                &P::device_fns().into_iter().cloned().collect::<Vec<_>>(),
            ),
            aggregation: crate::Aggregation::Eager,
            // Devices that all share one GPU reach each other's elements in its own memory:
            // combining there only adds the deliveries (docs/runtime.md, "Combined adds").
            combining: gpus.world().is_some() || gpus.per_gpu() < gpus.len(),
            drain: crate::aggregation::COMBINE_DRAIN,
            sample_every: self.sample_every,
            run_lock: std::sync::Mutex::new(()),
            compile_time,
            compile_origin: origin,
            _tasks: PhantomData,
        })
    }
}

/// `ATOS_STAMPED_RINGS`'s value: `1`, `on` or `true` asks for stamped rings, `0`, `off` or
/// `false` for tiled ones; anything else (or unset) leaves the default
/// (`atos_codegen::unit::stamps_by_default`).
fn stamped_rings_from_env(value: &str) -> Option<bool> {
    match value.trim().to_ascii_lowercase().as_str() {
        "1" | "on" | "true" => Some(true),
        "0" | "off" | "false" => Some(false),
        _ => None,
    }
}

fn task_index<P: TaskSet, T: Task>() -> Option<usize> {
    P::irs().iter().position(|ir| ir.name == T::ir().name)
}

impl<P: TaskSet> Program<P> {
    /// Starts building a program for `tasks` (one task or a tuple of tasks) on `gpu`.
    #[allow(clippy::new_ret_no_self)]
    pub fn new(gpu: &Gpu, _tasks: P) -> ProgramBuilder<P> {
        // Stamped rings follow `stamps_by_default` unless the environment says
        // (`ATOS_STAMPED_RINGS`: a whole test program, such as gpu_suite, under it).
        let spec = KernelSpec {
            stamped_rings: std::env::var("ATOS_STAMPED_RINGS")
                .ok()
                .and_then(|v| stamped_rings_from_env(&v)),
            ..KernelSpec::for_tasks(&P::irs())
        };
        ProgramBuilder {
            gpu: gpu.clone(),
            spec,
            grid: None,
            timeout: None,
            sample_every: None,
            patch: None,
            _tasks: PhantomData,
        }
    }

    pub fn spec(&self) -> &KernelSpec {
        &self.spec
    }

    /// Whether the kernel stamps its rings ([`KernelSpec::stamps_rings`]: asked for or by
    /// default, and the program one-GPU, persistent and without a priority queue).
    pub fn stamps_rings(&self) -> bool {
        self.spec
            .stamps_rings(atos_codegen::unit::BoundTraits::of(&self.plan))
    }

    /// Blocks of a persistent launch (at most this many for a windowed one).
    pub fn grid(&self) -> u32 {
        self.grid
    }

    /// The generated CUDA this program was compiled from.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// NVRTC's output for this unit (empty when it had nothing to say).
    pub fn compile_log(&self) -> &str {
        &self.compile_log
    }

    /// The compiled unit's identity ([`nvrtc::unit_id`]: its kernel-cache key).
    pub fn unit_id(&self) -> Result<String, GpuError> {
        nvrtc::unit_id(&self.source, self.gpu.arch())
    }

    /// Registers, local and shared memory of the loaded kernel, and its blocks per SM.
    pub fn resources(&self) -> Result<KernelResources, GpuError> {
        KernelResources::of(&self.function, self.spec.block_size)
    }

    /// Time `build` spent getting the CUBIN, and where it came from (memory, disk or NVRTC).
    pub fn compile_time(&self) -> (Duration, nvrtc::CacheHit) {
        (self.compile_time, self.compile_origin)
    }

    /// Runs from `seeds`, which go to the first task's queue, until the run is proven finished;
    /// `Atomics` fields of `state` hold the results afterwards. Uploads the whole state first
    /// (`Stats::upload`): to run the same state many times, [`upload`](Self::upload) it once
    /// and use [`run_on`](Self::run_on).
    pub fn run(
        &self,
        state: &P::State<'_>,
        seeds: &[<P::First as Task>::Item],
    ) -> Result<Stats, RunError> {
        self.run_seeds(state, &Seeds::new().add_for::<P::First>(seeds))
    }

    /// Runs from seeds given per task (uploading the state first, as [`run`](Self::run)).
    pub fn run_seeds(&self, state: &P::State<'_>, seeds: &Seeds) -> Result<Stats, RunError> {
        let mut dev = self.upload(state)?;
        let mut stats = self.run_seeds_on(&mut dev, seeds)?;
        dev.read_back()?;
        stats.upload = Some(dev.upload_time());
        Ok(stats)
    }

    /// Copies `state` to the device once; runs on it with [`run_on`](Self::run_on) reset what
    /// runs mutate and leave the rest in place.
    pub fn upload<'s>(&self, state: &'s P::State<'_>) -> Result<DeviceState<'s>, RunError> {
        let stream = self.stream()?;
        let persistent = self.spec.strategy == atos_codegen::Strategy::Persistent;
        DeviceState::upload(&self.gpu, &stream, state, persistent)
    }

    /// Runs on an uploaded state from `seeds` for the first task. The `Atomics` fields start
    /// from the values they had at upload; results stay on the device until
    /// [`DeviceState::read_back`].
    pub fn run_on(
        &self,
        dev: &mut DeviceState<'_>,
        seeds: &[<P::First as Task>::Item],
    ) -> Result<Stats, RunError> {
        self.run_seeds_on(dev, &Seeds::new().add_for::<P::First>(seeds))
    }

    /// Runs on an uploaded state from seeds given per task.
    pub fn run_seeds_on(
        &self,
        dev: &mut DeviceState<'_>,
        seeds: &Seeds,
    ) -> Result<Stats, RunError> {
        check_uploaded_from(&dev.desc, &<P::State<'_> as State>::desc())?;
        // A run that panicked left nothing held for the next one (the lock guards no data).
        let _run = self.run_lock.lock().unwrap_or_else(|e| e.into_inner());
        let seeds = seeds_per_queue(&self.plan, seeds)?;
        let stream = self.stream()?;
        if self.spec.strategy == atos_codegen::Strategy::Persistent {
            dev.ensure_next_rings(&stream)?;
        }
        let stamped = self.stamps_rings();
        if stamped {
            dev.ensure_stamps(&stream)?;
        }
        let capacities: Vec<u64> = dev.queues.iter().map(|q| q.capacity).collect();
        check_seed_room(&self.plan, &capacities, &seeds)?;
        // This program's hook over the uploaded values (a device state may serve several
        // programs over one state type).
        let range = idle_range(&self.plan, &P::irs(), &dev.field_values)?;
        dev.reset(&stream, &seeds, stamped)?;
        let run = super::driver::Driver {
            program: self.function.cu_function(),
            spec: &self.spec,
            plan: &self.plan,
            gpu: &self.gpu,
            grid: self.grid,
            timeout: self.timeout,
            idle_range: range,
            sample_every: self.sample_every,
            fault_functions: &self.fault_functions,
        };
        let outcome = run.run(dev, &stream)?;
        let counters = dev.read_counters(&stream)?;
        run.stats(dev, &seeds, &counters, outcome)
    }

    fn stream(&self) -> Result<Arc<CudaStream>, RunError> {
        Ok(self
            .gpu
            .ctx()
            .new_stream()
            .map_err(driver_err("creating a stream"))?)
    }
}

/// Whether shared ranges may post anything when a task's items have lanes ranges of these
/// lengths (for a graph task, its vertices' degrees). A persistent CTA group of `block` threads
/// fetching `fetch` items balances up to `min(fetch, block)` of them at a time and posts the
/// chunk when it spans [`atos_codegen::unit::SHARE_MIN_STRIDES`] strides of `block`. A queue may
/// hold one item many times (BFS queues a vertex once per improvement), so a chunk may be that
/// many copies of the longest range: some chunk can be posted only if `min(fetch, block)` times
/// the longest length reaches the threshold. False: no chunk is ever posted, and
/// [`ProgramBuilder::share`]`(false)` gives the same work with fewer spills. (Since a chunk
/// holds at most `block` items, ranges all shorter than `SHARE_MIN_STRIDES` never post.)
pub fn share_can_post(lengths: impl IntoIterator<Item = u64>, fetch: u32, block: u32) -> bool {
    let items = u64::from(fetch.min(block).max(1));
    let threshold = u64::from(atos_codegen::unit::SHARE_MIN_STRIDES) * u64::from(block);
    lengths
        .into_iter()
        .any(|len| len.saturating_mul(items) >= threshold)
}

#[cfg(test)]
mod share_can_post_tests {
    use super::share_can_post;

    #[test]
    fn a_chunk_of_the_longest_range_must_reach_sixteen_strides() {
        // 16 strides of 256 threads = 4096 lanes.
        assert!(
            share_can_post([4096], 64, 256),
            "one hub of 16 strides posts"
        );
        assert!(share_can_post([4095, 64], 64, 256), "64 x 64 = 4096");
        // 64 items of 64 lanes make a chunk of 4096: at fetch 64, not at fetch 63.
        let deg64 = vec![64u64; 1000];
        assert!(share_can_post(deg64.iter().copied(), 64, 256));
        assert!(!share_can_post(deg64.iter().copied(), 63, 256));
        // One vertex queued many times fills a chunk alone: one range of 64 is enough.
        let mut one64 = vec![4u64; 10_000];
        one64[7] = 64;
        assert!(share_can_post(one64.iter().copied(), 64, 256));
        // A chunk holds at most `block` items, whatever the fetch.
        let deg8 = vec![8u64; 10_000];
        assert!(
            !share_can_post(deg8.iter().copied(), 1024, 256),
            "256 x 8 < 4096"
        );
        // Larger blocks: more items per chunk, and longer strides.
        assert!(
            !share_can_post(deg8.iter().copied(), 1024, 1024),
            "1024 x 8 < 16 x 1024"
        );
        let deg16 = vec![16u64; 10_000];
        assert!(share_can_post(deg16.iter().copied(), 1024, 1024));
        // A grid (degree 4) and a road graph (at most 6 here) never post; lengths near the top
        // of u64 do not overflow.
        assert!(!share_can_post([4, 3, 2, 4], 256, 256));
        assert!(!share_can_post([6, 1], 256, 256));
        assert!(share_can_post([u64::MAX], 256, 256));
        assert!(!share_can_post(std::iter::empty(), 64, 256));
    }
}

#[cfg(test)]
mod tests {
    use super::stamped_rings_from_env;

    #[test]
    fn the_environment_asks_for_stamped_or_tiled_rings() {
        for on in ["1", "on", "ON", "true", " 1 "] {
            assert_eq!(stamped_rings_from_env(on), Some(true), "{on:?}");
        }
        for off in ["0", "off", "False"] {
            assert_eq!(stamped_rings_from_env(off), Some(false), "{off:?}");
        }
        for neither in ["", "yes", "2", "auto"] {
            assert_eq!(stamped_rings_from_env(neither), None, "{neither:?}");
        }
    }
}
