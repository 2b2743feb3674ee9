//! Program: a task set specialized, compiled and loaded for one GPU; and its runs.

use std::marker::PhantomData;
use std::sync::Arc;
use std::time::{Duration, Instant};

use atos_codegen::layout::{
    control as ctl, pack_words, queue_counters as qc, status, unpack_words,
};
use atos_codegen::{KernelSpec, Plan, StateDesc, Strategy, WorkerKind, generate_unit};
use cudarc::driver::{CudaFunction, CudaSlice, CudaStream, DevicePtr, sys};

use super::{Gpu, GpuError, driver_err, nvrtc};
use crate::arrays::ring_slots;
use crate::error::RunError;
use crate::program::{Seeds, check_seed_room, idle_range, plan_of, queue_fields, seeds_per_queue};
use crate::state::{AtomicHost, FieldRef, State};
use crate::stats::{QueueStats, Stats};
use crate::task::{Task, TaskSet};

/// Builds a [`Program`]: the tasks' own `worker`/`fetch` unless overridden.
pub struct ProgramBuilder<P: TaskSet> {
    gpu: Gpu,
    spec: KernelSpec,
    grid: Option<u32>,
    timeout: Option<Duration>,
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
    grid: u32,
    timeout: Option<Duration>,
    compile_log: String,
    _tasks: PhantomData<P>,
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

    /// Number of blocks; default: as many as can be resident (occupancy x SM count).
    pub fn grid(mut self, blocks: u32) -> Self {
        self.grid = Some(blocks.max(1));
        self
    }

    pub fn persistent(mut self) -> Self {
        self.spec.strategy = Strategy::Persistent;
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
                let per_sm = function
                    .occupancy_max_active_blocks_per_multiprocessor(self.spec.block_size, 0, None)
                    .map_err(driver_err("computing occupancy"))?;
                per_sm.max(1) * self.gpu.sm_count()
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
            compile_log: compiled.log,
            _tasks: PhantomData,
        })
    }
}

fn task_index<P: TaskSet, T: Task>() -> Option<usize> {
    P::irs().iter().position(|ir| ir.name == T::ir().name)
}

/// Device copies of a state's fields for one run, and the packed kernel argument.
struct DeviceState<'s> {
    packed: Vec<u8>,
    buffers: Vec<CudaSlice<u8>>,
    atomics: Vec<(&'s dyn AtomicHost, usize)>,
    /// Per queue: (buffer index of its counters, capacity, seeds, linear).
    queues: Vec<(usize, u64, u64, bool)>,
    control: usize,
}

impl<P: TaskSet> Program<P> {
    /// Starts building a program for `tasks` (one task or a tuple of tasks) on `gpu`.
    #[allow(clippy::new_ret_no_self)]
    pub fn new(gpu: &Gpu, _tasks: P) -> ProgramBuilder<P> {
        ProgramBuilder {
            gpu: gpu.clone(),
            spec: KernelSpec::for_tasks(&P::irs()),
            grid: None,
            timeout: None,
            patch: None,
            _tasks: PhantomData,
        }
    }

    pub fn spec(&self) -> &KernelSpec {
        &self.spec
    }

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

    /// Runs from `seeds`, which go to the first task's queue, until the run is proven finished;
    /// `Atomics` fields of `state` hold the results afterwards.
    pub fn run(
        &self,
        state: &P::State<'_>,
        seeds: &[<P::First as Task>::Item],
    ) -> Result<Stats, RunError> {
        self.run_seeds(state, &Seeds::new().add_for::<P::First>(seeds))
    }

    /// Runs from seeds given per task.
    pub fn run_seeds(&self, state: &P::State<'_>, seeds: &Seeds) -> Result<Stats, RunError> {
        let stream = self.gpu.ctx().default_stream();
        let desc = <P::State<'_> as State>::desc();
        let seeds = seeds_per_queue(&self.plan, seeds)?;
        idle_range(&self.plan, &P::irs(), &state.fields())?;
        let dev = self.upload(&stream, state, &desc, &seeds)?;
        let ev = |what| {
            self.gpu
                .ctx()
                .new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))
                .map_err(driver_err(what))
        };
        let (start, stop) = (ev("creating an event")?, ev("creating an event")?);
        start
            .record(&stream)
            .map_err(driver_err("recording the start event"))?;
        let mut arg = dev.packed.clone();
        let mut control_ptr = {
            let (ptr, _sync) = dev.buffers[dev.control].device_ptr(&stream);
            ptr
        };
        let mut params = [
            arg.as_mut_ptr() as *mut std::ffi::c_void,
            (&mut control_ptr) as *mut u64 as *mut std::ffi::c_void,
        ];
        // SAFETY: the kernel takes the by-value state struct, whose layout `generate_unit`
        // asserts (static_assert on its size) to match `packed`, and a pointer to the control
        // block; every pointer is a live allocation in `dev.buffers`.
        unsafe {
            cudarc::driver::result::launch_kernel(
                self.function.cu_function(),
                (self.grid, 1, 1),
                (self.spec.block_size, 1, 1),
                0,
                stream.cu_stream(),
                &mut params,
            )
        }
        .map_err(driver_err("launching the kernel"))?;
        stop.record(&stream)
            .map_err(driver_err("recording the stop event"))?;
        self.wait(&stop)?;
        let ms = start
            .elapsed_ms(&stop)
            .map_err(driver_err("reading the event timer"))?;

        let read_words = |buf: usize, words: usize| -> Result<Vec<u64>, RunError> {
            let mut raw = vec![0u8; words * atos_codegen::layout::LINE_BYTES];
            stream
                .memcpy_dtoh(&dev.buffers[buf].slice(0..raw.len()), &mut raw)
                .map_err(driver_err("reading run counters"))?;
            Ok(unpack_words(&raw))
        };
        let control = read_words(dev.control, ctl::WORDS.len())?;
        let mut queue_stats = Vec::new();
        let mut overflow: Option<(usize, u64)> = None;
        for (i, &(buf, capacity, seeded, linear)) in dev.queues.iter().enumerate() {
            let c = read_words(buf, qc::WORDS.len())?;
            if c[qc::NEEDED] > 0 && overflow.is_none_or(|(_, n)| c[qc::NEEDED] > n) {
                overflow = Some((i, c[qc::NEEDED]));
            }
            queue_stats.push(QueueStats {
                name: self.plan.queues[i].clone(),
                capacity,
                seeded,
                popped: c[qc::DONE],
                pushed: c[qc::END_ALLOC] - seeded,
                // A linear queue's peak is every push (no extra atomic on its hot path).
                peak: if linear {
                    c[qc::END_ALLOC]
                } else {
                    c[qc::PEAK]
                },
            });
        }
        if control[ctl::STATUS] != status::OK {
            let (i, needed) = overflow.unwrap_or((0, 0));
            return Err(RunError::overflow(
                &self.plan.queues[i],
                dev.queues[i].1,
                needed,
            ));
        }
        for (host, buf) in &dev.atomics {
            let mut bytes = vec![0u8; host.len() * host.elem_size()];
            if !bytes.is_empty() {
                stream
                    .memcpy_dtoh(&dev.buffers[*buf].slice(0..bytes.len()), &mut bytes)
                    .map_err(driver_err("copying results back"))?;
                host.write_bytes(&bytes);
            }
        }
        Ok(Stats {
            device: self.gpu.name().to_string(),
            time: Duration::from_secs_f64(f64::from(ms) / 1e3),
            time_is_gpu_events: true,
            seeded: 0,
            popped: 0,
            pushed: 0,
            queue_peak: 0,
            queues: queue_stats,
            idle_sweeps: control[ctl::IDLE_SWEEPS],
            workers: self.spec.groups(self.grid),
            grid: Some((self.grid, self.spec.block_size)),
        }
        .totals())
    }

    fn wait(&self, stop: &cudarc::driver::CudaEvent) -> Result<(), GpuError> {
        let Some(limit) = self.timeout else {
            return stop.synchronize().map_err(driver_err("running the kernel"));
        };
        let t0 = Instant::now();
        loop {
            if stop
                .try_is_complete()
                .map_err(driver_err("running the kernel"))?
            {
                return Ok(());
            }
            if t0.elapsed() > limit {
                return Err(GpuError::Timeout {
                    seconds: limit.as_secs_f64(),
                });
            }
            std::thread::sleep(Duration::from_micros(200));
        }
    }

    fn upload<'s>(
        &self,
        stream: &Arc<CudaStream>,
        state: &'s P::State<'_>,
        desc: &StateDesc,
        seeds: &[Vec<u64>],
    ) -> Result<DeviceState<'s>, RunError> {
        let mut dev = DeviceState {
            packed: Vec::new(),
            buffers: Vec::new(),
            atomics: Vec::new(),
            queues: Vec::new(),
            control: 0,
        };
        let push_buffer = |dev: &mut DeviceState<'s>, bytes: &[u8]| -> Result<u64, GpuError> {
            let mut buf = stream
                .alloc_zeros::<u8>(bytes.len().max(8))
                .map_err(driver_err("allocating device memory"))?;
            if !bytes.is_empty() {
                stream
                    .memcpy_htod(bytes, &mut buf)
                    .map_err(driver_err("copying state to the device"))?;
            }
            let ptr = {
                let (ptr, _sync) = buf.device_ptr(stream);
                ptr
            };
            dev.buffers.push(buf);
            Ok(ptr)
        };
        let fields = state.fields();
        check_seed_room(&self.plan, &queue_fields(&fields), seeds)?;
        let total_seeds: u64 = seeds.iter().map(|s| s.len() as u64).sum();
        let mut queue_index = 0;
        for (field, fd) in fields.iter().zip(&desc.fields) {
            match field {
                FieldRef::Slice { bytes, len } => {
                    let ptr = push_buffer(&mut dev, bytes)?;
                    dev.packed.extend_from_slice(&ptr.to_le_bytes());
                    dev.packed.extend_from_slice(&(*len as u64).to_le_bytes());
                }
                FieldRef::Atomics(a) => {
                    let ptr = push_buffer(&mut dev, &a.read_bytes())?;
                    dev.atomics.push((*a, dev.buffers.len() - 1));
                    dev.packed.extend_from_slice(&ptr.to_le_bytes());
                    dev.packed
                        .extend_from_slice(&(a.len() as u64).to_le_bytes());
                }
                FieldRef::Queue(q) => {
                    let capacity = q.capacity();
                    // A linear queue never wraps (mask = all ones, `LINEAR` in queue.cuh).
                    let (slots, mask) = if q.linear() {
                        (capacity.max(1), u64::MAX)
                    } else {
                        let slots = ring_slots(capacity);
                        (slots, slots - 1)
                    };
                    let size = q.elem_size();
                    let queue_seeds = &seeds[queue_index];
                    queue_index += 1;
                    let mut items = vec![0u8; slots as usize * size];
                    for (i, s) in queue_seeds.iter().enumerate() {
                        items[i * size..(i + 1) * size].copy_from_slice(&s.to_le_bytes()[..size]);
                    }
                    let items_ptr = push_buffer(&mut dev, &items)?;
                    let n = queue_seeds.len() as u64;
                    let counters = pack_words(
                        qc::WORDS.len(),
                        &[
                            (qc::END, n),
                            (qc::END_ALLOC, n),
                            (qc::END_MAX, n),
                            (qc::END_COUNT, n),
                            (qc::PEAK, n),
                            (qc::AVAIL, n),
                        ],
                    );
                    let counters_ptr = push_buffer(&mut dev, &counters)?;
                    dev.queues
                        .push((dev.buffers.len() - 1, capacity, n, q.linear()));
                    for word in [items_ptr, counters_ptr, capacity, mask] {
                        dev.packed.extend_from_slice(&word.to_le_bytes());
                    }
                }
                FieldRef::Scalar(bits) => {
                    let mut slot = [0u8; 8];
                    let size = fd.elem.size_bytes();
                    slot[..size].copy_from_slice(&bits.to_le_bytes()[..size]);
                    dev.packed.extend_from_slice(&slot);
                }
            }
        }
        debug_assert_eq!(dev.packed.len(), atos_codegen::state_size(desc));
        let control = pack_words(
            ctl::WORDS.len(),
            &[
                (ctl::IDLE_CLEAN, u64::from(total_seeds == 0)),
                (ctl::IDLE_BASE, total_seeds),
            ],
        );
        push_buffer(&mut dev, &control)?;
        dev.control = dev.buffers.len() - 1;
        Ok(dev)
    }
}
