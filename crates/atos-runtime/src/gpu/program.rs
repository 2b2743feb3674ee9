//! Program: a task specialized, compiled and loaded for one GPU; and its runs.

use std::marker::PhantomData;
use std::sync::Arc;
use std::time::{Duration, Instant};

use atos_codegen::{KernelSpec, StateDesc, Strategy, WorkerKind, generate_unit};
use cudarc::driver::{CudaFunction, CudaSlice, CudaStream, DevicePtr, sys};

use super::{Gpu, GpuError, driver_err, nvrtc};
use crate::elem::Elem;
use crate::error::RunError;
use crate::headers::{QUEUE_COUNTERS_BYTES, counter};
use crate::state::{AtomicHost, FieldRef, State};
use crate::stats::Stats;
use crate::task::Task;

/// Builds a [`Program`]: the task's own `worker`/`fetch` unless overridden.
pub struct ProgramBuilder<T: Task> {
    gpu: Gpu,
    spec: KernelSpec,
    grid: Option<u32>,
    timeout: Option<Duration>,
    _task: PhantomData<T>,
}

/// A task compiled for one GPU and specialization. Build once, run many times.
pub struct Program<T: Task> {
    gpu: Gpu,
    spec: KernelSpec,
    source: String,
    function: CudaFunction,
    grid: u32,
    timeout: Option<Duration>,
    compile_log: String,
    _task: PhantomData<T>,
}

/// Generates the CUDA translation unit for `task` under `spec` (what NVRTC compiles).
pub fn cuda_source<T: Task>(spec: &KernelSpec) -> Result<String, atos_codegen::CodegenError> {
    let mut deps = Vec::new();
    T::device_fns(&mut deps);
    let deps: Vec<_> = deps.into_iter().cloned().collect();
    generate_unit(T::ir(), &deps, &<T::State<'_> as State>::desc(), spec)
}

impl<T: Task> ProgramBuilder<T> {
    pub fn worker(mut self, worker: WorkerKind) -> Self {
        self.spec.worker = worker;
        self
    }

    pub fn fetch(mut self, fetch: u32) -> Self {
        self.spec.fetch = fetch;
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

    /// The CUDA this program compiles.
    pub fn source(&self) -> Result<String, GpuError> {
        Ok(cuda_source::<T>(&self.spec)?)
    }

    /// Generates, compiles (cached) and loads the kernel.
    pub fn build(self) -> Result<Program<T>, GpuError> {
        let source = self.source()?;
        let compiled = nvrtc::compile_cubin(&source, self.gpu.arch())?;
        let module = self
            .gpu
            .ctx()
            .load_module(cudarc::nvrtc::Ptx::from_binary(compiled.cubin.to_vec()))
            .map_err(driver_err("loading the compiled module"))?;
        let kernel = self.spec.kernel_name(&T::ir().name);
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
            source,
            function,
            grid,
            timeout: self.timeout,
            compile_log: compiled.log,
            _task: PhantomData,
        })
    }
}

/// Device copies of a state's fields for one run, and the packed kernel argument.
struct DeviceState<'s> {
    packed: Vec<u8>,
    buffers: Vec<CudaSlice<u8>>,
    atomics: Vec<(&'s dyn AtomicHost, usize)>,
    counters: usize,
    capacity: u64,
}

impl<T: Task> Program<T> {
    /// Starts building a program for `task` on `gpu`.
    #[allow(clippy::new_ret_no_self)]
    pub fn new(gpu: &Gpu, _task: T) -> ProgramBuilder<T> {
        ProgramBuilder {
            gpu: gpu.clone(),
            spec: KernelSpec::for_task(T::ir()),
            grid: None,
            timeout: None,
            _task: PhantomData,
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

    /// Runs the task from `seeds` until no task is queued or in flight; `Atomics` fields of
    /// `state` hold the results afterwards.
    pub fn run(&self, state: &T::State<'_>, seeds: &[T::Item]) -> Result<Stats, RunError> {
        let stream = self.gpu.ctx().default_stream();
        let desc = <T::State<'_> as State>::desc();
        let dev = self.upload(&stream, state, &desc, seeds)?;
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
        let mut params = [arg.as_mut_ptr() as *mut std::ffi::c_void];
        // SAFETY: the kernel takes one by-value struct whose layout `generate_unit` asserts
        // (static_assert on its size) to match `packed`; every pointer in it is a live
        // allocation in `dev.buffers`.
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

        let mut counters = vec![0u8; QUEUE_COUNTERS_BYTES];
        stream
            .memcpy_dtoh(
                &dev.buffers[dev.counters].slice(0..QUEUE_COUNTERS_BYTES),
                &mut counters,
            )
            .map_err(driver_err("reading queue counters"))?;
        let read =
            |i: usize| u64::from_le_bytes(counters[i * 128..i * 128 + 8].try_into().unwrap());
        if read(counter::STATUS) != 0 {
            return Err(RunError::QueueOverflow {
                capacity: dev.capacity,
                needed: read(counter::NEEDED).max(read(counter::END_ALLOC)),
            });
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
        let workers = u64::from(self.grid)
            * match self.spec.worker {
                WorkerKind::Thread => u64::from(self.spec.block_size),
                WorkerKind::Warp => u64::from(self.spec.block_size / 32),
                WorkerKind::Cta => 1,
            };
        let end_alloc = read(counter::END_ALLOC);
        Ok(Stats {
            device: self.gpu.name().to_string(),
            time: Duration::from_secs_f64(f64::from(ms) / 1e3),
            time_is_gpu_events: true,
            seeded: seeds.len() as u64,
            popped: read(counter::DONE),
            pushed: end_alloc - seeds.len() as u64,
            queue_peak: end_alloc,
            workers,
            grid: Some((self.grid, self.spec.block_size)),
        })
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
        state: &'s T::State<'_>,
        desc: &StateDesc,
        seeds: &[T::Item],
    ) -> Result<DeviceState<'s>, RunError> {
        let mut dev = DeviceState {
            packed: Vec::new(),
            buffers: Vec::new(),
            atomics: Vec::new(),
            counters: 0,
            capacity: 0,
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
                    if seeds.len() as u64 > capacity {
                        return Err(RunError::QueueOverflow {
                            capacity,
                            needed: seeds.len() as u64,
                        });
                    }
                    let size = q.elem_size();
                    let mut items = vec![0u8; (capacity as usize) * size];
                    for (i, s) in seeds.iter().enumerate() {
                        items[i * size..(i + 1) * size]
                            .copy_from_slice(&s.to_bits().to_le_bytes()[..size]);
                    }
                    let items_ptr = push_buffer(&mut dev, &items)?;
                    let mut counters = vec![0u8; QUEUE_COUNTERS_BYTES];
                    let n = (seeds.len() as u64).to_le_bytes();
                    for c in [
                        counter::END,
                        counter::END_ALLOC,
                        counter::END_MAX,
                        counter::END_COUNT,
                    ] {
                        counters[c * 128..c * 128 + 8].copy_from_slice(&n);
                    }
                    let counters_ptr = push_buffer(&mut dev, &counters)?;
                    dev.counters = dev.buffers.len() - 1;
                    dev.capacity = capacity;
                    dev.packed.extend_from_slice(&items_ptr.to_le_bytes());
                    dev.packed.extend_from_slice(&counters_ptr.to_le_bytes());
                    dev.packed.extend_from_slice(&capacity.to_le_bytes());
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
        Ok(dev)
    }
}
