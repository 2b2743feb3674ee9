//! Programs spread over several GPUs of one node, over CUDA peer-to-peer: [`Gpus`] opens the
//! devices and enables peer access between every pair; [`MeshProgram`] is a task set compiled
//! once (a `multi_device` unit, `mesh.cuh`) and loaded on every device; a run uploads the state
//! by a [`Placement`], launches one persistent kernel per device at once, and ends when every
//! ring of every device is quiescent (the kernels decide it among themselves: no host round
//! trip).
//!
//! Device memory of a run, per device d: the read-only arrays (a copy each); its part of every
//! spread `Atomics` field (the others whole on device 0); per queue field a local ring, a
//! receive ring and, in an aggregated run ([`Aggregation`]), an outbox per peer; the tables the
//! kernel reads (spread parts, every device's receive rings, its outboxes, every ring's
//! counters) and its `Mesh` (placement, ring table, aggregation words). The one control block (status, fault, idle sweep) lives on
//! device 0 and every device uses it.

use std::ffi::c_void;
use std::marker::PhantomData;
use std::sync::Arc;
use std::time::{Duration, Instant};

use atos_codegen::faults::FaultFunction;
use atos_codegen::layout::{
    control as ctl, device_counters as dc, mesh, pack_words, queue_counters as qc, spread_parts,
    status, unpack_words, word_offset,
};
use atos_codegen::plan::FilterPlan;
use atos_codegen::{KernelSpec, Plan, StateDesc};
use cudarc::driver::{CudaEvent, CudaFunction, CudaSlice, CudaStream, result, sys};

use super::device_state::{
    Arena, copy_in_and_wait, copy_out_and_wait, scalar_slot, seeded_counters,
};
use super::nvshmem::{self, RankEnv, Symmetric, World, fatal_on_rank};
use super::{Gpu, GpuError, driver_err, nvrtc};
use crate::aggregation::Aggregation;
use crate::arrays::ring_slots;
use crate::elem::ItemBits;
use crate::error::RunError;
use crate::placement::Placement;
use crate::placement::seeds_by_owner;
use crate::program::{
    Ring, Seeds, check_spread_rings, check_uploaded_from, idle_range, queue_fields, rings,
    seeds_per_queue,
};
use crate::state::{AtomicHost, FieldRef, State};
use crate::stats::{DeviceStats, QueueStats, Stats, helped, pushes_and_tasks};
use crate::task::TaskSet;

/// The GPUs of a spread run: several GPUs of one node driven by this process, with peer
/// access enabled between every pair ([`Gpus::new`]), possibly several devices of the run on
/// one GPU ([`Gpus::shared`]); or one GPU per process, joined into an NVSHMEM run
/// ([`Gpus::join`]).
#[derive(Clone, Debug)]
pub struct Gpus {
    /// One process per GPU: this process's membership of the NVSHMEM run. Declared first so
    /// it is dropped (NVSHMEM finalized) before the GPUs' contexts are released.
    world: Option<Arc<World>>,
    /// The GPUs this process drives: every device of the run (peer-to-peer), or its own one
    /// (NVSHMEM, device index = rank).
    gpus: Vec<Gpu>,
    /// The most devices of the run that one GPU holds (1 unless [`Gpus::shared`]): each then
    /// runs on that share of the GPU's SMs.
    per_gpu: usize,
}

impl Gpus {
    /// Opens GPUs `ordinals` and enables peer access between every pair. Fails, saying which
    /// pair, when two of them cannot reach each other's memory or lack native atomics between
    /// them (a spread program's remote atomics need them).
    ///
    /// An ordinal given more than once puts several devices of the run on that GPU, in one
    /// context: their kernels run side by side, each on its share of the SMs (the grid of a
    /// program built on these `Gpus` is divided by the most devices one GPU holds), and their
    /// "remote" operations stay in the GPU's memory. See [`Gpus::shared`].
    pub fn new(ordinals: &[usize]) -> Result<Gpus, GpuError> {
        if ordinals.is_empty() || ordinals.len() > mesh::MAX_DEVICES {
            return Err(GpuError::Mesh(format!(
                "a spread program runs on 1 to {} GPUs; {} were asked for",
                mesh::MAX_DEVICES,
                ordinals.len()
            )));
        }
        let mut gpus: Vec<Gpu> = Vec::with_capacity(ordinals.len());
        for (k, &o) in ordinals.iter().enumerate() {
            // A repeated ordinal shares the first one's context (and its peer access).
            let gpu = match ordinals[..k].iter().position(|&p| p == o) {
                Some(first) => gpus[first].clone(),
                None => Gpu::new(o)?,
            };
            gpus.push(gpu);
        }
        let per_gpu = most_per_gpu(ordinals);
        // One entry per distinct GPU for the pairwise setup below.
        let distinct: Vec<(usize, &Gpu)> = ordinals
            .iter()
            .zip(&gpus)
            .enumerate()
            .filter(|(k, (o, _))| !ordinals[..*k].contains(o))
            .map(|(_, (&o, g))| (o, g))
            .collect();
        for &(a, ga) in &distinct {
            for &(b, gb) in &distinct {
                if a == b {
                    continue;
                }
                check_peer_atomics((a, ga.ctx().cu_device()), (b, gb.ctx().cu_device()))?;
                ga.ctx()
                    .bind_to_thread()
                    .map_err(driver_err("binding a context"))?;
                // SAFETY: enables access from the current context (ga's) to gb's context.
                let r = unsafe { sys::cuCtxEnablePeerAccess(gb.ctx().cu_ctx(), 0) };
                if r != sys::CUresult::CUDA_SUCCESS
                    && r != sys::CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED
                {
                    return Err(GpuError::Driver {
                        during: "enabling peer access".into(),
                        message: format!("{r:?}"),
                    });
                }
            }
        }
        // Device memory comes from each device's stream-ordered pool (cudarc allocates with
        // cuMemAllocAsync), which peer access does not cover: open every pool to every peer.
        for &(a, ga) in &distinct {
            let mut pool: sys::CUmemoryPool = std::ptr::null_mut();
            // SAFETY: a query of a valid device handle into a local.
            unsafe { sys::cuDeviceGetMemPool(&mut pool, ga.ctx().cu_device()) }
                .result()
                .map_err(driver_err("finding a device's memory pool"))?;
            let access: Vec<sys::CUmemAccessDesc> = distinct
                .iter()
                .filter(|(b, _)| *b != a)
                .map(|(_, gb)| sys::CUmemAccessDesc {
                    location: sys::CUmemLocation {
                        type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE,
                        id: gb.ctx().cu_device(),
                    },
                    flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
                })
                .collect();
            if !access.is_empty() {
                // SAFETY: `access` holds `access.len()` valid descriptors of open devices.
                unsafe { sys::cuMemPoolSetAccess(pool, access.as_ptr(), access.len()) }
                    .result()
                    .map_err(driver_err("opening a memory pool to peers"))?;
            }
        }
        Ok(Gpus {
            gpus,
            world: None,
            per_gpu,
        })
    }

    /// `n` devices on the GPUs of this machine, device k on GPU k mod G: with fewer GPUs than
    /// devices, several devices share a GPU (see [`Gpus::new`]). For checking spread programs
    /// with real concurrency on a machine with fewer GPUs, and for measuring what the devices'
    /// queues and termination cost apart from the links; not for speed-ups.
    pub fn shared(n: usize) -> Result<Gpus, GpuError> {
        let g = super::device_count()?;
        if g == 0 {
            return Err(GpuError::Mesh("this machine has no GPU".into()));
        }
        Gpus::new(&(0..n).map(|k| k % g).collect::<Vec<_>>())
    }

    /// The most devices of the run one GPU holds: 1, unless devices share GPUs
    /// ([`Gpus::shared`]).
    pub fn per_gpu(&self) -> usize {
        self.per_gpu
    }

    /// Joins the one-process-per-GPU run `env` describes (see [`super::nvshmem`]):
    /// opens this rank's GPU (`env.device`, by default its rank modulo the GPUs here) and
    /// initializes NVSHMEM on it. Spread states of programs built on these `Gpus` live in
    /// NVSHMEM's symmetric heap; every rank must upload, run and drop them in the same order.
    pub fn join(env: &RankEnv) -> Result<Gpus, GpuError> {
        let ordinal = match env.device {
            Some(d) => d,
            None => env.rank as usize % super::device_count()?,
        };
        let gpu = Gpu::new(ordinal)?;
        // Launched on one node (`atos run`: ATOS_DEVICE = rank, or rank mod the node's GPUs
        // with --share-gpus), rank p drives GPU p mod G: remote atomics need native atomics
        // between this GPU and each other GPU in use, as `Gpus::new` requires. Ranks sharing
        // this GPU need no check.
        let count = super::device_count()?;
        if env.device == Some(env.rank as usize % count) {
            let others: std::collections::BTreeSet<usize> = (0..env.ranks as usize)
                .map(|p| p % count)
                .filter(|&p| p != ordinal)
                .collect();
            for p in others {
                let mut peer: sys::CUdevice = 0;
                // SAFETY: a query by ordinal into a local (no context is created).
                unsafe { sys::cuDeviceGet(&mut peer, p as i32) }
                    .result()
                    .map_err(driver_err("finding a peer GPU"))?;
                check_peer_atomics((ordinal, gpu.ctx().cu_device()), (p, peer))?;
            }
        }
        let world = World::join(env, &gpu)?;
        Ok(Gpus {
            gpus: vec![gpu],
            world: Some(Arc::new(world)),
            per_gpu: 1,
        })
    }

    /// The NVSHMEM run this process belongs to, if it was joined with [`Gpus::join`].
    pub fn world(&self) -> Option<&World> {
        self.world.as_deref()
    }

    /// The devices this process drives: (device index in the run, GPU).
    pub fn local(&self) -> impl Iterator<Item = (usize, &Gpu)> {
        let first = self.world.as_ref().map_or(0, |w| w.rank() as usize);
        self.gpus
            .iter()
            .enumerate()
            .map(move |(k, g)| (first + k, g))
    }

    /// A description for reports: "2 x NVIDIA H200", and the transport.
    pub fn describe(&self) -> String {
        match &self.world {
            None if self.per_gpu > 1 => format!(
                "{} devices on {} x {} (shared GPUs: each device on 1/{} of its GPU's SMs)",
                self.gpus.len(),
                {
                    let mut on: Vec<_> = self.gpus.iter().map(|g| g.ctx().cu_device()).collect();
                    on.sort_unstable();
                    on.dedup();
                    on.len()
                },
                self.gpus[0].name(),
                self.per_gpu
            ),
            None => format!("{} x {}", self.gpus.len(), self.gpus[0].name()),
            Some(w) => match (
                w.shared_gpus(),
                if w.remote_calls() { " calls" } else { "" },
            ) {
                (None, calls) => format!(
                    "{} x {} (NVSHMEM{}, one process each)",
                    w.ranks(),
                    self.gpus[0].name(),
                    calls
                ),
                (Some(g), calls) => format!(
                    "{} ranks on {g} x {} (NVSHMEM{}, shared GPUs: times include time-slicing)",
                    w.ranks(),
                    self.gpus[0].name(),
                    calls
                ),
            },
        }
    }

    /// The first `n` GPUs of the machine.
    pub fn first(n: usize) -> Result<Gpus, GpuError> {
        Gpus::new(&(0..n).collect::<Vec<_>>())
    }

    /// Devices of the run (every rank's, under NVSHMEM).
    pub fn len(&self) -> usize {
        self.world
            .as_ref()
            .map_or(self.gpus.len(), |w| w.ranks() as usize)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The `k`-th GPU this process drives (see [`Gpus::local`]).
    pub fn gpu(&self, k: usize) -> &Gpu {
        &self.gpus[k]
    }
}

/// The most devices one GPU holds when device k runs on GPU `ordinals[k]`.
fn most_per_gpu(ordinals: &[usize]) -> usize {
    ordinals
        .iter()
        .map(|o| ordinals.iter().filter(|p| *p == o).count())
        .max()
        .unwrap_or(1)
}

/// Fails, saying which pair, unless GPU `a` can access GPU `b`'s memory with native atomics
/// (what a spread program's remote atomics need).
fn check_peer_atomics(
    (a, da): (usize, sys::CUdevice),
    (b, db): (usize, sys::CUdevice),
) -> Result<(), GpuError> {
    let mut can = 0;
    // SAFETY: plain queries of two valid device handles.
    unsafe { sys::cuDeviceCanAccessPeer(&mut can, da, db) }
        .result()
        .map_err(driver_err("asking for peer access"))?;
    let mut atomics = 0;
    // SAFETY: as above.
    unsafe {
        sys::cuDeviceGetP2PAttribute(
            &mut atomics,
            sys::CUdevice_P2PAttribute::CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED,
            da,
            db,
        )
    }
    .result()
    .map_err(driver_err("asking for peer atomics"))?;
    if can == 0 || atomics == 0 {
        return Err(GpuError::Mesh(format!(
            "GPU {a} cannot {} GPU {b}'s memory; spread programs need peer access with native atomics between every pair (NVLink)",
            if can == 0 {
                "access"
            } else {
                "run native atomics on"
            },
        )));
    }
    Ok(())
}

/// A task set compiled for programs spread over [`Gpus`]: build it with
/// [`Program::new`](super::Program::new)`(gpus.gpu(0), tasks)...`[`.build_mesh(&gpus)`](super::ProgramBuilder::build_mesh).
pub struct MeshProgram<P: TaskSet> {
    pub(crate) gpus: Gpus,
    pub(crate) spec: KernelSpec,
    pub(crate) plan: Plan,
    pub(crate) source: String,
    pub(crate) functions: Vec<CudaFunction>,
    /// Per loaded function: the device address of its module's `atos_mesh` constant
    /// ([`mesh_symbol`]), where each launch copies its device's `Mesh`.
    pub(crate) mesh_symbols: Vec<sys::CUdeviceptr>,
    /// Blocks per device (occupancy x SMs of device 0, or the user's grid).
    pub(crate) grid: u32,
    pub(crate) timeout: Option<Duration>,
    pub(crate) fault_functions: Vec<FaultFunction>,
    /// How pushes to another device travel (states uploaded from now on).
    pub(crate) aggregation: Aggregation,
    /// Whether `accumulate`s into other devices' elements are combined (runs from now on).
    pub(crate) combining: bool,
    /// Combine-copy positions drained per task after each batch (runs from now on).
    pub(crate) drain: u32,
    /// `ProgramBuilder::sample_progress`: how often the host samples each device's items taken
    /// while the kernels run (peer-to-peer only; `DeviceStats::progress`).
    pub(crate) sample_every: Option<Duration>,
    /// Held for a run: each module's globals (shared ranges' boards) serve one run at a time.
    pub(crate) run_lock: std::sync::Mutex<()>,
    /// Time `build_mesh` spent getting the CUBIN, and where it came from ([`Loaded`]).
    pub(crate) compile_time: Duration,
    pub(crate) compile_origin: nvrtc::CacheHit,
    pub(crate) _tasks: PhantomData<P>,
}

/// A spread unit loaded on every GPU this process drives ([`load_everywhere`]).
pub(crate) struct Loaded {
    /// The kernel, one per GPU.
    pub functions: Vec<CudaFunction>,
    /// Time spent getting the CUBIN(s): NVRTC or a cache's lookup, as `Program::compile_time`;
    /// under NVSHMEM calls, the device link (or its cache lookup) with loading the modules and
    /// setting NVSHMEM up in them included (milliseconds next to a link).
    pub compile_time: Duration,
    /// Where the CUBIN came from (under NVSHMEM calls, `Compiled` if any GPU's was linked).
    pub origin: nvrtc::CacheHit,
}

/// Compiles (cached) the unit of `spec` and loads it on every GPU; the grid is per device.
pub(crate) fn load_everywhere(gpus: &Gpus, source: &str, kernel: &str) -> Result<Loaded, GpuError> {
    let start = Instant::now();
    let arch = gpus.gpu(0).arch();
    if let Some(g) = gpus.gpus.iter().find(|g| g.arch() != arch) {
        return Err(GpuError::Mesh(format!(
            "every GPU of a spread program must be of one architecture: {} is sm_{}{} and the first sm_{}{}",
            g.name(),
            g.arch().0,
            g.arch().1,
            arch.0,
            arch.1
        )));
    }
    if let Some(world) = gpus.world().filter(|w| w.remote_calls()) {
        let mut functions = Vec::with_capacity(gpus.gpus.len());
        let mut origin = nvrtc::CacheHit::Disk;
        for g in &gpus.gpus {
            match super::nvshmem::load_remote_calls(world, g, source, kernel) {
                Ok((f, hit)) => {
                    if hit == nvrtc::CacheHit::Compiled {
                        origin = hit;
                    }
                    functions.push(f);
                }
                Err(e) => {
                    // The modules loaded so far went through NVSHMEM: take them out first.
                    finalize_modules(gpus, &functions);
                    return Err(e);
                }
            }
        }
        return Ok(Loaded {
            functions,
            compile_time: start.elapsed(),
            origin,
        });
    }
    let compiled = nvrtc::compile_cubin(source, arch)?;
    let functions = gpus
        .gpus
        .iter()
        .map(|g| {
            let module = g
                .ctx()
                .load_module(cudarc::nvrtc::Ptx::from_binary(compiled.cubin.to_vec()))
                .map_err(driver_err("loading the compiled module"))?;
            module
                .load_function(kernel)
                .map_err(driver_err("finding the kernel"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Loaded {
        functions,
        compile_time: compiled.compile_time,
        origin: compiled.origin,
    })
}

/// The C name of a spread unit's `Mesh` in constant memory (mesh.cuh).
const MESH_SYMBOL: &str = mesh::CUDA_CONSTANT;

/// The device address of the `atos_mesh` constant in the module of `functions[k]` (a spread
/// unit's kernel, loaded on the k-th GPU this process drives), checked to be one `Mesh`.
pub(crate) fn mesh_symbol(
    gpus: &Gpus,
    functions: &[CudaFunction],
    k: usize,
) -> Result<sys::CUdeviceptr, GpuError> {
    bind(gpus, k)?;
    let f = &functions[k];
    let mut module: sys::CUmodule = std::ptr::null_mut();
    // SAFETY: `f` is a function of a module loaded by this program and alive with it; the call
    // only writes the module's handle.
    unsafe { sys::cuFuncGetModule(&mut module, f.cu_function()) }
        .result()
        .map_err(driver_err("finding the kernel's module"))?;
    let name = std::ffi::CString::new(MESH_SYMBOL).expect("no NUL in the name");
    // SAFETY: `module` is the live module just found.
    let (at, bytes) = unsafe { result::module::get_global(module, name) }
        .map_err(driver_err("finding the unit's `atos_mesh` constant"))?;
    if bytes != mesh::WORDS * 8 {
        return Err(GpuError::Mesh(format!(
            "the unit's `{MESH_SYMBOL}` holds {bytes} bytes where a Mesh is {}: the device headers and this runtime disagree on its layout",
            mesh::WORDS * 8
        )));
    }
    Ok(at)
}

impl<P: TaskSet> Drop for MeshProgram<P> {
    /// Under NVSHMEM calls, each module leaves NVSHMEM before it is unloaded (see
    /// `nvshmem::finalize_module`).
    fn drop(&mut self) {
        finalize_modules(&self.gpus, &self.functions);
    }
}

/// Under NVSHMEM calls, takes the modules of `functions` (one per GPU this process drives) out
/// of NVSHMEM before they are unloaded (`nvshmem::finalize_module`); otherwise nothing.
pub(crate) fn finalize_modules(gpus: &Gpus, functions: &[CudaFunction]) {
    if let Some(world) = gpus.world().filter(|w| w.remote_calls()) {
        for (k, f) in functions.iter().enumerate() {
            if bind(gpus, k).is_ok() {
                super::nvshmem::finalize_module(world, f);
            }
        }
    }
}

impl<P: TaskSet> MeshProgram<P> {
    pub fn spec(&self) -> &KernelSpec {
        &self.spec
    }

    /// Blocks per device.
    pub fn grid(&self) -> u32 {
        self.grid
    }

    pub fn gpus(&self) -> &Gpus {
        &self.gpus
    }

    /// The generated CUDA (one unit for every device).
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The compiled unit's identity ([`nvrtc::unit_id`]: its kernel-cache key).
    pub fn unit_id(&self) -> Result<String, GpuError> {
        nvrtc::unit_id(&self.source, self.gpus.gpu(0).arch())
    }

    /// Time `build_mesh` spent getting the CUBIN (NVRTC, and under NVSHMEM calls the device
    /// link with NVSHMEM's library; or a cache lookup), and where it came from.
    pub fn compile_time(&self) -> (Duration, nvrtc::CacheHit) {
        (self.compile_time, self.compile_origin)
    }

    /// Registers, local and shared memory of the kernel as loaded on the first GPU, and its
    /// blocks per SM there (one unit for every GPU).
    pub fn resources(&self) -> Result<super::KernelResources, GpuError> {
        super::KernelResources::of(&self.functions[0], self.spec.block_size)
    }

    /// Sets how items pushed to another device travel in the states uploaded from now on
    /// (eager by default). The unit is the same either way: the choice is a word of each
    /// device's `Mesh`, and aggregated states get an outbox per queue and destination.
    pub fn set_aggregation(&mut self, aggregation: Aggregation) {
        self.aggregation = aggregation;
    }

    pub fn aggregation(&self) -> Aggregation {
        self.aggregation
    }

    /// Sets whether the runs from now on combine `accumulate`s into other devices' elements in
    /// each device's combine copy (docs/runtime.md, "Combined adds"), or add them at the
    /// element's home at once. Either way the results are the program's; combining trades one
    /// remote atomic per add for one per element and delivery (drains after batches, idle
    /// sweeps, the kernel's end: [`Self::set_drain`]).
    /// On by default, except when every device shares one GPU, where no add crosses a link.
    pub fn set_combining(&mut self, on: bool) {
        self.combining = on;
    }

    pub fn combining(&self) -> bool {
        self.combining
    }

    /// Sets how many positions of its device's combine copies a group delivers per task after
    /// each batch, before the batch counts done, when the run combines (default
    /// [`crate::aggregation::COMBINE_DRAIN`]; 0: only idle sweeps and the kernel's end
    /// deliver). Draining sooner lets shares reach their elements before the tasks that would
    /// read them run, at the price of adds combined over a shorter time.
    /// Samples each device's claimed items every `every` in the runs from now on (`None`:
    /// not); as `ProgramBuilder::sample_progress`, on a state already uploaded.
    pub fn set_sampling(&mut self, every: Option<Duration>) {
        self.sample_every = every;
    }

    pub fn set_drain(&mut self, per_task: u32) {
        self.drain = per_task;
    }

    pub fn drain(&self) -> u32 {
        self.drain
    }

    /// Runs from `seeds` for the first task, spread by `placement`, and copies the `Atomics`
    /// results back into `state`.
    pub fn run(
        &self,
        state: &P::State<'_>,
        seeds: &[<P::First as crate::task::Task>::Item],
        placement: &Placement,
    ) -> Result<Stats, RunError> {
        self.run_seeds(state, &Seeds::new().add_for::<P::First>(seeds), placement)
    }

    /// Runs from seeds given per task (uploading the state first).
    pub fn run_seeds(
        &self,
        state: &P::State<'_>,
        seeds: &Seeds,
        placement: &Placement,
    ) -> Result<Stats, RunError> {
        let dev = self.upload(state, placement)?;
        let stats = self.run_seeds_on(&dev, seeds)?;
        dev.read_back()?;
        Ok(stats)
    }

    /// Uploads `state` spread by `placement` (one device per part of the placement, which must
    /// have as many parts as this program has GPUs).
    pub fn upload<'s>(
        &self,
        state: &'s P::State<'_>,
        placement: &Placement,
    ) -> Result<MeshState<'s>, RunError> {
        if placement.devices() != self.gpus.len() {
            return Err(RunError::Unsupported(format!(
                "the placement has {} parts but the program runs on {} GPUs; partition for {1} devices",
                placement.devices(),
                self.gpus.len()
            )));
        }
        let state = MeshState::upload(
            &self.gpus,
            state,
            placement,
            self.aggregation,
            &self.plan.filters,
            &self.plan.combines,
        );
        fatal_on_rank(self.gpus.world(), "uploading a spread state", state)
    }

    /// Runs on an uploaded state; results stay on the devices until [`MeshState::read_back`].
    pub fn run_seeds_on(&self, dev: &MeshState<'_>, seeds: &Seeds) -> Result<Stats, RunError> {
        let _run = self.run_lock.lock().unwrap_or_else(|e| e.into_inner());
        let stats = self.run_seeds_on_inner(dev, seeds);
        fatal_on_rank(self.gpus.world(), "a spread run", stats)
    }

    fn run_seeds_on_inner(&self, dev: &MeshState<'_>, seeds: &Seeds) -> Result<Stats, RunError> {
        check_uploaded_from(&dev.desc, &<P::State<'_> as State>::desc())?;
        let seeds = seeds_per_queue(&self.plan, seeds)?;
        // The kernel reads the hook's range from the state itself; each device's share of it
        // goes into its counters.
        let range = idle_range(&self.plan, &P::irs(), &dev.field_values)?;
        check_spread_rings(&self.plan, &dev.rings, dev.aggregation)?;
        let args = dev.reset(&seeds, &self.plan, (self.combining, self.drain), range)?;
        let (ms, wall, progress) = self.launch_all(dev, args)?;
        dev.record_times(&ms)?;
        let mut stats = dev.stats(self, &seeds, wall)?;
        match progress {
            Some(Ok(progress)) => {
                for (d, s) in stats.devices.iter_mut().enumerate() {
                    s.progress = progress
                        .iter()
                        .filter_map(|(t, c)| Some((*t, *c.get(d)?)))
                        .collect();
                }
            }
            Some(Err(e)) => stats.progress_error = Some(e),
            None => {}
        }
        Ok(stats)
    }

    /// Launches the kernel of every device this process drives, then waits for all of them.
    /// Returns (per driven device, ms from its launch to its end by CUDA events; host wall
    /// time; with `sample_every` under peer-to-peer, the progress samples of [`Self::sample`],
    /// or why sampling stopped: it is best-effort, and the run goes on without it).
    #[allow(clippy::type_complexity)]
    fn launch_all(
        &self,
        dev: &MeshState<'_>,
        args: Vec<Vec<u8>>,
    ) -> Result<
        (
            Vec<f64>,
            Duration,
            Option<Result<Vec<(u64, Vec<u64>)>, String>>,
        ),
        GpuError,
    > {
        let t0 = Instant::now();
        let mut marks: Vec<(CudaEvent, CudaEvent)> = Vec::new();
        // Per device: host nanoseconds from `t0` to just before its start event is recorded,
        // so that a sample's host time and a device's event time share an origin.
        let mut offsets: Vec<u64> = Vec::new();
        for (k, (part, mut arg)) in dev.parts.iter().zip(args).enumerate() {
            bind(&self.gpus, k)?;
            let ctx = self.gpus.gpu(k).ctx();
            let event = || {
                ctx.new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))
                    .map_err(driver_err("creating an event"))
            };
            let (start, stop) = (event()?, event()?);
            // This device's Mesh into its module's `atos_mesh`, ordered before the launch.
            // SAFETY: both are live device allocations of `mesh::WORDS` words (the symbol's
            // size checked by mesh_symbol, the Mesh uploaded with `dev`), on this device.
            unsafe {
                result::memcpy_dtod_async(
                    self.mesh_symbols[k],
                    part.mesh,
                    mesh::WORDS * 8,
                    part.stream.cu_stream(),
                )
            }
            .map_err(driver_err(
                "copying the Mesh into the unit's constant memory",
            ))?;
            offsets.push(u64::try_from(t0.elapsed().as_nanos()).unwrap_or(u64::MAX));
            start
                .record(&part.stream)
                .map_err(driver_err("recording the start event"))?;
            let mut control = dev.control_in_kernels;
            let mut params = [
                arg.as_mut_ptr() as *mut c_void,
                (&mut control) as *mut u64 as *mut c_void,
            ];
            // SAFETY: the kernel takes the by-value state struct (its size asserted against
            // this packing by the generated unit) and device 0's control block (this device's
            // Mesh is in its module's constant memory, copied above); every address in them
            // and in the Mesh is a live allocation owned by `dev`, reachable from
            // this device (its own, or a peer's: peer access enabled by `Gpus::new`, NVSHMEM's
            // mapping, or under NVSHMEM calls a tagged address its unit calls NVSHMEM with).
            unsafe {
                result::launch_kernel(
                    self.functions[k].cu_function(),
                    (self.grid.max(1), 1, 1),
                    (self.spec.block_size, 1, 1),
                    0,
                    part.stream.cu_stream(),
                    &mut params,
                )
            }
            .map_err(driver_err("launching the kernel"))?;
            stop.record(&part.stream)
                .map_err(driver_err("recording the stop event"))?;
            marks.push((start, stop));
        }
        // Under NVSHMEM a run always has a deadline: with a rank gone the others' kernels
        // never end, and a timeout ends this rank (`fatal_on_rank`) instead of waiting forever.
        let limit = self
            .timeout
            .or_else(|| self.gpus.world().map(World::run_timeout));
        // A timeout too long for an `Instant` is no deadline.
        let deadline = limit.and_then(|t| t0.checked_add(t).map(|d| (d, t)));
        let progress = match self.sample_every {
            Some(every) if self.gpus.world().is_none() => {
                match self.sample(dev, &marks, every, t0, deadline) {
                    Ok(samples) => Some(Ok(samples)),
                    Err(e @ GpuError::Timeout { .. }) => return Err(e),
                    // Anything else stops the sampling only; the wait below ends the run.
                    Err(e) => Some(Err(e.to_string())),
                }
            }
            _ => None,
        };
        let mut ms = Vec::new();
        for (start, stop) in &marks {
            loop {
                if stop
                    .try_is_complete()
                    .map_err(driver_err("running the kernel"))?
                {
                    break;
                }
                super::driver::check_deadline(deadline)?;
                std::thread::sleep(Duration::from_micros(50));
            }
            ms.push(f64::from(
                start
                    .elapsed_ms(stop)
                    .map_err(driver_err("reading the event timer"))?,
            ));
        }
        // The last sample read the final counts after every kernel had ended; it is dated at
        // the latest end on the host's clock (a device's launch time plus its CUDA-event
        // time), not when the host got round to reading, so that the samples and the end
        // share one origin.
        let progress = progress.map(|p| {
            p.map(|mut samples| {
                let end = offsets
                    .iter()
                    .zip(&ms)
                    .map(|(&o, &m)| o + (m * 1e6) as u64)
                    .max()
                    .unwrap_or(0);
                let m = samples.len();
                if m >= 2 {
                    samples[m - 1].0 = end.max(samples[m - 2].0);
                }
                samples
            })
        });
        Ok((ms, t0.elapsed(), progress))
    }

    /// Samples, every `every` until every kernel has ended, each device's items taken so far:
    /// claimed from its local and receive rings (the `start` words) or kept by the group that
    /// pushed them (the `kept` words: a kept chain runs them without a claim; on a grid nearly
    /// every item). Those are its tasks but an inline task's runs, which each thread counts
    /// only when the kernel ends; an outbox's forwards are not counted, so a device that only
    /// forwards shows idle. Read on a stream of each device's own while the kernels
    /// run: (host nanoseconds since `t0`, just before the first launch; items taken per
    /// device). The last sample is read after every kernel ended.
    /// A sample costs a small copy and a wait per device, so the samples are some tens of
    /// microseconds apart on several GPUs whatever `every` is.
    fn sample(
        &self,
        dev: &MeshState<'_>,
        marks: &[(CudaEvent, CudaEvent)],
        every: Duration,
        t0: Instant,
        deadline: Option<(Instant, Duration)>,
    ) -> Result<Vec<(u64, Vec<u64>)>, GpuError> {
        let streams = (0..dev.parts.len())
            .map(|k| {
                bind(&self.gpus, k)?;
                self.gpus
                    .gpu(k)
                    .ctx()
                    .new_stream()
                    .map_err(driver_err("creating a stream"))
            })
            .collect::<Result<Vec<_>, GpuError>>()?;
        let n_queues = dev.rings.len();
        let ring_words = dev.per_queue * n_queues * qc::WORDS.len();
        let mut raw = vec![0u8; counter_bytes(n_queues, dev.per_queue)];
        let mut out = Vec::new();
        loop {
            let mut ended = true;
            for (_, stop) in marks {
                ended &= stop
                    .try_is_complete()
                    .map_err(driver_err("running the kernel"))?;
            }
            let mut taken = Vec::with_capacity(dev.parts.len());
            for (k, part) in dev.parts.iter().enumerate() {
                bind(&self.gpus, k)?;
                // SAFETY: the device's counter buffer holds exactly this many bytes, in its
                // own memory.
                unsafe {
                    copy_out_and_wait(
                        &mut raw,
                        dev.counters[part.device],
                        &streams[k],
                        "sampling progress",
                    )
                }?;
                let words = unpack_words(&raw);
                // Per queue field, its rings: local, receive, then the outboxes.
                taken.push(
                    words[..ring_words]
                        .chunks_exact(qc::WORDS.len())
                        .enumerate()
                        .filter(|(r, _)| r % dev.per_queue < RING_OUTBOX)
                        .map(|(_, q)| q[qc::START] + q[qc::KEPT])
                        .sum(),
                );
            }
            out.push((
                u64::try_from(t0.elapsed().as_nanos()).unwrap_or(u64::MAX),
                taken,
            ));
            if ended {
                return Ok(out);
            }
            super::driver::check_deadline(deadline)?;
            let next = Instant::now() + every;
            while Instant::now() < next {
                std::hint::spin_loop();
            }
        }
    }
}

/// One `Atomics` field on the devices: spread (a part per device) or whole on device 0.
struct SpreadField<'s> {
    name: String,
    host: &'s dyn AtomicHost,
    spread: bool,
    /// Per device holding a part: (live, pristine, bytes).
    parts: Vec<(u64, u64, usize)>,
    /// Where its `SpreadParts` table (`atos::Spread`, by value) starts in each device's packed
    /// state, the kernel's argument: `reset` writes the run's filter and combine words there.
    packed_at: usize,
    /// Per device, when the uploading program gives the field a filter copy (`Plan::filters`):
    /// (live copy, pristine copy) of every element, `host`'s whole size each.
    filters: Vec<(u64, u64)>,
    /// Per device, when the uploading program accumulates into the field (`Plan::combines`):
    /// its combine copy of every element, `host`'s whole size, zeroed at each run start.
    combines: Vec<u64>,
}

/// The share of a spread state of one device this process drives.
struct DevicePart {
    /// Its index in the run.
    device: usize,
    stream: Arc<CudaStream>,
    packed: Vec<u8>,
    /// This device's `Mesh`.
    mesh: u64,
    /// Per queue field: its local ring's item buffer (seeds go there).
    items: Vec<u64>,
    _buffers: Vec<CudaSlice<u8>>,
}

/// A state uploaded for a spread program (see the module docs). Under NVSHMEM each rank holds
/// one: its device's part, and the addresses of its peers' buffers as it sees them.
pub struct MeshState<'s> {
    gpus: Gpus,
    desc: StateDesc,
    placement: Placement,
    /// The devices this process drives (all of them under peer-to-peer).
    parts: Vec<DevicePart>,
    /// Device 0's control block (used by every device).
    control: u64,
    /// The same, as this process's kernels reach it (tagged under NVSHMEM calls).
    control_in_kernels: u64,
    /// Under NVSHMEM calls: this rank's copy of the symmetric buffer other ranks' memory is
    /// read through ([`MeshState::read_bytes`]).
    staging: Option<u64>,
    /// Per device: its counter buffer (per queue field its rings' counters, see
    /// [`RING_LOCAL`], then its DeviceCounters).
    counters: Vec<u64>,
    rings: Vec<Ring>,
    /// Rings per queue field on each device: local, receive, then one outbox per peer in an
    /// aggregated run.
    per_queue: usize,
    aggregation: Aggregation,
    atomics: Vec<SpreadField<'s>>,
    field_values: Vec<u64>,
    /// NVSHMEM: the symmetric allocations to free (collectively) when the state is dropped.
    symmetric: Vec<Symmetric>,
    upload_time: Duration,
}

impl Drop for MeshState<'_> {
    fn drop(&mut self) {
        if let Some(world) = self.gpus.world() {
            for s in self.symmetric.drain(..).rev() {
                world.free(s);
            }
        }
    }
}

/// Where a spread state's memory comes from: buffers every device reaches, one per device
/// ([`MeshMemory::each`]), and buffers of the devices this process drives (`arenas`, in
/// [`Gpus::local`] order).
struct MeshMemory<'a> {
    world: Option<&'a World>,
    arenas: Vec<Arena<'a>>,
    symmetric: Vec<Symmetric>,
}

impl MeshMemory<'_> {
    /// One buffer per device, device d's of `bytes[d]` bytes (zeroed, or holding `init(d)`),
    /// returning each one's address as this process sees it. Peer-to-peer: in each device's
    /// own memory (one address space). NVSHMEM: one symmetric allocation of the largest size
    /// (every rank makes the same call), this rank filling its own, the peers' reached through
    /// NVSHMEM's mappings, or under NVSHMEM calls named by tagged addresses (`World::alloc`).
    fn each(
        &mut self,
        bytes: &[usize],
        init: impl Fn(usize) -> Option<Vec<u8>>,
    ) -> Result<Vec<u64>, GpuError> {
        match self.world {
            None => bytes
                .iter()
                .enumerate()
                .map(|(d, &b)| self.arenas[d].alloc(b, init(d).as_deref()))
                .collect(),
            Some(world) => {
                let stream = self.arenas[0].stream;
                let largest = bytes.iter().copied().max().unwrap_or(0);
                let (sym, at) = world.alloc(largest, stream)?;
                self.symmetric.push(sym);
                let me = world.rank() as usize;
                if let Some(data) = init(me).filter(|d| !d.is_empty()) {
                    // SAFETY: this rank's copy holds `largest` >= bytes[me] = data.len() bytes.
                    unsafe {
                        copy_in_and_wait(at[me], &data, stream, "copying state to the device")
                    }?;
                    self.arenas[0].uploaded += data.len() as u64;
                }
                Ok(at)
            }
        }
    }
}

/// Addresses as this process's kernels reach them: as this process has them, except under
/// NVSHMEM calls, where symmetric memory is tagged with its rank (`atos/remote.cuh`): another
/// rank's arrives tagged from `World::alloc`; this rank's own is tagged here, since other ranks
/// reach it too and over a network only NVSHMEM's atomics are atomic with theirs.
struct KernelAddresses {
    calls: bool,
}

impl KernelAddresses {
    /// `addr`, an address in symmetric memory (or, peer-to-peer, in a device's memory) on
    /// device `owner`. Null stays null.
    fn of(&self, addr: u64, owner: usize) -> u64 {
        if !self.calls || addr == 0 || nvshmem::is_tagged(addr) {
            return addr;
        }
        nvshmem::tag(addr, owner)
    }
}

/// Bytes of the buffer through which a rank under NVSHMEM calls reads other ranks' counters and
/// results (`World::fetch`), a piece at a time.
const FETCH_STAGING_BYTES: usize = 4 << 20;

/// Bytes per device of a buffer only device 0 uses.
fn one_on_device_0(devices: usize, bytes: usize) -> Vec<usize> {
    let mut v = vec![0; devices];
    v[0] = bytes;
    v
}

/// A queue field's rings on one device, in counter-buffer order: its local ring, its receive
/// ring, then (aggregated runs) its outbox to each peer, peers in device order.
const RING_LOCAL: usize = 0;
const RING_RECV: usize = 1;
const RING_OUTBOX: usize = 2;

fn words_bytes(words: &[u64]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// What [`MeshState::read_counters`] returns: device 0's control block; per device, per queue
/// field, its rings' counters (local, receive, outboxes); per device its DeviceCounters words.
type MeshCounters = (Vec<u64>, Vec<Vec<Vec<Vec<u64>>>>, Vec<Vec<u64>>);

/// Counter blocks per device: `per_queue` per queue field, then the DeviceCounters.
fn counter_bytes(queues: usize, per_queue: usize) -> usize {
    device_counters_offset(queues, per_queue) as usize + dc::BYTES
}

/// Device `d`'s placement words of its `Mesh` (all but a map's two tables, which the caller
/// allocates into `OWNER` and `LOCAL`): the device, the count, the length, the kind, and for
/// ranges the bounds and the own range that `mesh.cuh`'s `in_own_range` tests every index
/// against (`i - own_lo < own_span`, wrapping: one subtraction and one comparison). A map's
/// own range stays empty (span 0), so every index takes `owner_of`'s general path.
fn placement_words(m: &mut [u64], placement: &Placement, d: usize) {
    m[mesh::DEVICE] = d as u64;
    m[mesh::DEVICES] = placement.devices() as u64;
    m[mesh::LEN] = placement.len();
    match placement.bounds() {
        Some(bounds) => {
            m[mesh::KIND] = mesh::KIND_RANGES;
            for (k, b) in bounds.iter().enumerate() {
                m[mesh::BOUNDS + k] = *b;
            }
            m[mesh::OWN_LO] = bounds[d];
            m[mesh::OWN_SPAN] = placement.count(d);
        }
        None => m[mesh::KIND] = mesh::KIND_MAP,
    }
}

/// Writes a run's filter and combine words into the parts table (`atos::SpreadParts`) that
/// starts at byte `at` of a device's packed state, its kernel argument.
fn set_run_words(arg: &mut [u8], at: usize, filter: u64, combine: u64) {
    for (word, value) in [
        (spread_parts::FILTER, filter),
        (spread_parts::COMBINE, combine),
    ] {
        let w = at + word * 8;
        arg[w..w + 8].copy_from_slice(&value.to_le_bytes());
    }
}

/// Where a device's DeviceCounters start in its counter buffer (after its rings' blocks).
fn device_counters_offset(queues: usize, per_queue: usize) -> u64 {
    (per_queue * queues * qc::BYTES) as u64
}

impl<'s> MeshState<'s> {
    fn upload<S: State>(
        gpus: &Gpus,
        state: &'s S,
        placement: &Placement,
        aggregation: Aggregation,
        filters: &[FilterPlan],
        combines: &[String],
    ) -> Result<MeshState<'s>, RunError> {
        let t0 = Instant::now();
        let desc = S::desc();
        let fields = state.fields();
        let (ring_list, _) = rings(&desc, &queue_fields(&fields))?;
        let devices = gpus.len();
        let n_queues = ring_list.len();
        let per_queue = if aggregation.is_batched() {
            RING_OUTBOX + devices - 1
        } else {
            RING_OUTBOX
        };
        let local: Vec<usize> = gpus.local().map(|(d, _)| d).collect();
        let streams: Vec<Arc<CudaStream>> = gpus
            .local()
            .map(|(_, g)| {
                g.ctx()
                    .new_stream()
                    .map_err(driver_err("creating a stream"))
            })
            .collect::<Result<_, _>>()?;
        let mut mem = MeshMemory {
            world: gpus.world(),
            arenas: streams.iter().map(Arena::new).collect(),
            symmetric: Vec::new(),
        };
        // First pass: every allocation whose address another device needs (one per device,
        // each reached from here: see `MeshMemory::each`).
        let control = mem.each(&one_on_device_0(devices, ctl::BYTES), |_| None)?[0];
        let counters = mem.each(&vec![counter_bytes(n_queues, per_queue); devices], |_| None)?;
        // items[q][k][d]: ring k of queue q on device d.
        let mut items = Vec::new();
        for r in &ring_list {
            let bytes = ring_slots(r.capacity) as usize * r.elem_size;
            items.push(
                (0..per_queue)
                    .map(|_| mem.each(&vec![bytes; devices], |_| None))
                    .collect::<Result<Vec<Vec<u64>>, _>>()?,
            );
        }
        let mut atomics: Vec<SpreadField> = Vec::new();
        for (f, fd) in fields.iter().zip(&desc.fields) {
            if let FieldRef::Atomics(a) = f {
                let spread = a.len() as u64 == placement.len() && devices > 1;
                let data = a.read_bytes();
                let size = a.elem_size();
                let contents: Vec<Vec<u8>> = if spread {
                    let elems: Vec<&[u8]> = data.chunks_exact(size).collect();
                    placement
                        .split(&elems)
                        .into_iter()
                        .map(|part| part.concat())
                        .collect()
                } else {
                    vec![data.clone()]
                };
                let bytes: Vec<usize> = if spread {
                    contents.iter().map(Vec::len).collect()
                } else {
                    one_on_device_0(devices, data.len())
                };
                let pristine = mem.each(&bytes, |d| contents.get(d).cloned())?;
                let live = mem.each(&bytes, |_| None)?;
                let parts = (0..contents.len())
                    .map(|d| (live[d], pristine[d], bytes[d]))
                    .collect();
                let filters = if spread && filters.iter().any(|p| p.name == fd.name) {
                    mem.arenas
                        .iter_mut()
                        .map(|arena| {
                            let pristine = arena.alloc(data.len(), Some(&data))?;
                            Ok((arena.alloc(data.len(), None)?, pristine))
                        })
                        .collect::<Result<Vec<_>, RunError>>()?
                } else {
                    Vec::new()
                };
                let combines = if spread && combines.contains(&fd.name) {
                    mem.arenas
                        .iter_mut()
                        .map(|arena| arena.alloc(data.len(), None))
                        .collect::<Result<Vec<_>, GpuError>>()?
                } else {
                    Vec::new()
                };
                atomics.push(SpreadField {
                    name: fd.name.clone(),
                    host: *a,
                    spread,
                    parts,
                    packed_at: 0,
                    filters,
                    combines,
                });
            }
        }
        let calls = gpus.world().is_some_and(|w| w.remote_calls());
        let kernel_at = KernelAddresses { calls };
        // Under NVSHMEM, the buffer other ranks' memory is read through under calls: made by
        // every rank either way, so the collective allocations never depend on the choice.
        let staging = match gpus.world() {
            Some(_) => {
                let at = mem.each(&vec![FETCH_STAGING_BYTES; devices], |_| None)?[local[0]];
                calls.then_some(at)
            }
            None => None,
        };
        // Ring k (RING_LOCAL, ...) of queue q on device d, as a QueueRef's words.
        // (As this process's kernels reach it: `KernelAddresses`.)
        let ring_ref = |d: usize, q: usize, k: usize| -> [u64; 4] {
            let r = ring_list[q];
            let slots = ring_slots(r.capacity);
            let c = counters[d] + ((per_queue * q + k) * qc::BYTES) as u64;
            [
                kernel_at.of(items[q][k][d], d),
                kernel_at.of(c, d),
                r.capacity,
                slots - 1,
            ]
        };
        // Device d's outbox to peer p (aggregated runs), by ring index.
        let outbox_of = |d: usize, p: usize| RING_OUTBOX + if p < d { p } else { p - 1 };
        // The placement's owner map (replicated) and every ring's counters, device-major.
        let all_rings: Vec<u64> = (0..devices)
            .flat_map(|d| (0..n_queues).flat_map(move |q| (0..per_queue).map(move |k| (d, q, k))))
            .map(|(d, q, k)| ring_ref(d, q, k)[1])
            .collect();
        let mut parts = Vec::new();
        for (&d, arena) in local.iter().zip(mem.arenas.iter_mut()) {
            let mut packed = Vec::new();
            let mut at_atomic = 0;
            for (field, fd) in fields.iter().zip(&desc.fields) {
                match field {
                    FieldRef::Slice { bytes, len } => {
                        let ptr = arena.alloc(bytes.len(), Some(bytes))?;
                        packed.extend_from_slice(&ptr.to_le_bytes());
                        packed.extend_from_slice(&(*len as u64).to_le_bytes());
                    }
                    FieldRef::Atomics(a) => {
                        let f = &mut atomics[at_atomic];
                        at_atomic += 1;
                        // The filter and combine words are set per run (`reset`), for the
                        // running program.
                        let mut table = vec![0u64; spread_parts::WORDS];
                        table[spread_parts::SPREAD] = u64::from(f.spread);
                        for (k, p) in f.parts.iter().enumerate() {
                            table[spread_parts::PART + k] = kernel_at.of(p.0, k);
                        }
                        // The same place in every device's packing (one layout).
                        debug_assert!(d == local[0] || f.packed_at == packed.len());
                        f.packed_at = packed.len();
                        packed.extend_from_slice(&words_bytes(&table));
                        packed.extend_from_slice(&(a.len() as u64).to_le_bytes());
                    }
                    FieldRef::Queue(_) => {
                        let q = desc
                            .queues()
                            .position(|x| x.name == fd.name)
                            .expect("a queue");
                        packed.extend_from_slice(&words_bytes(&ring_ref(d, q, RING_LOCAL)));
                    }
                    FieldRef::Priority(_) => {
                        return Err(RunError::Unsupported(format!(
                            "queue `{}` is a priority queue: spread programs take plain queues only for now",
                            fd.name
                        )));
                    }
                    FieldRef::Scalar(bits) => {
                        packed.extend_from_slice(&scalar_slot(*bits, fd.elem.size_bytes()));
                    }
                }
            }
            for q in 0..n_queues {
                let peers: Vec<u64> = (0..devices)
                    .flat_map(|p| ring_ref(p, q, RING_RECV))
                    .collect();
                let table = arena.alloc(peers.len() * 8, Some(&words_bytes(&peers)))?;
                // This device's outboxes by destination (its own entry, and every entry of an
                // eager run, stays zero: never read).
                let outboxes: Vec<u64> = (0..devices)
                    .flat_map(|p| {
                        if p == d || !aggregation.is_batched() {
                            [0; 4]
                        } else {
                            ring_ref(d, q, outbox_of(d, p))
                        }
                    })
                    .collect();
                let outbox_table =
                    arena.alloc(outboxes.len() * 8, Some(&words_bytes(&outboxes)))?;
                packed.extend_from_slice(&words_bytes(&ring_ref(d, q, RING_RECV)));
                packed.extend_from_slice(&table.to_le_bytes());
                packed.extend_from_slice(&outbox_table.to_le_bytes());
            }
            // The kernel copies sizeof(State) bytes from the argument: a shorter packing would
            // hand it bytes past the buffer. Checked in every build (once per device and upload).
            assert_eq!(
                packed.len(),
                atos_codegen::state_size(&desc) + atos_codegen::unit::mesh_state_extra(&desc),
                "the packed spread state and the unit's state struct differ in size"
            );
            let rings_table = arena.alloc(all_rings.len() * 8, Some(&words_bytes(&all_rings)))?;
            let mut m = vec![0u64; mesh::WORDS];
            placement_words(&mut m, placement, d);
            m[mesh::RINGS] = rings_table;
            m[mesh::RING_COUNT] = all_rings.len() as u64;
            m[mesh::COUNTERS] = counters[d] + device_counters_offset(n_queues, per_queue);
            for p in 0..devices {
                let cursor = counters[p]
                    + device_counters_offset(n_queues, per_queue)
                    + word_offset(dc::IDLE_CURSOR) as u64;
                m[mesh::SWEEPS + p] = kernel_at.of(cursor, p);
            }
            (m[mesh::BATCH], m[mesh::WAIT_NS], m[mesh::FORWARD_IDLE]) = aggregation.words();
            if let Some((owner, local)) = placement.owner_map() {
                m[mesh::OWNER] = arena.alloc(owner.len(), Some(owner))?;
                let local: Vec<u8> = local.iter().flat_map(|x| x.to_le_bytes()).collect();
                m[mesh::LOCAL] = arena.alloc(local.len(), Some(&local))?;
            }
            let mesh_at = arena.alloc(m.len() * 8, Some(&words_bytes(&m)))?;
            parts.push((packed, mesh_at));
        }
        let symmetric = std::mem::take(&mut mem.symmetric);
        let mut out = Vec::new();
        for (k, ((packed, mesh_at), arena)) in parts.into_iter().zip(mem.arenas).enumerate() {
            let d = local[k];
            gpus.gpu(k)
                .ctx()
                .bind_to_thread()
                .map_err(driver_err("binding a context"))?;
            arena
                .stream
                .synchronize()
                .map_err(driver_err("copying state to the device"))?;
            out.push(DevicePart {
                device: d,
                stream: streams[k].clone(),
                packed,
                mesh: mesh_at,
                items: (0..n_queues).map(|q| items[q][RING_LOCAL][d]).collect(),
                _buffers: arena.buffers,
            });
        }
        Ok(MeshState {
            gpus: gpus.clone(),
            desc,
            placement: placement.clone(),
            parts: out,
            control,
            control_in_kernels: kernel_at.of(control, 0),
            staging,
            counters,
            rings: ring_list,
            per_queue,
            aggregation,
            atomics,
            field_values: crate::program::field_values(&fields),
            symmetric,
            upload_time: t0.elapsed(),
        })
    }

    /// Makes the context of the `k`-th device this process drives current on this thread:
    /// raw driver calls (copies, launches) act on the current context.
    fn bind(&self, k: usize) -> Result<(), GpuError> {
        bind(&self.gpus, k)
    }

    /// The part to read device `d`'s memory through (bound): its own when this process drives
    /// it, else the first (peers' buffers are mapped here: peer access, or NVSHMEM's mappings;
    /// or fetched through it under NVSHMEM calls, `read_bytes`).
    fn reader(&self, d: usize) -> Result<&DevicePart, GpuError> {
        let k = self.parts.iter().position(|p| p.device == d).unwrap_or(0);
        self.bind(k)?;
        Ok(&self.parts[k])
    }

    /// `out.len()` bytes at `at` on device `d` (as `MeshMemory::each` returned it): copied out
    /// on that device's stream, or, for another rank's memory under NVSHMEM calls (a tagged
    /// address), fetched through the staging buffer (`World::fetch`).
    fn read_bytes(&self, d: usize, at: u64, out: &mut [u8], during: &str) -> Result<(), GpuError> {
        let part = self.reader(d)?;
        match (self.gpus.world(), self.staging) {
            (Some(world), Some(staging)) if nvshmem::is_tagged(at) => world.fetch(
                self.gpus.gpu(0),
                &part.stream,
                (staging, FETCH_STAGING_BYTES),
                at,
                out,
            ),
            // SAFETY: `at` holds `out.len()` bytes reachable from this device (its own memory,
            // or a peer's mapped here).
            _ => unsafe { copy_out_and_wait(out, at, &part.stream, during) },
        }
    }

    /// Wall time of the upload.
    pub fn upload_time(&self) -> Duration {
        self.upload_time
    }

    /// Resets what runs mutate on the devices this process drives: every spread array (and
    /// filter copy) from its pristine copy, each field's filter word for the running
    /// program's `filters` (0, no copy, for a field whose copies the uploading program did not
    /// allocate: `lower` then asks the owner, as exact, only slower), its combine copy (zeroed)
    /// and word for the running program's `combines` (0 likewise: `accumulate` then adds at
    /// the home at once), the counters (with the combine copies' length, `deliver_len`), the
    /// control block (by device 0's driver), and the seeds (on their owners' local rings).
    /// Under NVSHMEM a barrier follows: no rank starts before every rank has reset. Returns the
    /// run's kernel argument for each device this process drives: its packed state with each
    /// field's filter and combine words.
    fn reset(
        &self,
        seeds: &[Vec<ItemBits>],
        plan: &Plan,
        (combine, drain): (bool, u32),
        idle_range: u64,
    ) -> Result<Vec<Vec<u8>>, RunError> {
        let combining =
            |f: &SpreadField| combine && !f.combines.is_empty() && plan.combines.contains(&f.name);
        // The same on every device: each holds a copy of every combined field.
        let deliver_len: u64 = self
            .atomics
            .iter()
            .filter(|f| combining(f))
            .map(|f| f.host.len() as u64)
            .sum();
        if let Some(world) = self.gpus.world() {
            // Every rank has read the last run's counters and results (through the mappings, or
            // fetched) before any rank overwrites its own.
            world.barrier("the barrier before a reset");
        }
        let queues: Vec<_> = self.desc.queues().collect();
        // Per queue, the seeds of each device (on its local ring).
        let split: Vec<Vec<Vec<ItemBits>>> = queues
            .iter()
            .zip(seeds)
            .map(|(f, s)| seeds_by_owner(s, &self.placement, f.elem.parts()[0]))
            .collect();
        let mut args = Vec::with_capacity(self.parts.len());
        for (k, part) in self.parts.iter().enumerate() {
            let d = part.device;
            self.bind(k)?;
            let s = part.stream.cu_stream();
            let mut arg = part.packed.clone();
            for f in &self.atomics {
                if let Some(&(live, pristine, bytes)) = f.parts.get(d)
                    && bytes > 0
                {
                    // SAFETY: both are live allocations of `bytes` bytes on this device.
                    unsafe { result::memcpy_dtod_async(live, pristine, bytes, s) }
                        .map_err(driver_err("resetting the state"))?;
                }
                let on = plan.filters.iter().any(|p| p.name == f.name);
                let word = match f.filters.get(k) {
                    Some(&(live, pristine)) if on => {
                        let bytes = f.host.len() * f.host.elem_size();
                        // SAFETY: both are live allocations of the whole field on this device.
                        unsafe { result::memcpy_dtod_async(live, pristine, bytes, s) }
                            .map_err(driver_err("resetting the state"))?;
                        live
                    }
                    _ => 0,
                };
                let combine = match f.combines.get(k) {
                    Some(&copy) if combining(f) => {
                        let bytes = f.host.len() * f.host.elem_size();
                        // SAFETY: a live allocation of the whole field on this device.
                        unsafe { result::memset_d8_async(copy, 0, bytes, s) }
                            .map_err(driver_err("resetting the state"))?;
                        copy
                    }
                    _ => 0,
                };
                set_run_words(&mut arg, f.packed_at, word, combine);
            }
            args.push(arg);
            let mut block = Vec::new();
            for (q, f) in queues.iter().enumerate() {
                let mine = &split[q][d];
                let n = mine.len() as u64;
                if n > self.rings[q].capacity {
                    return Err(RunError::overflow(&f.name, self.rings[q].capacity, n));
                }
                block.extend(seeded_counters(n));
                for _ in 1..self.per_queue {
                    block.extend(pack_words(qc::WORDS.len(), &[]));
                }
                if n > 0 {
                    let size = self.rings[q].elem_size;
                    let raw: Vec<u8> = mine
                        .iter()
                        .flat_map(|i| i.to_le_bytes()[..size].to_vec())
                        .collect();
                    // SAFETY: the local ring holds at least `capacity` slots.
                    unsafe {
                        copy_in_and_wait(part.items[q], &raw, &part.stream, "resetting the run")
                    }?;
                }
            }
            let (lo, hi) = self.placement.sweep_share(idle_range, d);
            block.extend(pack_words(
                dc::WORDS.len(),
                &[
                    (dc::SWEEP_LO, lo),
                    (dc::SWEEP_HI, hi),
                    (dc::DELIVER_LEN, deliver_len),
                    (dc::DRAIN, u64::from(drain)),
                ],
            ));
            // SAFETY: the counter buffer holds exactly this many bytes.
            unsafe {
                copy_in_and_wait(self.counters[d], &block, &part.stream, "resetting the run")
            }?;
            if d == 0 {
                let total: u64 = seeds.iter().map(|s| s.len() as u64).sum();
                let block = pack_words(
                    ctl::WORDS.len(),
                    &[
                        (ctl::IDLE_CLEAN, u64::from(total == 0)),
                        (ctl::IDLE_BASE, total),
                    ],
                );
                // SAFETY: device 0's control block holds exactly this many bytes.
                unsafe {
                    copy_in_and_wait(self.control, &block, &part.stream, "resetting the run")
                }?;
            }
        }
        if let Some(world) = self.gpus.world() {
            world.barrier("the barrier before a run");
        }
        Ok(args)
    }

    /// Records each driven device's kernel time (ns) in its DeviceCounters, where every rank
    /// reads it; under NVSHMEM a barrier follows, after which every kernel of the run is over.
    fn record_times(&self, ms: &[f64]) -> Result<(), GpuError> {
        for (k, (part, ms)) in self.parts.iter().zip(ms).enumerate() {
            self.bind(k)?;
            let ns = (ms * 1e6).round() as u64;
            let at = self.counters[part.device]
                + device_counters_offset(self.rings.len(), self.per_queue)
                + word_offset(dc::ELAPSED_NS) as u64;
            // SAFETY: the word lies in this device's counter buffer.
            unsafe { copy_in_and_wait(at, &ns.to_le_bytes(), &part.stream, "recording times") }?;
        }
        if let Some(world) = self.gpus.world() {
            world.barrier("the barrier after a run");
        }
        Ok(())
    }

    /// Every device's counter words (see [`MeshCounters`]).
    fn read_counters(&self) -> Result<MeshCounters, GpuError> {
        let n_queues = self.rings.len();
        let mut control = vec![0u8; ctl::BYTES];
        // Device 0's control block holds ctl::BYTES.
        self.read_bytes(0, self.control, &mut control, "reading run counters")?;
        let mut per_device = Vec::new();
        let mut words_of = Vec::new();
        for (d, &at) in self.counters.iter().enumerate() {
            let mut raw = vec![0u8; counter_bytes(n_queues, self.per_queue)];
            // The counter buffer holds exactly this many bytes.
            self.read_bytes(d, at, &mut raw, "reading run counters")?;
            let words = unpack_words(&raw);
            let ring_words = self.per_queue * n_queues * qc::WORDS.len();
            let blocks: Vec<Vec<u64>> = words[..ring_words]
                .chunks_exact(qc::WORDS.len())
                .map(<[u64]>::to_vec)
                .collect();
            per_device.push(
                blocks
                    .chunks_exact(self.per_queue)
                    .map(<[_]>::to_vec)
                    .collect(),
            );
            words_of.push(words[ring_words..].to_vec());
        }
        Ok((unpack_words(&control), per_device, words_of))
    }

    fn stats<P: TaskSet>(
        &self,
        program: &MeshProgram<P>,
        seeds: &[Vec<ItemBits>],
        wall: Duration,
    ) -> Result<Stats, RunError> {
        let (control, counters, device_words) = self.read_counters()?;
        if control[ctl::FAULT] != 0 {
            return Err(RunError::fault(
                control[ctl::FAULT],
                &program.fault_functions,
            ));
        }
        let plan = &program.plan;
        if control[ctl::STATUS] != status::OK {
            let (q, needed) = counters
                .iter()
                .flat_map(|dev| dev.iter().enumerate())
                .flat_map(|(q, rings)| rings.iter().map(move |c| (q, c[qc::NEEDED])))
                .max_by_key(|(_, n)| *n)
                .unwrap_or((0, 0));
            return Err(RunError::overflow(
                &plan.queues[q],
                self.rings[q].capacity,
                needed,
            ));
        }
        let queues = (0..self.rings.len())
            .map(|q| {
                // Tasks run from the local and receive rings; an outbox is a hop on the way
                // to a receive ring, not a push or a pop of its own.
                let all: Vec<&Vec<u64>> = counters
                    .iter()
                    .flat_map(|dev| dev[q][..RING_OUTBOX].iter())
                    .collect();
                let (pushes, tasks) = pushes_and_tasks(all.iter().map(|c| &c[..]));
                QueueStats {
                    name: plan.queues[q].clone(),
                    capacity: self.rings[q].capacity,
                    seeded: seeds[q].len() as u64,
                    popped: tasks,
                    pushed: pushes - seeds[q].len() as u64,
                    peak: counters
                        .iter()
                        .flat_map(|dev| dev[q].iter())
                        .map(|c| c[qc::PEAK])
                        .max()
                        .unwrap_or(0),
                    helped: helped(all.iter().map(|c| &c[..])),
                    far: false,
                }
            })
            .collect();
        let ms: Vec<f64> = device_words
            .iter()
            .map(|w| w[dc::ELAPSED_NS] as f64 / 1e6)
            .collect();
        // A device this process drives by its own name; a peer rank's (NVSHMEM) by this one's.
        let name_of = |d: usize| {
            program
                .gpus
                .local()
                .find(|&(i, _)| i == d)
                .map_or(program.gpus.gpu(0).name(), |(_, g)| g.name())
        };
        let devices = counters
            .iter()
            .enumerate()
            .map(|(d, dev)| {
                let received: Vec<u64> = dev.iter().map(|r| r[RING_RECV][qc::END_ALLOC]).collect();
                DeviceStats {
                    name: format!("{} (device {d}, {:.3} ms)", name_of(d), ms[d]),
                    indices: self.placement.count(d),
                    tasks: dev
                        .iter()
                        .map(|r| pushes_and_tasks([&r[RING_LOCAL][..], &r[RING_RECV][..]]).1)
                        .sum(),
                    sent: device_words[d][dc::SENT],
                    remote_ops: Some(device_words[d][dc::REMOTE_OPS]),
                    progress: Vec::new(),
                    delivered: device_words[d][dc::DELIVERED],
                    received: received.iter().sum(),
                    received_bytes: received
                        .iter()
                        .zip(&self.rings)
                        .map(|(n, r)| n * r.elem_size as u64)
                        .sum(),
                }
            })
            .collect();
        let spec = &program.spec;
        Ok(Stats {
            device: program.gpus.describe(),
            time: Duration::from_secs_f64(ms.iter().cloned().fold(0.0, f64::max) / 1e3),
            time_is_gpu_events: true,
            seeded: 0,
            popped: 0,
            pushed: 0,
            queue_peak: 0,
            queues,
            idle_sweeps: control[ctl::IDLE_SWEEPS],
            workers: spec.groups(program.grid) * program.gpus.len() as u64,
            grid: Some((program.grid, spec.block_size)),
            strategy: spec.strategy,
            launches: program.gpus.len() as u64,
            levels: 0,
            wall: Some(wall),
            upload: None,
            timeline: None,
            timeline_queues: None,
            phases: None,
            progress_error: None,
            priority: Vec::new(),
            devices,
        }
        .totals())
    }

    /// Copies every `Atomics` field's values back into its host array (gathering the parts;
    /// under NVSHMEM every rank gathers every part, through NVSHMEM's mappings or fetched).
    pub fn read_back(&self) -> Result<(), RunError> {
        fatal_on_rank(
            self.gpus.world(),
            "reading results back",
            self.read_back_inner(),
        )
    }

    fn read_back_inner(&self) -> Result<(), RunError> {
        for f in &self.atomics {
            let mut parts = Vec::new();
            for (d, &(live, _, bytes)) in f.parts.iter().enumerate() {
                let mut raw = vec![0u8; bytes];
                if bytes > 0 {
                    // `live` holds `bytes` bytes on device d.
                    self.read_bytes(d, live, &mut raw, "copying results back")?;
                }
                parts.push(raw);
            }
            let bytes = if f.spread {
                let size = f.host.elem_size();
                let split: Vec<Vec<[u8; 8]>> = parts
                    .iter()
                    .map(|p| {
                        p.chunks_exact(size)
                            .map(|c| {
                                let mut w = [0u8; 8];
                                w[..size].copy_from_slice(c);
                                w
                            })
                            .collect()
                    })
                    .collect();
                self.placement
                    .gather(&split)
                    .iter()
                    .flat_map(|w| w[..size].to_vec())
                    .collect()
            } else {
                parts.remove(0)
            };
            f.host.write_bytes(&bytes);
        }
        Ok(())
    }
}

/// Makes the context of the `k`-th GPU this process drives current on this thread.
fn bind(gpus: &Gpus, k: usize) -> Result<(), GpuError> {
    gpus.gpu(k)
        .ctx()
        .bind_to_thread()
        .map_err(driver_err("binding a context"))
}

#[cfg(test)]
mod tests {
    use super::KernelAddresses;
    use crate::placement::Placement;
    use atos_codegen::layout::mesh;

    /// mesh.cuh's `owner_of` and `local_of` for a ranges placement, read from a `Mesh`'s words
    /// as the device reads them: the own range first (`in_own_range`, a wrapping subtraction
    /// and a comparison), then device 0 past the placed indices, then the bounds.
    fn device_place(m: &[u64], i: u64) -> (usize, u64) {
        let (lo, span) = (m[mesh::OWN_LO], m[mesh::OWN_SPAN]);
        if i.wrapping_sub(lo) < span {
            return (m[mesh::DEVICE] as usize, i - lo);
        }
        if i >= m[mesh::LEN] {
            // owner_of: device 0; local_of on device 0 of a ranges placement: i - bounds[0].
            return (0, i - m[mesh::BOUNDS]);
        }
        let o = (1..m[mesh::DEVICES] as usize)
            .filter(|&d| i >= m[mesh::BOUNDS + d])
            .count();
        (o, i - m[mesh::BOUNDS + o])
    }

    /// A run's filter and combine words land on the parts table's `filter` and `combine`
    /// members (`layout::spread_parts`), whatever the table's place in the argument, and touch
    /// nothing else.
    #[test]
    fn run_words_land_on_the_tables_filter_and_combine() {
        use atos_codegen::layout::spread_parts;
        for at in [0usize, 16, 96] {
            let mut arg = vec![0xaau8; at + spread_parts::WORDS * 8 + 8];
            super::set_run_words(&mut arg, at, 0x1111, 0x2222);
            let words: Vec<u64> = arg[at..at + spread_parts::WORDS * 8]
                .chunks_exact(8)
                .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
                .collect();
            for (k, w) in words.iter().enumerate() {
                let want = match k {
                    k if k == spread_parts::FILTER => 0x1111,
                    k if k == spread_parts::COMBINE => 0x2222,
                    _ => 0xaaaa_aaaa_aaaa_aaaa,
                };
                assert_eq!(*w, want, "word {k} of a table at byte {at}");
            }
            assert!(
                arg[..at]
                    .iter()
                    .chain(&arg[at + spread_parts::WORDS * 8..])
                    .all(|&b| b == 0xaa)
            );
            let names: Vec<&str> = spread_parts::FIELDS.iter().map(|f| f.0).collect();
            assert_eq!(
                names[2..],
                ["filter", "combine"],
                "the members the words are for"
            );
        }
    }

    /// Each device's own-range words (`own_lo`, `own_span`, filled by the host) place every
    /// index as the placement does, from every device's point of view: uneven ranges, empty
    /// ones (first, middle, last), one device, eight, and indices past the placed ones (device
    /// 0, as on the CPU). A map leaves the own range empty.
    #[test]
    fn own_range_words_place_every_index_as_the_placement_does() {
        let placements = [
            Placement::even(10, 1).unwrap(),
            Placement::even(10, 3).unwrap(),
            Placement::even(1000, 8).unwrap(),
            Placement::ranges(vec![0, 0, 7, 12]).unwrap(),
            Placement::ranges(vec![0, 5, 5, 9]).unwrap(),
            Placement::ranges(vec![0, 4, 9, 9]).unwrap(),
            Placement::ranges(vec![0, 0]).unwrap(),
        ];
        for p in &placements {
            for d in 0..p.devices() {
                let mut m = vec![0u64; mesh::WORDS];
                super::placement_words(&mut m, p, d);
                assert_eq!(m[mesh::KIND], mesh::KIND_RANGES);
                assert_eq!(m[mesh::OWN_SPAN], p.count(d), "{p:?} device {d}");
                for i in 0..p.len() + 3 {
                    let want = (p.owner(i), p.local(i));
                    assert_eq!(device_place(&m, i), want, "{p:?}: index {i} on device {d}");
                }
            }
        }
        let map = Placement::from_owners(vec![1, 0, 1, 1], 2).unwrap();
        let mut m = vec![0u64; mesh::WORDS];
        super::placement_words(&mut m, &map, 1);
        assert_eq!(
            (m[mesh::KIND], m[mesh::OWN_SPAN], m[mesh::DEVICE]),
            (mesh::KIND_MAP, 0, 1)
        );
    }

    /// Devices sharing a GPU split its SMs by the most devices one GPU holds (`Gpus::shared`
    /// puts device k on GPU k mod G).
    #[test]
    fn devices_per_gpu_is_the_largest_share() {
        assert_eq!(super::most_per_gpu(&[0, 1]), 1);
        assert_eq!(super::most_per_gpu(&[0, 0]), 2);
        assert_eq!(super::most_per_gpu(&[0, 1, 0]), 2);
        assert_eq!(super::most_per_gpu(&[0, 0, 0, 0]), 4);
        assert_eq!(super::most_per_gpu(&[0, 1, 2, 3, 0]), 2);
    }

    /// Under NVSHMEM calls every symmetric address reaches the kernels tagged with its rank,
    /// this rank's own included (over a network only NVSHMEM's atomics are atomic with the
    /// other ranks'); a tagged one passes unchanged; null stays null; otherwise nothing changes.
    #[test]
    fn kernels_get_tagged_symmetric_addresses_only_under_calls() {
        let own = 0x7f00_0000_1000u64;
        let calls = KernelAddresses { calls: true };
        let tagged = calls.of(own, 1);
        assert_eq!(super::nvshmem::untag(tagged), (own, 1));
        assert_eq!(
            calls.of(tagged, 3),
            tagged,
            "an address tagged by World::alloc keeps its rank"
        );
        assert_eq!(calls.of(0, 2), 0);
        let mappings = KernelAddresses { calls: false };
        assert_eq!(mappings.of(own, 1), own);
    }
}
