//! Assembles one CUDA translation unit for a program: the state struct, device functions, the
//! tasks, the push channels and the kernel entry that serves every queue (and the idle hook).

use std::collections::HashMap;
use std::fmt::Write;

use crate::balance::{
    SHARED_FIXED_BYTES, SHARED_LIMIT_BYTES, batch_fn_name, batch_pushes_first, board_name,
    emit_batch_fn, runs_balanced, shares, task_shares,
};
use crate::emit::{Emitter, InlineCalls, OUT, STATE_FN_DIRECT, STATE_FN_UNIFORM};
use crate::error::CodegenError;
use crate::ir::*;
use crate::names::{NameTable, sanitize};
use crate::plan::{Plan, Source, plan_program, queue_rings};
use crate::typeck::{Checker, Signature, Typed};

/// How the scheduler drives the tasks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// One launch; groups loop until the run is proven finished.
    Persistent,
    /// The host launches one kernel per published window of a queue, sized to it, several in
    /// flight at once, until every queue is empty and no launch is running.
    Discrete,
    /// Level by level: a launch runs exactly the items queued before it (the input frontier;
    /// its pushes are the next level's), one launch at a time.
    Bsp,
}

impl Strategy {
    pub const ALL: [Strategy; 3] = [Strategy::Persistent, Strategy::Discrete, Strategy::Bsp];

    pub fn name(self) -> &'static str {
        match self {
            Strategy::Persistent => "persistent",
            Strategy::Discrete => "discrete",
            Strategy::Bsp => "bsp",
        }
    }

    /// `persistent`, `discrete` or `bsp`.
    pub fn parse(name: &str) -> Option<Strategy> {
        Strategy::ALL.into_iter().find(|s| s.name() == name)
    }

    /// Whether launches run windows of the queues (discrete and bulk-synchronous).
    pub fn windowed(self) -> bool {
        !matches!(self, Strategy::Persistent)
    }
}

/// Worker kind and fetch size of one task of a program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TaskSpec {
    pub worker: WorkerKind,
    pub fetch: u32,
}

/// Shared memory all of a CTA group's push stages may take together.
pub const STAGE_BUDGET_BYTES: usize = 32 * 1024;

/// Largest fetch size a task attribute or a spec may ask for: a group grabs at most this many
/// items per queue reservation.
pub const MAX_FETCH: u32 = 1 << 16;

/// Most claimed items one thread holds while its worker runs them (see `QueueServer`).
pub const MAX_HELD_PER_THREAD: u32 = 64;

/// The specialization a translation unit is generated for.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct KernelSpec {
    /// One entry per task of the program, in program order.
    pub tasks: Vec<TaskSpec>,
    pub block_size: u32,
    pub strategy: Strategy,
    /// Run tasks of the balanced shape load-balanced (see `balance.rs`); on by default.
    pub balance: bool,
    /// Persistent CTA groups keep up to a batch of their own pushes to the queue they serve
    /// and run it next, without a round trip through the queue; on by default.
    pub keep: bool,
    /// Persistent CTA groups that keep pushes also park a batch of their pushes to a priority
    /// queue's next ring until the advance that opens its band, then run it themselves
    /// (`atos::Park`, docs/runtime.md "Parked items"); on by default. On one H100 it made
    /// priority BFS at cta/64 5-21% faster (at cta/8 up to 14% slower) and priority SSSP from
    /// 2% faster to 16% slower (docs/results/2026-11-25-parked-bands-h100.md).
    pub park: bool,
    /// Persistent CTA groups post a balanced chunk spanning at least `ATOS_SHARE_MIN_STRIDES`
    /// strides of their threads (a hub's edge list) on their task's board, and idle groups
    /// help run its combined range (`atos::share_begin`, docs/runtime.md "Shared ranges").
    /// Default ([`KernelSpec::for_tasks`]): on, except for programs with an idle hook. Measured
    /// on 2 H200s (docs/results/2026-11-28c-x2-h200.md): BFS 2.0-2.3x faster on kron:22 and
    /// kron:24, colouring 5% faster in one sample, but grid:4096² BFS 10-12% slower (more
    /// spills, where nothing is posted: `atos::share_can_post` tells which graphs can post) and
    /// spread PageRank re-scan 1.5x slower.
    pub share: bool,
    /// Persistent kernels: a group that found nothing naps this many nanoseconds, doubling
    /// up to 256x while it stays idle (`ATOS_IDLE_NAP_NS` in worker.cuh). Default 32: on an
    /// H100, 256 and 1024 were no faster for CTA workers and slower on road graphs
    /// (`docs/results/2026-11-22-strategies-h100.md`).
    pub idle_nap_ns: u32,
    /// Persistent kernels: how many times an idle group's nap doubles while it stays idle
    /// (`ATOS_IDLE_NAP_MAX_SHIFT`), so the longest nap is `idle_nap_ns << idle_nap_doublings`:
    /// the most a push can wait for a napping group to wake. `None` (the default): 8 (256x),
    /// or 3 in a program with a priority queue, whose napping groups must wake soon after a
    /// threshold advance. At most [`IDLE_NAP_MAX_DOUBLINGS`].
    pub idle_nap_doublings: Option<u32>,
    /// Check `+ - *`, negation and shifts for overflow, reporting the first fault with the line
    /// of its Rust statement (`faults.rs`), as a debug build of the Rust code panics; sums across
    /// `lanes` (a reordered reduction) wrap either way. Indices and division are checked in
    /// every build. Default: [`CHECKED_BY_DEFAULT`].
    pub checked: bool,
    /// A unit for a program spread over several GPUs of one node (peer-to-peer; `mesh.cuh`):
    /// `Atomics` fields reached through the placement, pushes routed to the owning device,
    /// termination summed over every device, system-scope atomics. Persistent only. Off by
    /// default; the same unit serves any number of devices.
    pub multi_device: bool,
    /// The second `__launch_bounds__` argument: blocks per SM the register budget must leave
    /// room for. 0 (the default, [`MIN_BLOCKS`]) leaves it to atos: a per-kind bound for
    /// one-GPU persistent units with a priority queue ([`PRIORITY_THREADS_PER_SM`]), spread
    /// persistent units that combine adds ([`SPREAD_COMBINE_THREADS_PER_SM`]) and units that
    /// share chunks, none for the others ([`KernelSpec::launch_min_blocks`] says which wins).
    /// With the thread count alone, ptxas 13.0 held the
    /// BFS, PageRank and colouring kernels we inspected to 32 registers, spilling inside the
    /// task loop; any value here lets it allocate by need up to
    /// `65536 / (block_size x min_blocks)`.
    pub min_blocks: u32,
    /// Persistent kernels: record when the run's phases happened, on the GPU's clock, in the
    /// control block's trace words (`ATOS_TRACE_PHASES` in worker.cuh): the first block's
    /// start, the last batch's end, the first sight of the end, the last block's exit. Costs a
    /// clock read per batch and one atomic per block; off by default. Windowed strategies
    /// refuse it (their launches never run the persistent loop), and so do spread units (the
    /// devices' clocks need not agree).
    pub trace_phases: bool,
    /// Stamp the rings' slots (`ATOS_STAMPED_RINGS`, queue.cuh "stamped rings"): each pushed
    /// item is published by a stamp on its slot and each copy-out frees its slot by another,
    /// where a ring otherwise publishes written ranges through tiled counters (`end`,
    /// `read_end`). Applies to one-GPU persistent units without a priority queue
    /// ([`KernelSpec::stamps_rings`]); others ignore it. `Some(on)` asks; `None` (the
    /// default) leaves it to [`stamps_by_default`]: on where some task of the unit runs on
    /// thread or warp workers. The runtime's default comes from the `ATOS_STAMPED_RINGS`
    /// environment variable (`ProgramBuilder::new`: `1` on, `0` off, otherwise `None`).
    pub stamped_rings: Option<bool>,
}

/// The default [`KernelSpec::checked`]: whether atos itself is compiled with debug assertions
/// (the dev profile). A profile that turns `overflow-checks` on in release without debug
/// assertions should set `checked` itself.
pub const CHECKED_BY_DEFAULT: bool = cfg!(debug_assertions);

/// The default [`KernelSpec::idle_nap_ns`].
pub const IDLE_NAP_NS: u32 = 32;

/// The most [`KernelSpec::idle_nap_doublings`] may be (a nap of 32 ns doubled 16 times is 2 ms).
pub const IDLE_NAP_MAX_DOUBLINGS: u32 = 16;

/// The default [`KernelSpec::min_blocks`]: atos's choice ([`KernelSpec::launch_min_blocks`]).
pub const MIN_BLOCKS: u32 = 0;

/// What a program's plan says that decides its unit's register bound when none is given
/// ([`KernelSpec::launch_min_blocks`]): each bound is a per-kind measurement.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BoundTraits {
    /// Some queue of the program is a priority queue (`Plan::priority`).
    pub priority_queue: bool,
    /// The program combines adds to other devices' elements (`Plan::combines`).
    pub combines: bool,
}

impl BoundTraits {
    /// The traits of the program `plan` describes.
    pub fn of(plan: &Plan) -> BoundTraits {
        BoundTraits {
            priority_queue: !plan.priority.is_empty(),
            combines: !plan.combines.is_empty(),
        }
    }
}

/// Whether a unit of `tasks` stamps its rings when the spec does not say
/// ([`KernelSpec::stamped_rings`] `None`): where some task runs on thread or warp workers.
/// On an H100, off and on in one binary, every run verified
/// (docs/results/2026-12-07c-hops-slot-stamps-h100.md, 2026-12-07d-stamped-default-h100.md):
/// every thread- and warp-worker run measured gained, 1.06x to 2.9x (BFS on a path,
/// luxembourg_osm, kron:22 and grid:4096x4096; colouring with the split on kron:22 and the
/// meshes). Units whose tasks all run on CTA workers were mixed and mostly slower: colouring
/// cta/64 on the grid 34.4 to 57.8 ms, on kron:22 11.7 to 13.2, the meshes' cta/16 and cta/32
/// 1.2x to 1.45x slower; BFS cta/64 5-6% slower on the grid and luxembourg_osm, 1.16x faster on
/// kron:22. A CTA's batch waits on the stamps of all its items, and its flush carries more
/// code; those units keep tiled publication unless asked. PageRank's units, whose re-scan runs
/// on thread workers, stamp (kron:22's re-scan cta/8 1.15x faster, the meshes' cta/256 1.05x
/// to 1.1x, the grid's 3% slower).
pub fn stamps_by_default(tasks: &[TaskSpec]) -> bool {
    tasks.iter().any(|t| t.worker != WorkerKind::Cta)
}

/// Blocks per SM a one-GPU persistent unit whose every task runs on thread workers launches
/// when the program sets no grid (at most: fewer where fewer fit; `KernelSpec::default_blocks_per_sm`).
/// A thread worker runs its batch's items one after another, each thread with its own queue
/// operations and memory lines. At the full occupancy (528 to 1056 blocks of 256 on an H100)
/// those threads thrashed the L2 on the grid's colouring (ncu: 8.6 GB read from DRAM against
/// 2.0 GB at 264 blocks); elsewhere the cause was not profiled. On an H100, over 22 persistent
/// thread-worker configurations (BFS, PageRank and colouring, fetch 8 and 64, on
/// grid:4096x4096, kron:22, luxembourg_osm and delaunay_n16), 2 blocks per SM (264) ran 1.44x
/// faster than the full occupancy (geomean; 1.04-1.91x, and 0.95x for colouring kron:22 at
/// fetch 8), 1 block per SM 1.50x but slower than 2 where a task has more work per item
/// (colouring grid:4096x4096 and kron:22 at fetch 64); discrete and bulk-synchronous launches
/// gained nothing consistent, so they keep the full occupancy
/// (docs/results/2026-12-06f-thread-grid-default-h100.md).
pub const THREAD_PERSISTENT_BLOCKS_PER_SM: u32 = 2;

/// Threads per SM a one-GPU persistent unit with a priority queue is compiled for when no
/// `min_blocks` is given, in whole blocks (1280 over the block size, rounded down, 1 to 32):
/// 5 blocks of 256, at most 48 registers a thread (65536 / 1280 in ptxas's steps of 8). Left
/// alone, ptxas gave some of these kernels 40 registers with 180-370 bytes of spill stores, and
/// which ones changed with small edits to the device code; 5 blocks of 256 gave each 48. On an
/// H100 that took 10-23% off warp workers' times (SSSP in either order, priority BFS, k-core)
/// and moved CTA workers' by -5% to +3%, but for k-core on luxembourg_osm (4-10% slower, 1.6
/// ms runs) (docs/results/2026-11-24h-push-registers-h100.md, calls 4 and 6).
pub const PRIORITY_THREADS_PER_SM: u32 = 1280;

/// Threads per SM a spread persistent unit that combines adds (`Plan::combines`: PageRank's
/// re-scan form) is compiled for when no `min_blocks` is given: 6 blocks of 256, at most 40
/// registers. ptxas gave PageRank's spread unit 40 registers by itself until its `Mesh` moved
/// to constant memory, and 48 (5 blocks) after; on one H100 the 48-register unit ran kron:22
/// 2-4% slower, and `--min-blocks 6` as before
/// (docs/results/2026-12-06-spread-profile-h100.md, calls 2 and 3).
pub const SPREAD_COMBINE_THREADS_PER_SM: u32 = 1536;

impl KernelSpec {
    /// The tasks' own attribute values, 256 threads per block, persistent.
    pub fn for_tasks(tasks: &[&FnIr]) -> KernelSpec {
        KernelSpec {
            tasks: tasks
                .iter()
                .map(|t| {
                    let attrs = t.task_attrs();
                    TaskSpec {
                        worker: attrs.map(|a| a.worker).unwrap_or(WorkerKind::Warp),
                        fetch: attrs.map(|a| a.fetch).unwrap_or(1),
                    }
                })
                .collect(),
            block_size: 256,
            strategy: Strategy::Persistent,
            balance: true,
            keep: true,
            park: true,
            share: !tasks.iter().any(|t| {
                matches!(
                    t.task_attrs().map(|a| &a.source),
                    Some(ItemSource::Idle { .. })
                )
            }),
            idle_nap_ns: IDLE_NAP_NS,
            idle_nap_doublings: None,
            checked: CHECKED_BY_DEFAULT,
            multi_device: false,
            min_blocks: MIN_BLOCKS,
            trace_phases: false,
            stamped_rings: None,
        }
    }

    /// A one-task spec.
    pub fn single(worker: WorkerKind, fetch: u32, block_size: u32) -> KernelSpec {
        KernelSpec {
            tasks: vec![TaskSpec { worker, fetch }],
            block_size,
            strategy: Strategy::Persistent,
            balance: true,
            keep: true,
            park: true,
            share: true,
            idle_nap_ns: IDLE_NAP_NS,
            idle_nap_doublings: None,
            checked: CHECKED_BY_DEFAULT,
            multi_device: false,
            min_blocks: MIN_BLOCKS,
            trace_phases: false,
            stamped_rings: None,
        }
    }

    /// Every task on `worker` (chainable: `spec.worker(WorkerKind::Cta).fetch(64)`).
    pub fn worker(mut self, worker: WorkerKind) -> KernelSpec {
        self.tasks.iter_mut().for_each(|t| t.worker = worker);
        self
    }

    /// Every task fetching `fetch` items at a time.
    pub fn fetch(mut self, fetch: u32) -> KernelSpec {
        self.tasks.iter_mut().for_each(|t| t.fetch = fetch);
        self
    }

    /// Checked arithmetic and indices on or off (see [`KernelSpec::checked`]).
    pub fn checked(mut self, on: bool) -> KernelSpec {
        self.checked = on;
        self
    }

    /// A unit for a program spread over several GPUs (see [`KernelSpec::multi_device`]).
    pub fn multi_device(mut self, on: bool) -> KernelSpec {
        self.multi_device = on;
        self
    }

    /// Whether this spec's unit stamps its rings ([`KernelSpec::stamped_rings`]): asked for
    /// (or, not asked either way, [`stamps_by_default`]), on one GPU, persistent, and no queue of the program (of `traits`) a priority queue,
    /// whose advances move ring prefixes. The generator's define and the runtime's stamp
    /// allocation and reset both ask this.
    pub fn stamps_rings(&self, traits: BoundTraits) -> bool {
        self.stamped_rings
            .unwrap_or_else(|| stamps_by_default(&self.tasks))
            && !self.multi_device
            && self.strategy == Strategy::Persistent
            && !traits.priority_queue
    }

    /// The blocks per SM a one-GPU launch of this spec's unit takes when the program (of
    /// `traits`) sets no grid, given that `fit` fit at once (the occupancy): all of them,
    /// except for a persistent unit whose every task runs on thread workers, which takes at
    /// most [`THREAD_PERSISTENT_BLOCKS_PER_SM`]; a unit with a priority queue keeps them all
    /// (its threshold advances were not measured at fewer blocks on thread workers). At least 1.
    pub fn default_blocks_per_sm(&self, traits: BoundTraits, fit: u32) -> u32 {
        let fit = fit.max(1);
        let all_threads =
            !self.tasks.is_empty() && self.tasks.iter().all(|t| t.worker == WorkerKind::Thread);
        if self.strategy == Strategy::Persistent && all_threads && !traits.priority_queue {
            fit.min(THREAD_PERSISTENT_BLOCKS_PER_SM)
        } else {
            fit
        }
    }

    /// The `__launch_bounds__` blocks per SM of this spec's unit, for a program of `traits`
    /// (whether it has a priority queue, whether it combines adds):
    /// [`min_blocks`](KernelSpec::min_blocks) if given; else, for a one-GPU persistent unit
    /// with a priority queue, [`PRIORITY_THREADS_PER_SM`] over the block size (at least 1);
    /// else, for a spread persistent unit that combines, [`SPREAD_COMBINE_THREADS_PER_SM`];
    /// else, for a unit that shares chunks (`balance::shares`), 2048 threads per SM on one GPU
    /// and [`PRIORITY_THREADS_PER_SM`] spread; else none (0).
    pub fn launch_min_blocks(&self, traits: BoundTraits) -> u32 {
        if self.min_blocks != 0 {
            self.min_blocks
        } else if traits.priority_queue
            && self.strategy == Strategy::Persistent
            && !self.multi_device
        {
            // At most 32: no SM of sm_90 holds more blocks (only 256 threads a block was
            // measured).
            (PRIORITY_THREADS_PER_SM / self.block_size).clamp(1, 32)
        } else if traits.combines && self.multi_device && self.strategy == Strategy::Persistent {
            // Before the sharing bound below: a combining spread unit that also shares takes
            // this one (measured on PageRank's re-scan unit, which does not share).
            (SPREAD_COMBINE_THREADS_PER_SM / self.block_size).clamp(1, 32)
        } else if self.tasks.iter().any(|t| shares(self, t)) {
            // Units that share chunks (`balance::shares`): left alone, ptxas gave the spread
            // BFS and PageRank units 80 registers and colouring's 125 (3 and 2 blocks of 256
            // per SM) once the share walk was in them. Bound to what ptxas gave these units
            // before: 8 blocks of 256 on one GPU (BFS on kron:22 2.25 ms against 2.55 at 5),
            // 5 spread (48 registers).
            let threads = if self.multi_device {
                PRIORITY_THREADS_PER_SM
            } else {
                2048
            };
            (threads / self.block_size).clamp(1, 32)
        } else {
            0
        }
    }

    /// Blocks per SM the register budget leaves room for (see [`KernelSpec::min_blocks`]).
    pub fn min_blocks(mut self, blocks: u32) -> KernelSpec {
        self.min_blocks = blocks;
        self
    }

    /// Threads per block.
    pub fn block(mut self, threads: u32) -> KernelSpec {
        self.block_size = threads;
        self
    }

    /// How the kernel is driven.
    pub fn strategy(mut self, strategy: Strategy) -> KernelSpec {
        self.strategy = strategy;
        self
    }

    /// Threads of one worker of `kind` under this spec.
    pub fn worker_threads(&self, kind: WorkerKind) -> u32 {
        match kind {
            WorkerKind::Thread => 1,
            WorkerKind::Warp => 32,
            WorkerKind::Cta => self.block_size,
        }
    }

    /// The kernel's scheduling unit: the largest worker kind among the tasks.
    pub fn group(&self) -> WorkerKind {
        let rank = |w: WorkerKind| match w {
            WorkerKind::Thread => 0,
            WorkerKind::Warp => 1,
            WorkerKind::Cta => 2,
        };
        self.tasks
            .iter()
            .map(|t| t.worker)
            .max_by_key(|w| rank(*w))
            .unwrap_or(WorkerKind::Thread)
    }

    pub fn validate(&self, task_names: &[&str]) -> Result<(), CodegenError> {
        if self.block_size < 32 || self.block_size > 1024 || !self.block_size.is_multiple_of(32) {
            return Err(CodegenError::Spec(format!(
                "block size {} must be a multiple of 32 between 32 and 1024",
                self.block_size
            )));
        }
        // Every GPU atos targets (compute capability 7.0 on) keeps 2048 threads per SM at most.
        if self.min_blocks.saturating_mul(self.block_size) > 2048 {
            return Err(CodegenError::Spec(format!(
                "min_blocks {} x block size {} asks for more than the 2048 threads an SM holds: give at most {}",
                self.min_blocks,
                self.block_size,
                2048 / self.block_size
            )));
        }
        if self.trace_phases && self.multi_device {
            return Err(CodegenError::Spec(
                "trace_phases traces one GPU's run (the devices' clocks need not agree, and a spread run reports no phases): leave it off for a spread program".into(),
            ));
        }
        if self.trace_phases && self.strategy.windowed() {
            return Err(CodegenError::Spec(format!(
                "trace_phases traces the persistent loop, and the {} strategy launches windows instead: use the persistent strategy, or leave the trace off",
                self.strategy.name()
            )));
        }
        if let Some(k) = self.idle_nap_doublings {
            let longest = u64::from(self.idle_nap_ns) << k.min(63);
            if k > IDLE_NAP_MAX_DOUBLINGS || longest > u64::from(u32::MAX) {
                return Err(CodegenError::Spec(format!(
                    "idle nap of {} ns doubled {k} times is out of range: give at most {IDLE_NAP_MAX_DOUBLINGS} doublings, and a longest nap (ns << doublings) under 2^32 ns",
                    self.idle_nap_ns
                )));
            }
        }
        if self.tasks.len() != task_names.len() {
            return Err(CodegenError::Spec(format!(
                "the spec has {} task entries for a program of {} tasks",
                self.tasks.len(),
                task_names.len()
            )));
        }
        for (t, name) in self.tasks.iter().zip(task_names) {
            let threads = self.worker_threads(t.worker);
            let most = (MAX_HELD_PER_THREAD * threads).min(MAX_FETCH);
            if t.fetch == 0 || t.fetch > most {
                return Err(CodegenError::Spec(format!(
                    "task `{name}`: fetch {} must be between 1 and {most} for {} workers of {threads} thread(s) (each thread holds at most {MAX_HELD_PER_THREAD} claimed items)",
                    t.fetch,
                    t.worker.name()
                )));
            }
        }
        Ok(())
    }

    /// Name of the kernel entry point in the generated unit.
    pub fn kernel_name(&self, first_task: &str) -> String {
        format!("atos_{}_{}", sanitize(first_task), self.strategy.name())
    }

    /// Items a CTA group stages per queue in shared memory before pushing to the global queue
    /// (and, spread over devices, per queue for other devices): 4 per thread, fewer when the
    /// stages would need more than 32 KiB together.
    pub fn cta_stage_capacity(&self, state: &StateDesc) -> u32 {
        let fit = (STAGE_BUDGET_BYTES / self.stage_item_bytes(state).max(1)) as u32;
        (self.block_size * 4).min(fit).max(32)
    }

    /// Shared bytes one staged item of every queue takes together: the item in each of the
    /// queue's rings' stages and, in a spread unit, in its remote stage with its 4-byte tag
    /// (`atos::RemoteStage`).
    fn stage_item_bytes(&self, state: &StateDesc) -> usize {
        state
            .queues()
            .map(|q| {
                let remote = if self.multi_device {
                    q.elem.size_bytes() + 4
                } else {
                    0
                };
                // A priority queue's near and next rings hold items, its far ring keyed ones.
                let rings = match q.far_elem() {
                    Some(far) => 2 * q.elem.size_bytes() + far.size_bytes(),
                    None => q.elem.size_bytes(),
                };
                rings + remote
            })
            .sum()
    }

    /// Worker groups a launch of `grid` blocks runs.
    pub fn groups(&self, grid: u32) -> u64 {
        u64::from(grid) * u64::from(self.block_size / self.worker_threads(self.group()))
    }
}

/// Spread units without an idle hook count a group's finished items in `done` once per this
/// many batches, and always before the group looks for the end (`QueueServer::count_done` in
/// worker.cuh). Each count is a system-scope release, which waits for the group's writes to reach
/// the other GPUs; on 2 H200s over NVLink counting every batch made BFS on grid:4096x4096 1.22x
/// slower (`docs/results/2026-11-24b-x2-h200.md`). Units with an idle hook keep counting every
/// batch: their sweeps' quiescence checks read `done`, and PageRank re-scan (which has a hook)
/// was 6% slower with batching in the one sample measured.
pub const SPREAD_DONE_BATCHES: u32 = 16;

/// Shared ranges: a persistent CTA group posts a balanced chunk once it spans this many strides
/// of the group's threads (`ATOS_SHARE_MIN_STRIDES` in every unit that shares). The host reads
/// it too: `atos::share_can_post` tells from a graph's degrees whether any chunk can reach it.
pub const SHARE_MIN_STRIDES: u32 = 16;

/// Shared memory a CTA group copies the items of a batch into before it runs them one after
/// another (`CtaWorker::each` in worker.cuh: one chunk of this many bytes per barrier pair), in
/// every unit with a CTA task (`ATOS_EACH_CHUNK_BYTES`) and counted in the static shared memory
/// budget ([`crate::balance::SHARED_LIMIT_BYTES`]). 1 KiB: 256 `u32` items or 64 of 16 bytes.
pub const EACH_CHUNK_BYTES: u32 = 1024;

/// The shared bytes `CtaWorker::each` takes in a unit of `spec`: [`EACH_CHUNK_BYTES`] when a
/// task runs on CTAs (reserved whether or not its batches end up load-balanced, which is
/// decided against the budget this is part of), else none.
fn each_chunk_bytes(spec: &KernelSpec) -> usize {
    if spec.tasks.iter().any(|ts| ts.worker == WorkerKind::Cta) {
        EACH_CHUNK_BYTES as usize
    } else {
        0
    }
}

/// Far items a thread of a group takes per batch of a priority queue's pass.
pub const PASS_FETCH: u32 = 4;

/// Byte layout of the device-side state struct: every field starts on an 8-byte boundary.
pub fn field_size(kind: FieldKind) -> usize {
    match kind {
        FieldKind::Slice | FieldKind::Atomics => 16,
        FieldKind::Queue => 32,
        // Three queue references and the control block's address (`atos::PriorityRef`).
        FieldKind::PriorityQueue(_) => 104,
        FieldKind::Scalar => 8,
    }
}

/// Total size of the device state struct (what the host packs as the kernel argument).
pub fn state_size(state: &StateDesc) -> usize {
    state.fields.iter().map(|f| field_size(f.kind)).sum()
}

/// The most bytes a kernel's parameters may hold (CUDA 12.1 and later, Volta and later GPUs;
/// atos needs a CUDA 13 driver). The state is passed by value, so it must fit with the
/// kernel's other parameters ([`PARAMS_BESIDE_STATE`]).
pub const KERNEL_PARAM_LIMIT: usize = 32_764;

/// Bytes of a kernel's parameters besides the state: the control block's address and, for a
/// windowed launch, its `atos::Window` (`layout::window`).
pub const PARAMS_BESIDE_STATE: usize = 8 + crate::layout::window::BYTES;

/// Refuses a state whose by-value struct would not fit in a kernel's parameters
/// ([`KERNEL_PARAM_LIMIT`]), saying what each field takes: otherwise NVRTC refuses the unit
/// with ptxas's "Formal parameter space overflowed", which names no field.
pub fn check_state_size(state: &StateDesc, multi_device: bool) -> Result<(), CodegenError> {
    let size = state_size(state)
        + if multi_device {
            mesh_state_extra(state)
        } else {
            0
        };
    if size + PARAMS_BESIDE_STATE <= KERNEL_PARAM_LIMIT {
        return Ok(());
    }
    let spread = |kind| {
        if multi_device {
            spread_field_extra(kind)
        } else {
            0
        }
    };
    let atomics = field_size(FieldKind::Atomics) + spread(FieldKind::Atomics);
    Err(CodegenError::Program(format!(
        "state `{}` packs to {size} bytes{}, and a kernel's parameters hold at most {} besides {} for its other parameters: give it fewer fields (a `Slice` takes {} bytes, an `Atomics` field {atomics}, a `Queue` {}{}), or gather arrays of one type into one field",
        state.name,
        if multi_device {
            " spread over devices"
        } else {
            ""
        },
        KERNEL_PARAM_LIMIT - PARAMS_BESIDE_STATE,
        PARAMS_BESIDE_STATE,
        field_size(FieldKind::Slice),
        field_size(FieldKind::Queue),
        if multi_device {
            format!(" and {} more spread", spread(FieldKind::Queue))
        } else {
            String::new()
        },
    )))
}

/// Generates the translation unit for the program `tasks` specialized by `spec`.
///
/// `device_fns` must contain every device function the tasks call, directly or not.
pub fn generate_unit(
    tasks: &[&FnIr],
    device_fns: &[FnIr],
    state: &StateDesc,
    spec: &KernelSpec,
) -> Result<String, CodegenError> {
    let device_refs: Vec<&FnIr> = device_fns.iter().collect();
    let plan = plan_program(tasks, &device_refs, state)?;
    let names: Vec<&str> = tasks.iter().map(|t| t.name.as_str()).collect();
    spec.validate(&names)?;
    if spec.multi_device {
        check_spread(spec.strategy, state)?;
    }
    check_state_size(state, spec.multi_device)?;

    let sigs: HashMap<String, Signature> = device_fns
        .iter()
        .map(|f| {
            (
                f.name.clone(),
                Signature {
                    params: f.params.iter().map(|p| p.ty).collect(),
                    ret: f.ret,
                    state: f.state.as_ref().map(|s| s.ty.clone()),
                },
            )
        })
        .collect();
    let ordered = order_device_fns(tasks, device_fns)?;
    let group = spec.group();
    let inline = inline_calls(tasks, &plan, state, spec);

    let mut out = String::new();
    let described: Vec<String> = tasks
        .iter()
        .zip(&spec.tasks)
        .map(|(t, s)| format!("`{}` ({}, fetch {})", t.name, s.worker.name(), s.fetch))
        .collect();
    let _ = writeln!(
        out,
        "// Generated by atos: {}; block = {}, strategy = {}.",
        described.join(", "),
        spec.block_size,
        spec.strategy.name()
    );
    out.push_str(
        "// Comments `// line N` point at the Rust source line each statement came from.\n",
    );
    let _ = writeln!(
        out,
        "#ifndef ATOS_IDLE_NAP_NS\n#define ATOS_IDLE_NAP_NS {}u\n#endif",
        spec.idle_nap_ns
    );
    if spec.stamps_rings(BoundTraits::of(&plan)) {
        out.push_str("#define ATOS_STAMPED_RINGS 1  // rings published slot by slot (KernelSpec::stamps_rings)\n");
    }
    let prioritized = state.queues().any(|f| f.kind.key().is_some());
    if spec.trace_phases {
        out.push_str(
            "#define ATOS_TRACE_PHASES 1  // the spec's: the run's phases on the GPU clock\n",
        );
    }
    match (spec.idle_nap_doublings, prioritized) {
        (Some(k), _) => {
            let _ = writeln!(out, "#define ATOS_IDLE_NAP_MAX_SHIFT {k}u  // the spec's");
        }
        (None, true) => out.push_str(
            "#define ATOS_IDLE_NAP_MAX_SHIFT 3u  // a priority queue: wake soon after an advance\n",
        ),
        (None, false) => {}
    }
    if prioritized {
        out.push_str(
            "#define ATOS_KEPT_DONE_DEFER 0u  // a priority queue: advances read `done` batch by batch\n",
        );
    }
    if spec.multi_device {
        out.push_str("#define ATOS_SYSTEM_SCOPE 1  // spread over several GPUs: atomics and orderings hold between them\n");
        if plan.idle().is_none() {
            let _ = writeln!(
                out,
                "#define ATOS_DONE_BATCHES {SPREAD_DONE_BATCHES}u  // spread, no idle hook: `done` counted once per {SPREAD_DONE_BATCHES} batches"
            );
        }
    }
    if each_chunk_bytes(spec) > 0 {
        let _ = writeln!(
            out,
            "#define ATOS_EACH_CHUNK_BYTES {EACH_CHUNK_BYTES}u  // CTA batches run item by item: shared bytes for their items"
        );
    }
    if spec.tasks.iter().any(|ts| crate::balance::shares(spec, ts)) {
        let _ = writeln!(
            out,
            "#define ATOS_SHARE_MIN_STRIDES {SHARE_MIN_STRIDES}u  // shared ranges: a chunk of this many strides is posted"
        );
    }
    out.push_str("#include <atos/prelude.cuh>\n#include <atos/layout.cuh>\n#include <atos/queue.cuh>\n#include <atos/worker.cuh>\n");
    if spec.multi_device {
        out.push_str("#include <atos/mesh.cuh>\n");
    }
    out.push('\n');
    emit_tuple_structs(&mut out, state);
    emit_key_structs(&mut out, state);
    emit_state_struct(&mut out, state, spec.multi_device);
    let defers = defers_fence(tasks, spec, &inline);
    let delivers = spec.multi_device && !plan.combines.is_empty();
    if delivers {
        emit_deliver_fn(&mut out, state, &plan.combines);
    }
    emit_out_struct(&mut out, state, &plan, spec, &inline, defers, delivers);
    for (field, callee) in &inline.calls {
        let task = plan
            .inline_task_of(field)
            .expect("inline_calls lists inline tasks");
        let _ = writeln!(
            out,
            "__device__ __forceinline__ void {callee}({}, const {}&, const atos::ThreadWorker&, atos_Out&);",
            tasks[task].item_ty().cuda_name(),
            state.name
        );
    }
    if !inline.calls.is_empty() {
        out.push('\n');
    }
    if holds_inline_runs(&inline, defers) {
        emit_held_runs(&mut out, state, &inline);
    }

    for f in &ordered {
        for (signature, _) in device_variants(f, state) {
            let _ = writeln!(out, "{signature};");
        }
    }
    if !ordered.is_empty() {
        out.push('\n');
    }
    for (k, f) in ordered.iter().enumerate() {
        // Site numbering (`faults::fault_functions`): the tasks, then these.
        let fn_index = (tasks.len() + k) as u32;
        let state_param = f.state.as_ref().map(|p| sanitize(&p.name));
        if let Some(p) = &f.state
            && p.ty != state.name
        {
            return Err(CodegenError::Type {
                function: f.name.clone(),
                line: f.line,
                message: format!(
                    "takes the state `&{}`, but the program's state is `{}`",
                    p.ty, state.name
                ),
            });
        }
        let names = match &state_param {
            Some(sp) => NameTable::with_taken(&[sp, "worker", OUT]),
            None => NameTable::default(),
        };
        let typed = Checker::check(f, f.state.as_ref().map(|_| state), &sigs, names)?;
        for (signature, per_lane) in device_variants(f, state) {
            let mut em = Emitter::new(&typed, state_param.as_deref());
            em.set_sites(fn_index, f.line, spec.checked);
            em.set_inline(&inline);
            em.set_per_lane(per_lane);
            em.set_leader_unsynced(!per_lane);
            em.block(&f.body);
            let _ = writeln!(out, "{signature} {{\n{}}}\n", em.finish());
        }
    }

    let mut balanced = Vec::new();
    // Static shared memory left for balanced batches after the CTA push stages.
    let stages = match group {
        WorkerKind::Cta => spec.cta_stage_capacity(state) as usize * spec.stage_item_bytes(state),
        _ => 0,
    } + if spec.multi_device {
        spread_fixed_bytes(state)
    } else {
        0
    } + park_bytes(spec, &plan, state)
        + each_chunk_bytes(spec);
    let mut budget = SHARED_LIMIT_BYTES.saturating_sub(stages + SHARED_FIXED_BYTES);
    for (fn_index, ((task, ts), planned)) in
        tasks.iter().zip(&spec.tasks).zip(&plan.tasks).enumerate()
    {
        let fn_index = fn_index as u32;
        let attrs = task.task_attrs().expect("planned tasks are tasks");
        let state_param = sanitize(&attrs.state_param);
        let names = NameTable::with_taken(&[&state_param, "worker", OUT]);
        let typed = Checker::check(task, Some(state), &sigs, names)?;
        // The task's function on the spec's worker, and (an inline task whose spec worker is
        // not a thread) a copy on a thread worker for its pushes to run.
        let mut variants = vec![(sanitize(&task.name), ts.worker)];
        if let Some(callee) = inline.callee_of_task(&plan, fn_index as usize)
            && ts.worker != WorkerKind::Thread
        {
            variants.push((callee.to_string(), WorkerKind::Thread));
        }
        for (fn_name, worker) in variants {
            let mut em = Emitter::new(&typed, Some(&state_param));
            em.set_sites(fn_index, task.line, spec.checked);
            em.set_inline(&inline);
            let item = match item_parts(task, &typed, TUPLE_ITEM) {
                Some(parts) => {
                    for (name, ty, value) in parts {
                        em.raw(&format!("{} {name} = {value};", ty.cuda_name()));
                    }
                    TUPLE_ITEM.to_string()
                }
                None => typed.params()[0].clone(),
            };
            em.set_trailing_fence(
                crate::emit::deferred_fence(&task.body, &inline),
                trailing_fence(spec),
            );
            em.block(&task.body);
            let _ = writeln!(
                out,
                "__device__ __forceinline__ void {fn_name}({} {item}, const {}& {state_param}, const {}& worker, atos_Out& {OUT}) {{\n{}}}\n",
                task.item_ty().cuda_name(),
                state.name,
                worker_type(worker),
                em.finish()
            );
        }
        let is_balanced = matches!(planned.source, Source::Queue { .. })
            && runs_balanced(task, &typed, ts, spec, &mut budget);
        if is_balanced {
            emit_batch_fn(
                &mut out,
                task,
                fn_index,
                &typed,
                state,
                &state_param,
                spec,
                ts,
                &inline,
            );
        }
        balanced.push(is_balanced);
    }

    emit_kernel(&mut out, tasks, &plan, state, spec, &balanced, &inline);
    Ok(out)
}

/// The inline tasks this unit runs at their pushes: persistent kernels only (a discrete or
/// bulk-synchronous launch runs what the last one pushed, so its items stay queued).
fn inline_calls(tasks: &[&FnIr], plan: &Plan, state: &StateDesc, spec: &KernelSpec) -> InlineCalls {
    let mut calls = Vec::new();
    if spec.strategy == Strategy::Persistent {
        for (i, (task, planned)) in tasks.iter().zip(&plan.tasks).enumerate() {
            if let (true, Source::Queue { field, .. }) = (planned.inline, &planned.source) {
                let name = sanitize(&task.name);
                let callee = match spec.tasks[i].worker {
                    WorkerKind::Thread => name,
                    _ => format!("{name}__inline"),
                };
                calls.push((state.fields[*field].name.clone(), callee));
            }
        }
    }
    let offers = if spec.multi_device {
        plan.offers.clone()
    } else {
        Vec::new()
    };
    InlineCalls {
        calls,
        spread: spec.multi_device,
        offers,
        held: !spec.multi_device && spec.group() == WorkerKind::Thread && defers_group(spec),
    }
}

/// Items one thread holds of its worker's batch.
pub(crate) fn held_per_thread(spec: &KernelSpec, ts: &TaskSpec) -> u32 {
    ts.fetch.div_ceil(spec.worker_threads(ts.worker))
}

pub(crate) fn worker_type(kind: WorkerKind) -> &'static str {
    match kind {
        WorkerKind::Thread => "atos::ThreadWorker",
        WorkerKind::Warp => "atos::WarpWorker",
        WorkerKind::Cta => "atos::CtaWorker",
    }
}

/// The push channel type of the ring `id` (a runtime queue index) holding `elem`s: staged in
/// shared memory for CTA groups, held per thread for thread groups whose tasks defer a fence
/// (`held`, [`defers_group`]), pushed at once otherwise.
fn ring_pusher_type(
    spec: &KernelSpec,
    state: &StateDesc,
    group: WorkerKind,
    held: bool,
    id: usize,
    elem: &ElemTy,
) -> String {
    let t = elem.cuda_name();
    match group {
        WorkerKind::Cta => format!(
            "atos::StagedPusher<{t}, {}, {id}>",
            spec.cta_stage_capacity(state)
        ),
        WorkerKind::Thread if held => format!("atos::HeldPusher<{t}, {THREAD_HOLD}>"),
        _ => format!("atos::DirectPusher<{t}>"),
    }
}

/// Static shared memory a spread unit adds to the fixed allocations: the remote-access count
/// and, per queue, the remote stage flush's per-destination count, base and flag
/// (`atos::RemoteStage::flush`, compiled once for the receive rings and once for the
/// outboxes). The `Mesh` is in constant memory.
fn spread_fixed_bytes(state: &StateDesc) -> usize {
    use crate::layout::mesh::MAX_DEVICES;
    8 + state.queues().count() * 2 * MAX_DEVICES * (4 + 8 + 4)
}

/// A CTA group's stage for the items of queue `id` that other devices own (spread units).
fn remote_stage_type(spec: &KernelSpec, state: &StateDesc, id: usize, elem: &ElemTy) -> String {
    format!(
        "atos::RemoteStage<{}, {}, {id}>",
        elem.cuda_name(),
        spec.cta_stage_capacity(state)
    )
}

/// The queue fields with the queue index of their (near) ring (`plan::queue_rings`).
fn queue_fields_indexed(state: &StateDesc) -> Vec<(usize, &FieldDesc)> {
    queue_rings(state)
        .into_iter()
        .map(|r| (r.near, &state.fields[r.field]))
        .collect()
}

/// Items a group parks of its own pushes to priority queue `f`'s next ring (`atos::Park`: a batch
/// of the task that pops the queue), when it parks: one-GPU persistent units of CTA groups that
/// keep their pushes and park ([`KernelSpec::park`]), for a queue one of the unit's tasks pops.
fn park_items(spec: &KernelSpec, plan: &Plan, state: &StateDesc, f: &FieldDesc) -> Option<u32> {
    if !spec.keep
        || !spec.park
        || spec.strategy != Strategy::Persistent
        || spec.multi_device
        || spec.group() != WorkerKind::Cta
        || f.far_elem().is_none()
    {
        return None;
    }
    plan.tasks
        .iter()
        .zip(&spec.tasks)
        .find_map(|(planned, ts)| match planned.source {
            Source::Queue { field, .. } if std::ptr::eq(&state.fields[field], f) => {
                Some(ts.fetch * (spec.block_size / spec.worker_threads(ts.worker)))
            }
            _ => None,
        })
}

/// Shared bytes the unit's parks take (`atos::Park`: the items, a count and an epoch).
fn park_bytes(spec: &KernelSpec, plan: &Plan, state: &StateDesc) -> usize {
    state
        .queues()
        .filter_map(|f| {
            park_items(spec, plan, state, f).map(|n| n as usize * f.elem.size_bytes() + 16)
        })
        .sum()
}

/// The `atos::Park` type of priority queue `f` (its next ring is queue `id + 2`), or none.
fn park_type(f: &FieldDesc, id: usize, park: Option<u32>) -> Option<String> {
    park.map(|n| format!("atos::Park<{}, {n}, {}>", f.elem.cuda_name(), id + 2))
}

/// The push channel type of queue field `f`, whose ring (near ring) is queue `id`; `park` from
/// [`park_items`].
fn pusher_type(
    spec: &KernelSpec,
    state: &StateDesc,
    group: WorkerKind,
    held: bool,
    id: usize,
    f: &FieldDesc,
    park: Option<u32>,
) -> String {
    let near = ring_pusher_type(spec, state, group, held, id, &f.elem);
    if spec.multi_device {
        let t = f.elem.cuda_name();
        return match group {
            WorkerKind::Cta => format!(
                "atos::RoutedPusher<{t}, {near}, {}>",
                remote_stage_type(spec, state, id, &f.elem)
            ),
            _ => format!("atos::RoutedPusher<{t}, {near}>"),
        };
    }
    match f.far_elem() {
        Some(far) => format!(
            "atos::PriorityPusher<{}, {near}, {}, {}{}>",
            keys_struct_name(f),
            ring_pusher_type(spec, state, group, held, id + 1, &far),
            ring_pusher_type(spec, state, group, held, id + 2, &f.elem),
            park_type(f, id, park)
                .map(|t| format!(", {t}"))
                .unwrap_or_default()
        ),
        None => near,
    }
}

/// The C++ expression that makes field `n`'s channel in the kernel.
fn pusher_init(
    spec: &KernelSpec,
    state: &StateDesc,
    group: WorkerKind,
    id: usize,
    f: &FieldDesc,
    park: Option<u32>,
) -> String {
    let n = sanitize(&f.name);
    let ring = |id: usize, elem: &ElemTy, at: &str| match group {
        WorkerKind::Cta => format!(
            "{}::make(state.{at}, ctl)",
            ring_pusher_type(spec, state, group, false, id, elem)
        ),
        _ => format!("{{state.{at}, ctl}}"),
    };
    if spec.multi_device {
        let stage = match group {
            WorkerKind::Cta => format!("{}::make()", remote_stage_type(spec, state, id, &f.elem)),
            _ => "{}".to_string(),
        };
        return format!(
            "{{{}, state.{n}_peers, state.{n}_outbox, ctl, {stage}}}",
            ring(id, &f.elem, &n)
        );
    }
    match f.far_elem() {
        Some(far) => format!(
            "{{{}, {}, {}, state.{n}.pc{}}}",
            ring(id, &f.elem, &format!("{n}.near")),
            ring(id + 1, &far, &format!("{n}.far")),
            ring(id + 2, &f.elem, &format!("{n}.next")),
            park_type(f, id, park)
                .map(|t| format!(", {t}::make()"))
                .unwrap_or_default()
        ),
        None => ring(id, &f.elem, &n),
    }
}

/// The generated struct naming a priority queue's item, far item and key types.
fn keys_struct_name(f: &FieldDesc) -> String {
    format!("atos_keys_{}", sanitize(&f.name))
}

/// One struct per priority queue: its types and the conversions between an item and a far
/// item (the item's parts, then the key).
fn emit_key_structs(out: &mut String, state: &StateDesc) {
    for f in state.queues() {
        let (Some(key), Some(far)) = (f.kind.key(), f.far_elem()) else {
            continue;
        };
        let (item, far_t, k) = (f.elem.cuda_name(), far.cuda_name(), key.cuda_name());
        let n = f.elem.parts().len();
        let (to_far, to_item) = match &f.elem {
            ElemTy::Scalar(_) => ("r.f0 = i;".to_string(), "return f.f0;".to_string()),
            ElemTy::Tuple(_) => {
                let to: Vec<String> = (0..n).map(|j| format!("r.f{j} = i.f{j};")).collect();
                let back: Vec<String> = (0..n).map(|j| format!("r.f{j} = f.f{j};")).collect();
                (
                    to.join(" "),
                    format!("{item} r; {} return r;", back.join(" ")),
                )
            }
        };
        let _ = writeln!(
            out,
            "struct {} {{\n    typedef {item} Item;\n    typedef {far_t} Far;\n    typedef {k} Key;\n    static __device__ __forceinline__ Far keyed(Item i, Key k) {{ Far r; {to_far} r.f{n} = k; return r; }}\n    static __device__ __forceinline__ Item item(const Far& f) {{ {to_item} }}\n    static __device__ __forceinline__ Key key(const Far& f) {{ return f.f{n}; }}\n}};\n",
            keys_struct_name(f)
        );
    }
}

/// Whether a task of the unit leaves its fence to the group's batch end
/// ([`crate::emit::deferred_fence`]); `atos_Out` then carries the group's debt (`FenceDebt`, or a
/// thread group's `ThreadFenceDebt`).
fn defers_fence(tasks: &[&FnIr], spec: &KernelSpec, inline: &InlineCalls) -> bool {
    trailing_fence(spec) == TrailingFence::Deferred
        && tasks
            .iter()
            .any(|t| crate::emit::deferred_fence(&t.body, inline).is_some())
}

/// What a unit does with a task's fence that only pushes follow
/// ([`crate::emit::deferred_fence`]; colouring's `assign` ends with one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TrailingFence {
    /// Fenced where it is written: warp groups, and discrete thread groups.
    InPlace,
    /// Owed, and settled by the group once per batch before it keeps or publishes the batch's
    /// pushes ([`defers_group`]).
    Deferred,
    /// Not emitted: bulk-synchronous units. The fence orders the task's accesses before its
    /// pushes' items run, and under `Strategy::Bsp` those run in a later level, a later launch
    /// that the host starts after this one has finished, which sees every store of this one. In
    /// its own level nothing follows the fence but the pushes, whose items no task of the level
    /// reads, so it orders nothing anyone can observe. (Discrete launches keep it: a queue's next
    /// window may be launched while the launch that pushed into it still runs.)
    Elided,
}

/// The unit's [`TrailingFence`].
pub(crate) fn trailing_fence(spec: &KernelSpec) -> TrailingFence {
    if spec.strategy == Strategy::Bsp {
        TrailingFence::Elided
    } else if defers_group(spec) {
        TrailingFence::Deferred
    } else {
        TrailingFence::InPlace
    }
}

/// Whether the unit's groups settle a deferred fence once per batch: CTA groups (their staged
/// pushes wait for the batch end anyway), and persistent thread groups (each thread holds its
/// fenced pushes, `atos::HeldPusher`, up to [`THREAD_HOLD`]). On one H100, held pushes took
/// persistent colouring on thread workers from 10.2 to 8.3 ms on grid:4096x4096 and 8-25% off on
/// luxembourg_osm and delaunay_n16, but made the discrete and bulk-synchronous forms up to 13%
/// slower on those two (means of two rounds; `docs/results/2026-12-06d-gather-loops-h100.md`,
/// calls 3 and 4). Published in one reservation per flush (`push_lanes_many`), the hold took
/// another 1.4x off the persistent form on those two at fetch 64; in the discrete and
/// bulk-synchronous forms it was then up to 26% faster at fetch 64 (the grid's BSP unchanged)
/// but between 16% slower and 18% faster at fetch 8 (with 6 blocks per SM against 8), their
/// best fetch there, so the discrete form still fences per task
/// (`docs/results/2026-12-06e-thread-grids-h100.md`, call 1); bulk-synchronous units emit no
/// such trailing fence ([`TrailingFence::Elided`], which [`trailing_fence`] decides first; any
/// other `atos::fence()` stays).
/// A warp group's pushes are its leader's and go out at once; its tasks fence as written.
fn defers_group(spec: &KernelSpec) -> bool {
    match spec.group() {
        WorkerKind::Cta => true,
        WorkerKind::Thread => spec.strategy == Strategy::Persistent,
        WorkerKind::Warp => false,
    }
}

/// Whether the unit's `atos_Out` holds inline runs ([`InlineCalls::held`]): a persistent
/// thread-group unit on one device with an inline task, whose tasks defer a fence.
fn holds_inline_runs(inline: &InlineCalls, defers: bool) -> bool {
    defers && inline.held && !inline.calls.is_empty()
}

/// `atos_Out`'s hold and run functions of each inline queue, defined after the inline tasks'
/// prototypes: a push after a deferred fence holds its item (a full hold fences and runs what
/// it holds first); `flush`, after settling the fence, runs the held items' tasks, each counted
/// as a task run at its push (`count_inlined`).
fn emit_held_runs(out: &mut String, state: &StateDesc, inline: &InlineCalls) {
    for (field, callee) in &inline.calls {
        let [member, hold, run] = InlineCalls::hold_names(field);
        let t = queue_item_type(state, field);
        let count = InlineCalls::counter(field);
        let _ = writeln!(
            out,
            "__device__ __forceinline__ void atos_Out::{hold}({t} item) {{
    if ({member}.full()) {{
        atos::fence_seq_cst();
        {run}();
    }}
    {member}.add(item);
}}
__device__ __forceinline__ void atos_Out::{run}() {{
    {member}.run([&]({t} item) {{ {count} += 1; ::{callee}(item, *st, atos::ThreadWorker::make(), *this); }});
}}
"
        );
    }
}

/// The CUDA type of the items of the queue field `field`.
fn queue_item_type(state: &StateDesc, field: &str) -> String {
    state
        .fields
        .iter()
        .find(|f| f.name == field)
        .expect("an inline task's queue is a state field")
        .elem
        .cuda_name()
}

/// How many fenced pushes a thread of a deferring thread-group unit holds before it fences and
/// publishes them (`atos::HeldPusher`), in its own (local) memory, per queue: 8 measured 3-6%
/// faster than 16 on the persistent runs above on the grid and delaunay_n16 (call 4, when each
/// held item was pushed on its own). At most 15: `push_lanes_many` finds each lane's offset
/// with four ballots.
pub const THREAD_HOLD: u32 = 8;

/// The type of a deferring unit's fence debt for its groups.
fn debt_type(group: WorkerKind) -> &'static str {
    match group {
        WorkerKind::Thread => "atos::ThreadFenceDebt",
        _ => "atos::FenceDebt",
    }
}

/// `atos_deliver`: delivers position `p` of this device's combine copies (the fields the
/// program accumulates into, end to end, each only while the running program has its copy: the
/// host's `deliver_len` counts the same ones). Used by the idle sweep, the batches' drains and
/// the kernel's end.
fn emit_deliver_fn(out: &mut String, state: &StateDesc, combines: &[String]) {
    let _ = writeln!(
        out,
        "__device__ __forceinline__ bool atos_deliver(const {}& state, atos::u64 p) {{",
        state.name
    );
    for name in combines {
        let n = sanitize(name);
        let _ = writeln!(
            out,
            "    if (state.{n}.t.combine != 0) {{\n        if (p < state.{n}_len) return atos::deliver_combined(state.{n}, p);\n        p -= state.{n}_len;\n    }}"
        );
    }
    out.push_str("    return false;\n}\n\n");
}

/// `atos_Out`: one push channel per queue field, named after it; `settle` makes the fence a
/// deferring task owes before the batch's pushes are kept or published (`flush` starts with it).
fn emit_out_struct(
    out: &mut String,
    state: &StateDesc,
    plan: &Plan,
    spec: &KernelSpec,
    inline: &InlineCalls,
    defers: bool,
    delivers: bool,
) {
    let group = spec.group();
    out.push_str("struct atos_Out {\n");
    let mut flushes = vec!["settle(g);".to_string()];
    for (id, f) in queue_fields_indexed(state) {
        let n = sanitize(&f.name);
        let ty = pusher_type(
            spec,
            state,
            group,
            defers,
            id,
            f,
            park_items(spec, plan, state, f),
        );
        let _ = writeln!(out, "    {ty} {n};");
        flushes.push(format!("{n}.flush(g);"));
    }
    if defers {
        let _ = writeln!(out, "    {} debt;", debt_type(group));
    }
    for (field, _) in &inline.calls {
        let _ = writeln!(
            out,
            "    atos::u64 {} = 0;  // items of `{field}` this thread's pushes ran at once",
            InlineCalls::counter(field)
        );
    }
    let holds = holds_inline_runs(inline, defers);
    let mut runs = Vec::new();
    if holds {
        for (field, _) in &inline.calls {
            let [member, hold, run] = InlineCalls::hold_names(field);
            let t = queue_item_type(state, field);
            let _ = writeln!(
                out,
                "    atos::InlineHold<{t}, {THREAD_HOLD}> {member};  // `{field}` items whose task runs after the batch's fence
    __device__ void {hold}({t} item);
    __device__ void {run}();"
            );
            runs.push(format!("{run}();"));
        }
    }
    if !runs.is_empty() {
        // The held tasks run after the fence they wait for; what they push with a fence owed is
        // settled again before the channels publish.
        runs.push("settle(g);".into());
        flushes.splice(1..1, runs);
    }
    let settle = if defers {
        "const G& g) { debt.settle(g); }"
    } else {
        "const G&) {}"
    };
    // After each batch, before it counts done: a spread unit that combines drains its device's
    // combine copies (mesh.cuh, `drain_combined`); `st` is set by the kernel.
    if delivers || holds {
        let _ = writeln!(out, "    const {}* st;", state.name);
    }
    let drain = if delivers {
        "const G& g, uint32_t items) { atos::drain_combined(g, items, [&](atos::u64 p) { return atos_deliver(*st, p); }); }"
    } else {
        "const G&, uint32_t) {}"
    };
    let _ = writeln!(
        out,
        "    template <class G> __device__ void settle({settle}\n    template <class G> __device__ void drain({drain}\n    template <class G> __device__ void flush(const G& g) {{ {} }}\n}};\n",
        flushes.join(" ")
    );
}

fn emit_kernel(
    out: &mut String,
    tasks: &[&FnIr],
    plan: &Plan,
    state: &StateDesc,
    spec: &KernelSpec,
    balanced: &[bool],
    inline: &InlineCalls,
) {
    let group = spec.group();
    let queues: Vec<&FieldDesc> = state.queues().collect();
    // A spread unit's `Mesh` is no parameter: its host copies it into the module's constant
    // memory (`atos_mesh`, mesh.cuh) before each launch.
    let window_param = if spec.strategy.windowed() {
        ", const atos::Window window"
    } else {
        ""
    };
    let bounds = match spec.launch_min_blocks(BoundTraits::of(plan)) {
        0 => spec.block_size.to_string(),
        // Under NVSHMEM calls (ATOS_REMOTE_CALLS), nvJitLink's LTO leaves the persistent
        // loop's functions out of line, compiled with no register bound, and a kernel bound
        // below them fails to link: that unit takes no blocks-per-SM bound of atos's choosing
        // (one given by hand stays, and may fail to link).
        blocks if spec.multi_device && spec.min_blocks == 0 => format!(
            "{}{}",
            spec.block_size,
            format_args!(" ATOS_SPREAD_MIN_BLOCKS({blocks})")
        ),
        blocks => format!("{}, {blocks}", spec.block_size),
    };
    if spec.multi_device && bounds.contains("ATOS_SPREAD_MIN_BLOCKS") {
        out.push_str(
            "#if ATOS_REMOTE_CALLS
#define ATOS_SPREAD_MIN_BLOCKS(n)
#else
#define ATOS_SPREAD_MIN_BLOCKS(n) , n
#endif
",
        );
    }
    let _ = writeln!(
        out,
        "extern \"C\" __global__ void __launch_bounds__({bounds}) {}(const {} state, atos::Control* ctl{window_param}) {{",
        spec.kernel_name(&tasks[0].name),
        state.name
    );
    out.push_str("    atos::set_fault_control(ctl);\n");
    if spec.multi_device {
        out.push_str("    atos::start_mesh();\n");
    }
    let _ = writeln!(
        out,
        "    const auto group = {}::make();",
        worker_type(group)
    );
    let mut channels: Vec<String> = queue_fields_indexed(state)
        .into_iter()
        .map(|(id, f)| pusher_init(spec, state, group, id, f, park_items(spec, plan, state, f)))
        .collect();
    if defers_fence(tasks, spec, inline) {
        channels.push(format!("{}::make()", debt_type(group)));
    }
    let _ = writeln!(out, "    atos_Out out = {{{}}};", channels.join(", "));
    // (runtime queue index, server): a windowed launch picks its server by position.
    let mut servers: Vec<(usize, String)> = Vec::new();
    if state.queues().any(|f| f.kind.key().is_some()) {
        out.push_str("    const auto pass_worker = atos::ThreadWorker::make();\n");
    }
    // Spread over several devices: delivers position `p` of this device's combine copies
    // (`atos_deliver`, emitted with the unit's structs).
    let delivers = spec.multi_device && !plan.combines.is_empty();
    // `atos_Out::st`: the state for the held inline runs and for the drains of a spread unit
    // that combines (emit_out_struct declares it for either).
    if delivers || holds_inline_runs(inline, defers_fence(tasks, spec, inline)) {
        out.push_str("    out.st = &state;\n");
    }
    if delivers {
        out.push_str(
            "    const auto deliver = [&](atos::u64 p) -> bool { return atos_deliver(state, p); };\n",
        );
    }
    let mut has_idle = false;
    for (i, ((task, ts), planned)) in tasks.iter().zip(&spec.tasks).zip(&plan.tasks).enumerate() {
        let _ = writeln!(
            out,
            "    const auto worker{i} = {}::make();",
            worker_type(ts.worker)
        );
        let item = task.item_ty().cuda_name();
        let name = sanitize(&task.name);
        match &planned.source {
            Source::Queue { field, queue } => {
                let held = held_per_thread(spec, ts);
                let mut batch = if balanced[i] && task_shares(spec, ts, task) {
                    // Returns whether it ran anything; with no items, its server's idle group
                    // helps with a chunk another posted (docs/runtime.md "Shared ranges").
                    format!(
                        "[&](const {item} (&held)[{held}], uint32_t count) {{ return {}(held, count, state, worker{i}, out, &{}); }}",
                        batch_fn_name(task),
                        board_name(task)
                    )
                } else if balanced[i] {
                    format!(
                        "[&](const {item} (&held)[{held}], uint32_t count) {{ {}(held, count, state, worker{i}, out); }}",
                        batch_fn_name(task)
                    )
                } else {
                    format!(
                        "atos::each_item(worker{i}, [&]({item} item) {{ {name}(item, state, worker{i}, out); }})"
                    )
                };
                if balanced[i] && batch_pushes_first(task) {
                    batch = format!("atos::pushes_first({batch})");
                }
                let fd = &state.fields[*field];
                let name = sanitize(&fd.name);
                let prio = fd.kind.key().is_some();
                let (ring, channel) = if prio {
                    (format!("{name}.near"), format!("{name}.near"))
                } else {
                    (name.clone(), name.clone())
                };
                let keeps =
                    spec.keep && spec.strategy == Strategy::Persistent && group == WorkerKind::Cta;
                let _ = if keeps {
                    writeln!(
                        out,
                        "    auto serve{i} = atos::queue_server_keeping<{}, {held}>(state.{ring}, worker{i}, {batch}, out.{channel});",
                        ts.fetch
                    )
                } else {
                    writeln!(
                        out,
                        "    auto serve{i} = atos::queue_server<{}, {held}>(state.{ring}, worker{i}, {batch});",
                        ts.fetch
                    )
                };
                if prio {
                    let _ = writeln!(
                        out,
                        "    auto pass{i} = atos::queue_server<{PASS_FETCH}, {PASS_FETCH}>(state.{name}.far, pass_worker, atos::split_batch(state.{name}, out.{name}));"
                    );
                    if spec.strategy.windowed() {
                        // The next ring stays empty (band_end = threshold): no server.
                        servers.push((*queue, format!("serve{i}")));
                        servers.push((*queue + 1, format!("pass{i}")));
                    } else {
                        // The near ring's server also runs the next ring's open items.
                        let _ = writeln!(
                            out,
                            "    auto prio{i} = atos::priority_server(state.{name}, serve{i}, pass{i}, {park});",
                            park = if park_items(spec, plan, state, fd).is_some() {
                                format!("&out.{name}.park")
                            } else {
                                "(const atos::NoPark*)nullptr".to_string()
                            }
                        );
                        servers.push((*queue, format!("prio{i}")));
                    }
                } else {
                    servers.push((*queue, format!("serve{i}")));
                }
                if spec.multi_device {
                    // Items peers pushed to this device, run by the same task.
                    let _ = writeln!(
                        out,
                        "    auto receive{i} = atos::queue_server<{}, {held}>(state.{name}_recv, worker{i}, {batch});",
                        ts.fetch
                    );
                    servers.push((*queue, format!("receive{i}")));
                }
            }
            Source::Idle { range_field } => {
                let f = &state.fields[*range_field];
                let range = match f.kind {
                    FieldKind::Scalar => format!("(atos::u64)state.{}", sanitize(&f.name)),
                    _ => format!("state.{}_len", sanitize(&f.name)),
                };
                let deliver = if delivers { ", deliver" } else { "" };
                let _ = writeln!(
                    out,
                    "    auto idle = atos::idle_server<{}, {item}>({range}, worker{i}, [&]({item} item) {{ {name}(item, state, worker{i}, out); }}{deliver});",
                    ts.fetch
                );
                has_idle = true;
            }
        }
    }
    if !has_idle {
        out.push_str("    atos::NoIdle idle;\n");
    }
    // Every queue a server, in queue index order (one no task pops serves nothing).
    let rings = queue_rings(state).last().map_or(0, |r| r.end());
    let servers: Vec<String> = (0..rings)
        .flat_map(|q| {
            let mine: Vec<String> = servers
                .iter()
                .filter(|(at, _)| *at == q)
                .map(|(_, s)| s.clone())
                .collect();
            if mine.is_empty() {
                vec!["no_server".to_string()]
            } else {
                mine
            }
        })
        .filter(|s| spec.strategy.windowed() || s != "no_server")
        .collect();
    if servers.iter().any(|s| s == "no_server") {
        out.push_str("    atos::NoServer no_server;\n");
    }
    let args = if spec.strategy.windowed() {
        let mut args = vec!["group", "out", "window", "idle"];
        args.extend(servers.iter().map(String::as_str));
        format!("atos::run_window({})", args.join(", "))
    } else if spec.multi_device {
        out.push_str("    const atos::MeshQueues queues;\n");
        // Aggregated runs: each queue's outboxes forwarded to their owners by whole groups,
        // up to `forward_items_per_thread` items per thread at a time.
        let k = forward_items_per_thread(group, spec.block_size);
        let mut forwards = Vec::new();
        for (q, f) in state.queues().enumerate() {
            let n = sanitize(&f.name);
            let _ = writeln!(
                out,
                "    const auto forward{q} = atos::forward_server<{k}>(state.{n}_outbox, state.{n}_peers, ctl);"
            );
            forwards.push(format!("forward{q}"));
        }
        let mut args = vec!["group", "ctl", "out", "queues", "idle"];
        args.extend(servers.iter().map(String::as_str));
        args.extend(forwards.iter().map(String::as_str));
        format!("atos::run_persistent({})", args.join(", "))
    } else {
        let counters: Vec<String> = queues
            .iter()
            .flat_map(|f| {
                let n = sanitize(&f.name);
                match f.kind.key() {
                    Some(_) => vec![
                        format!("state.{n}.near.counters"),
                        format!("state.{n}.far.counters"),
                        format!("state.{n}.next.counters"),
                    ],
                    None => vec![format!("state.{n}.counters")],
                }
            })
            .collect();
        let _ = writeln!(
            out,
            "    const atos::QueueSet<{}> queues = {{{{{}}}}};",
            counters.len(),
            counters.join(", ")
        );
        let mut args = vec!["group", "ctl", "out", "queues", "idle"];
        args.extend(servers.iter().map(String::as_str));
        format!("atos::run_persistent({})", args.join(", "))
    };
    let _ = writeln!(out, "    {args};");
    for (field, _) in &inline.calls {
        let _ = writeln!(
            out,
            "    atos::count_inlined(state.{}.counters, out.{});",
            sanitize(field),
            InlineCalls::counter(field)
        );
    }
    if delivers {
        out.push_str("    atos::deliver_rest(deliver);\n");
    }
    if spec.multi_device {
        out.push_str("    atos::count_remote_ops();\n");
    }
    out.push_str("}\n");
}

/// The C++ name of a tuple item parameter (a name no Rust binding is given).
pub(crate) const TUPLE_ITEM: &str = "atos_item";

/// A tuple-item task's parts as locals: C++ name, type and value read from the tuple `item`
/// (`None` for a scalar item, which is the parameter itself).
pub(crate) fn item_parts(
    task: &FnIr,
    typed: &Typed,
    item: &str,
) -> Option<Vec<(String, Scalar, String)>> {
    if !task.task_attrs().is_some_and(|a| a.tuple_item) {
        return None;
    }
    Some(
        task.params
            .iter()
            .zip(typed.params())
            .enumerate()
            .map(|(k, (p, name))| (name.clone(), p.ty, format!("{item}.f{k}")))
            .collect(),
    )
}

/// One struct per tuple item type the state's queues hold (see `item.rs`).
fn emit_tuple_structs(out: &mut String, state: &StateDesc) {
    let mut seen: Vec<ElemTy> = Vec::new();
    for elem in state
        .queues()
        .flat_map(|q| std::iter::once(q.elem.clone()).chain(q.far_elem()))
    {
        if seen.contains(&elem) {
            continue;
        }
        seen.push(elem.clone());
        if let Some(def) = elem.cuda_struct() {
            out.push_str(&def);
            out.push('\n');
        }
    }
}

fn emit_state_struct(out: &mut String, state: &StateDesc, multi_device: bool) {
    let _ = writeln!(out, "struct {} {{", state.name);
    for f in &state.fields {
        let t = f.elem.cuda_name();
        let n = sanitize(&f.name);
        match f.kind {
            FieldKind::Slice => {
                let _ = writeln!(
                    out,
                    "    const {t}* __restrict__ {n};\n    uint64_t {n}_len;"
                );
            }
            FieldKind::Atomics if multi_device => {
                let _ = writeln!(out, "    atos::Spread<{t}> {n};\n    uint64_t {n}_len;");
            }
            FieldKind::Atomics => {
                let _ = writeln!(out, "    {t}* {n};\n    uint64_t {n}_len;");
            }
            FieldKind::Queue => {
                let _ = writeln!(out, "    atos::QueueRef<{t}> {n};");
            }
            FieldKind::PriorityQueue(_) => {
                let _ = writeln!(out, "    atos::PriorityRef<{}> {n};", keys_struct_name(f));
            }
            FieldKind::Scalar => {
                let _ = writeln!(out, "    alignas(8) {t} {n};");
            }
        }
    }
    if multi_device {
        // Each queue's receive ring on this device, and every device's receive ring (a table
        // on this device) for routed pushes.
        for f in state.queues() {
            let (t, n) = (f.elem.cuda_name(), sanitize(&f.name));
            let _ = writeln!(
                out,
                "    atos::QueueRef<{t}, true> {n}_recv;\n    const atos::QueueRef<{t}, true>* {n}_peers;\n    const atos::QueueRef<{t}>* {n}_outbox;"
            );
        }
    }
    let size = state_size(state)
        + if multi_device {
            mesh_state_extra(state)
        } else {
            0
        };
    let _ = writeln!(
        out,
        "}};\nstatic_assert(sizeof({}) == {size}, \"state layout must match the host packing\");\n",
        state.name,
    );
}

/// Bytes a multi-device unit's state struct adds to the one-GPU layout: per `Atomics` field, its
/// parts table by value (`atos::SpreadParts`, `layout::spread_parts`) where one GPU has a
/// pointer; after the fields, per queue field, its receive ring (a `QueueRef`), the address of
/// the table of every device's receive ring, and the address of the table of this device's
/// outboxes (aggregated runs; by destination).
pub fn mesh_state_extra(state: &StateDesc) -> usize {
    state
        .fields
        .iter()
        .map(|f| spread_field_extra(f.kind))
        .sum()
}

/// What one field adds to a spread unit's state ([`mesh_state_extra`]): an `Atomics` field's
/// parts table in place of its pointer; a queue's receive ring and two table addresses.
fn spread_field_extra(kind: FieldKind) -> usize {
    match kind {
        FieldKind::Atomics => crate::layout::spread_parts::WORDS * 8 - 8,
        kind if kind.is_queue() => field_size(FieldKind::Queue) + 16,
        _ => 0,
    }
}

/// Items each thread of a group carries in one forward of an outbox (aggregated spread runs):
/// about 1024 items per forward for a CTA group, 256 for a warp and 8 for a thread.
fn forward_items_per_thread(group: WorkerKind, block_size: u32) -> u32 {
    match group {
        WorkerKind::Cta => (1024 / block_size.max(1)).max(1),
        WorkerKind::Warp | WorkerKind::Thread => 8,
    }
}

/// What a program spread over several devices cannot do yet, refused with the reason: the one
/// check both executors run (the GPU when generating the unit, the CPU executor before a
/// simulated spread run).
pub fn check_spread(strategy: Strategy, state: &StateDesc) -> Result<(), CodegenError> {
    if strategy != Strategy::Persistent {
        return Err(CodegenError::Spec(format!(
            "a program spread over several devices runs persistent only (asked: {}); run discrete and bulk-synchronous strategies on one device",
            strategy.name()
        )));
    }
    for f in state.queues() {
        if f.kind.key().is_some() {
            return Err(CodegenError::Spec(format!(
                "queue `{}` is a priority queue: programs spread over several devices take plain queues only for now (a threshold shared by every device is not built yet); run it on one device",
                f.name
            )));
        }
        let first = f.elem.parts()[0];
        if !first.is_int() {
            return Err(CodegenError::Spec(format!(
                "queue `{}` holds `{}` items: a program spread over several devices routes each item to the device that owns its first part, which must be an integer index (put the vertex first)",
                f.name,
                f.elem.rust_name()
            )));
        }
    }
    Ok(())
}

/// The signatures a device function is emitted with, and whether each runs per lane: one for a
/// scalar function; for one taking the state, a variant for uniform callers and one for lanes
/// (templates over the worker type, as each task's worker differs).
fn device_variants(f: &FnIr, state: &StateDesc) -> Vec<(String, bool)> {
    let Some(sp) = &f.state else {
        return vec![(format!("__device__ {}", device_signature(f)), false)];
    };
    let ret = f.ret.map(|r| r.cuda_name()).unwrap_or("void");
    let mut params = vec![
        format!("const {}& {}", state.name, sanitize(&sp.name)),
        "const W& worker".to_string(),
        format!("atos_Out& {OUT}"),
    ];
    params.extend(
        f.params
            .iter()
            .map(|p| format!("{} {}", p.ty.cuda_name(), sanitize(&p.name))),
    );
    [(STATE_FN_UNIFORM, false), (STATE_FN_DIRECT, true)]
        .into_iter()
        .map(|(suffix, per_lane)| {
            (
                format!(
                    "template <class W> __device__ {ret} {}{suffix}({})",
                    sanitize(&f.name),
                    params.join(", ")
                ),
                per_lane,
            )
        })
        .collect()
}

fn device_signature(f: &FnIr) -> String {
    let params: Vec<String> = f
        .params
        .iter()
        .map(|p| format!("{} {}", p.ty.cuda_name(), sanitize(&p.name)))
        .collect();
    format!(
        "{} {}({})",
        f.ret.map(|r| r.cuda_name()).unwrap_or("void"),
        sanitize(&f.name),
        params.join(", ")
    )
}

/// Device functions reachable from `tasks`, each once, in first-reached order.
pub(crate) fn order_device_fns(tasks: &[&FnIr], all: &[FnIr]) -> Result<Vec<FnIr>, CodegenError> {
    let all: Vec<&FnIr> = all.iter().collect();
    match reachable_device_fns(tasks, &all) {
        (_, Some(name)) => Err(CodegenError::MissingDeviceFn { name }),
        (found, None) => Ok(found.into_iter().cloned().collect()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLAIN: BoundTraits = BoundTraits {
        priority_queue: false,
        combines: false,
    };
    const PRIORITY: BoundTraits = BoundTraits {
        priority_queue: true,
        combines: false,
    };
    const COMBINES: BoundTraits = BoundTraits {
        priority_queue: false,
        combines: true,
    };

    fn many_fields(kind: FieldKind, n: usize) -> StateDesc {
        StateDesc {
            name: "Big".into(),
            fields: (0..n)
                .map(|i| FieldDesc {
                    name: format!("f{i}"),
                    kind,
                    elem: ElemTy::Scalar(Scalar::U32),
                })
                .collect(),
        }
    }

    /// A state must fit in a kernel's parameters with room for the others: the limit is
    /// reached at the byte, and a spread program's `Atomics` fields (their parts table by
    /// value) reach it six times sooner than one GPU's.
    #[test]
    fn states_too_large_for_a_kernels_parameters_are_refused() {
        let fit = (KERNEL_PARAM_LIMIT - PARAMS_BESIDE_STATE) / 16;
        assert!(check_state_size(&many_fields(FieldKind::Atomics, fit), false).is_ok());
        let err = check_state_size(&many_fields(FieldKind::Atomics, fit + 1), false)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(&format!("packs to {} bytes", (fit + 1) * 16))
                && err.contains("fewer fields"),
            "{err}"
        );
        let spread = many_fields(FieldKind::Atomics, fit / 6 + 1);
        assert!(check_state_size(&spread, false).is_ok());
        let err = check_state_size(&spread, true).unwrap_err().to_string();
        assert!(
            err.contains("spread over devices") && err.contains("an `Atomics` field 96"),
            "{err}"
        );
    }

    /// Persistent units all on thread workers take at most `THREAD_PERSISTENT_BLOCKS_PER_SM`
    /// by default (at least 1); priority units, mixed workers and windowed strategies take
    /// what fits.
    #[test]
    fn persistent_thread_units_default_to_two_blocks_per_sm() {
        let spec = |workers: &[WorkerKind], strategy: Strategy| {
            let mut spec = KernelSpec::for_tasks(&[]);
            spec.tasks = workers
                .iter()
                .map(|&worker| TaskSpec { worker, fetch: 64 })
                .collect();
            spec.strategy = strategy;
            spec
        };
        use WorkerKind::{Cta, Thread, Warp};
        let threads = spec(&[Thread, Thread], Strategy::Persistent);
        assert_eq!(
            threads.default_blocks_per_sm(PLAIN, 5),
            THREAD_PERSISTENT_BLOCKS_PER_SM
        );
        assert_eq!(threads.default_blocks_per_sm(PLAIN, 1), 1);
        assert_eq!(threads.default_blocks_per_sm(PLAIN, 0), 1);
        // A priority queue, a task on warps or CTAs, or a windowed strategy: the occupancy.
        assert_eq!(threads.default_blocks_per_sm(PRIORITY, 5), 5);
        assert_eq!(
            spec(&[Thread, Warp], Strategy::Persistent).default_blocks_per_sm(PLAIN, 5),
            5
        );
        assert_eq!(
            spec(&[Cta], Strategy::Persistent).default_blocks_per_sm(PLAIN, 8),
            8
        );
        assert_eq!(
            spec(&[Thread], Strategy::Discrete).default_blocks_per_sm(PLAIN, 8),
            8
        );
        assert_eq!(
            spec(&[Thread], Strategy::Bsp).default_blocks_per_sm(PLAIN, 8),
            8
        );
        assert_eq!(
            spec(&[], Strategy::Persistent).default_blocks_per_sm(PLAIN, 0),
            1
        );
    }

    /// A given `min_blocks` wins; else one-GPU persistent units with a priority queue get a
    /// target, in whole blocks of their size, at least 1 and at most 32; else spread
    /// persistent units that combine adds get 6 blocks of 256; else units that share chunks
    /// (persistent CTA workers) get 8 blocks of 256 on one GPU, 5 spread.
    #[test]
    fn launch_min_blocks_targets_priority_and_sharing_units_only() {
        let sharing = KernelSpec::single(WorkerKind::Cta, 64, 256);
        assert!(shares(&sharing, &sharing.tasks[0]));
        assert_eq!(sharing.launch_min_blocks(PLAIN), 8);
        assert_eq!(sharing.launch_min_blocks(PRIORITY), 5);
        assert_eq!(
            sharing.clone().multi_device(true).launch_min_blocks(PLAIN),
            5
        );
        assert_eq!(sharing.clone().min_blocks(3).launch_min_blocks(PLAIN), 3);
        let warp = KernelSpec::single(WorkerKind::Warp, 64, 256);
        assert!(!shares(&warp, &warp.tasks[0]));
        assert_eq!(warp.launch_min_blocks(PLAIN), 0);
        let mut discrete = sharing.clone();
        discrete.strategy = Strategy::Discrete;
        assert!(!shares(&discrete, &discrete.tasks[0]));
        let spec = KernelSpec {
            share: false,
            ..KernelSpec::single(WorkerKind::Cta, 64, 256)
        };
        assert_eq!(spec.launch_min_blocks(PRIORITY), 5);
        assert_eq!(spec.launch_min_blocks(PLAIN), 0);
        assert_eq!(spec.clone().min_blocks(3).launch_min_blocks(PRIORITY), 3);
        assert_eq!(spec.clone().min_blocks(3).launch_min_blocks(PLAIN), 3);
        assert_eq!(
            spec.clone().multi_device(true).launch_min_blocks(PRIORITY),
            0
        );
        // A spread persistent unit that combines adds: 6 blocks of 256; not on one GPU, nor
        // windowed, nor over a given bound.
        assert_eq!(
            spec.clone().multi_device(true).launch_min_blocks(COMBINES),
            6
        );
        assert_eq!(
            spec.clone()
                .multi_device(true)
                .block(128)
                .launch_min_blocks(COMBINES),
            12
        );
        assert_eq!(spec.launch_min_blocks(COMBINES), 0);
        let mut windowed = spec.clone().multi_device(true);
        windowed.strategy = Strategy::Discrete;
        assert_eq!(windowed.launch_min_blocks(COMBINES), 0);
        assert_eq!(
            spec.clone()
                .multi_device(true)
                .min_blocks(4)
                .launch_min_blocks(COMBINES),
            4
        );
        for strategy in [Strategy::Discrete, Strategy::Bsp] {
            let mut s = spec.clone();
            s.strategy = strategy;
            assert_eq!(s.launch_min_blocks(PRIORITY), 0);
        }
        for (block, blocks) in [(32, 32), (64, 20), (128, 10), (512, 2), (1024, 1)] {
            let s = KernelSpec::single(WorkerKind::Warp, 4, block);
            assert_eq!(s.launch_min_blocks(PRIORITY), blocks, "block {block}");
            assert!(blocks * block <= 2048);
        }
    }
}
