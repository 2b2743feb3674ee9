//! The CPU executor: the same task functions on CPU threads, with the queue protocol, idle
//! sweeps and exact termination of the GPU. It is the oracle for GPU results and the fallback
//! without one.

pub mod mesh;
pub mod queue;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::AtomicUsize;
use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed, Release};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use atos_codegen::layout::{IDLE_SWEEP_SHIFT, control as ctl, status};
use atos_codegen::{Plan, PriorityPlan, Strategy};

use crate::elem::ItemBits;
use crate::error::RunError;
use crate::placement::Placement;
use crate::program::{
    QueueField, Seeds, check_seed_room, field_values, idle_range, plan_of, queue_fields, rings,
    seeds_per_queue,
};
use crate::state::{AtomicHost, FieldRef, State};
use crate::stats::{DeviceStats, PriorityStats, QueueStats, Stats, helped, pushes_and_tasks};
use crate::task::{Task, TaskSet};
use atos_codegen::layout::priority_control as pc;
use atos_codegen::unit::PASS_FETCH;

/// Most items one forward of an outbox moves (aggregated spread runs; about a CTA group's on
/// the GPU).
const FORWARD_MOST: u64 = 1024;
use queue::{Control, CpuPriority, CpuQueue, InlineRun, QueueSet};

/// Runs tasks on CPU threads.
#[derive(Clone, Debug)]
pub struct CpuExecutor {
    threads: usize,
    fetch: Option<u32>,
    strategy: Strategy,
    placement: Option<Arc<Placement>>,
    aggregation: crate::Aggregation,
    /// Spread runs: whether `accumulate`s into other simulated devices' elements are combined.
    combining: bool,
    /// Spread runs that combine: combine-copy positions drained per task after each batch.
    drain: u32,
    /// Stop a run that passes it ([`CpuExecutor::timeout`]).
    timeout: Option<Duration>,
}

impl Default for CpuExecutor {
    fn default() -> Self {
        CpuExecutor::new()
    }
}

impl CpuExecutor {
    /// One worker per available CPU.
    pub fn new() -> Self {
        let threads = std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1);
        CpuExecutor {
            threads,
            fetch: None,
            strategy: Strategy::Persistent,
            placement: None,
            aggregation: crate::Aggregation::Eager,
            combining: true,
            drain: crate::aggregation::COMBINE_DRAIN,
            timeout: None,
        }
    }

    /// Stops a run that is still going `limit` after it started, with
    /// [`RunError::TimedOut`] (no limit by default). Workers look between batches, so a
    /// batch under way finishes first; the state keeps what the run had done.
    pub fn timeout(mut self, limit: Duration) -> Self {
        self.timeout = Some(limit);
        self
    }

    /// Spread runs that combine: how many positions of its simulated device's combine copies a
    /// thread delivers per task after each batch, before the batch counts done (default
    /// [`crate::aggregation::COMBINE_DRAIN`]; 0: only idle sweeps and the run's end deliver), as
    /// `MeshProgram::set_drain` sets it on the GPU.
    pub fn drain(mut self, per_task: u32) -> Self {
        self.drain = per_task;
        self
    }

    /// Spread runs: whether `accumulate`s into another simulated device's elements are combined
    /// in the device's combine copy (the default), as `MeshProgram::set_combining` sets it on
    /// the GPU, or added at once.
    pub fn combining(mut self, on: bool) -> Self {
        self.combining = on;
        self
    }

    /// How a spread run's pushes to another simulated device travel (eager by default), as
    /// `MeshProgram::set_aggregation` sets it on the GPU.
    pub fn aggregation(mut self, aggregation: crate::Aggregation) -> Self {
        self.aggregation = aggregation;
        self
    }

    /// Simulates a program spread over `placement.devices()` devices, as the multi-GPU
    /// executor runs it: per device a local and a receive ring of every queue, each push routed
    /// to the device owning the item's first part, threads dealt out to the devices (several
    /// per device, or several devices per thread), and the run ended when every ring of every
    /// device is quiescent. Persistent only; plain queues only.
    pub fn placement(mut self, placement: Placement) -> Self {
        self.placement = Some(Arc::new(placement));
        self
    }

    /// Persistent (default: threads loop until the run is proven finished) or bulk-synchronous
    /// (level by level: every thread runs the items queued before the level, then a barrier;
    /// `Stats::levels` counts them). Discrete is a GPU launch scheme: runs refuse it.
    pub fn strategy(mut self, strategy: Strategy) -> Self {
        self.strategy = strategy;
        self
    }

    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = threads.max(1);
        self
    }

    /// Overrides every task's fetch size (items a worker takes at a time).
    pub fn fetch(mut self, fetch: u32) -> Self {
        self.fetch = Some(fetch.max(1));
        self
    }

    /// Runs the program `tasks` (one task or a tuple of tasks) from `seeds`, which go to the
    /// queue of the first task, until the run is proven finished.
    pub fn run<P: TaskSet>(
        &self,
        tasks: P,
        state: &P::State<'_>,
        seeds: &[<P::First as Task>::Item],
    ) -> Result<Stats, RunError> {
        self.run_seeds(tasks, state, &Seeds::new().add_for::<P::First>(seeds))
    }

    /// Runs the program `tasks` from seeds given per task.
    pub fn run_seeds<P: TaskSet>(
        &self,
        _tasks: P,
        state: &P::State<'_>,
        seeds: &Seeds,
    ) -> Result<Stats, RunError> {
        if let Some(placement) = &self.placement {
            return self.run_mesh::<P>(state, seeds, placement.clone());
        }
        let (plan, irs) = plan_of::<P>()?;
        let fetches = self.fetches(&irs);
        let fields = state.fields();
        let hosts = queue_fields(&fields);
        let seeds = seeds_per_queue(&plan, seeds)?;
        let (ring_list, setups) = rings(&<P::State<'_> as State>::desc(), &hosts)?;
        let capacities: Vec<u64> = ring_list.iter().map(|r| r.capacity).collect();
        check_seed_room(&plan, &capacities, &seeds)?;
        let range = idle_range(&plan, &irs, &field_values(&fields))?;
        let total_seeds: u64 = seeds.iter().map(|s| s.len() as u64).sum();

        let control = Arc::new(Control::new());
        control
            .word(ctl::IDLE_CLEAN)
            .store(u64::from(total_seeds == 0), Relaxed);
        control.word(ctl::IDLE_BASE).store(total_seeds, Relaxed);
        let ring = |q: usize| {
            let r = ring_list[q];
            CpuQueue::new(
                r.capacity,
                r.linear,
                r.elem_size,
                &seeds[q],
                control.clone(),
            )
        };
        // Plain queues own their ring; a priority queue owns its three.
        let mut plain: Vec<(usize, CpuQueue)> = Vec::new();
        let mut prios: Vec<CpuPriority> = Vec::new();
        let mut next = 0;
        for h in &hosts {
            match h {
                QueueField::Plain(_) => {
                    plain.push((next, ring(next)));
                    next += 1;
                }
                QueueField::Priority(_) => {
                    let s = setups[prios.len()];
                    prios.push(CpuPriority::new(
                        ring(next),
                        ring(next + 1),
                        ring(next + 2),
                        &s,
                    ));
                    next += 3;
                }
            }
        }
        let mut queues: Vec<&CpuQueue> = Vec::with_capacity(next);
        for q in 0..next {
            let r = match plan
                .priority
                .iter()
                .position(|p| p.near == q || p.far == q || p.next == q)
            {
                Some(k) if plan.priority[k].near == q => &prios[k].near,
                Some(k) if plan.priority[k].far == q => &prios[k].far,
                Some(k) => &prios[k].next,
                None => &plain.iter().find(|(at, _)| *at == q).expect("a ring").1,
            };
            queues.push(r);
        }
        let runners = inline_runners::<P>(&plan, self.strategy, state);
        for (q, f) in &runners {
            // SAFETY: `runners` lives to the end of this function; the queues are unbound
            // (every worker joined) before it returns on every path after the binding.
            queues[*q].set_inline(unsafe { InlineRun::new(&**f) });
        }
        let unbind_all = || hosts.iter().for_each(QueueField::unbind);
        let (mut at_plain, mut at_prio) = (0, 0);
        for (i, h) in hosts.iter().enumerate() {
            let bound = match h {
                QueueField::Plain(q) => {
                    at_plain += 1;
                    q.bind(&plain[at_plain - 1].1)
                }
                QueueField::Priority(p) => {
                    at_prio += 1;
                    p.bind(&prios[at_prio - 1])
                }
            };
            if !bound {
                hosts[..i].iter().for_each(QueueField::unbind);
                return Err(RunError::AlreadyRunning {
                    queue: <P::State<'_> as State>::desc()
                        .queues()
                        .nth(i)
                        .map(|f| f.name.clone())
                        .unwrap_or_default(),
                });
            }
        }
        let run = CpuRun {
            plan: &plan,
            fetches: &fetches,
            queues: &queues,
            prios: &prios,
            control: &control,
            range,
            devices: &[],
            threads: self.threads,
            next_thread: AtomicUsize::new(0),
            combines: None,
        };
        let panic_message: Mutex<Option<String>> = Mutex::new(None);
        let t0 = Instant::now();
        let deadline = self.timeout.map(|t| t0 + t);
        let on_threads =
            |f: &(dyn Fn() + Sync)| self.on_threads(&control, &panic_message, deadline, f);
        let mut levels = 0;
        match self.strategy {
            Strategy::Persistent => on_threads(&|| run.worker::<P>(state)),
            Strategy::Bsp => levels = run.levels::<P>(state, &on_threads),
            Strategy::Discrete => {
                unbind_all();
                return Err(RunError::Unsupported(
                    "the CPU executor runs the persistent and bulk-synchronous strategies; discrete launches are a GPU scheme (use Strategy::Bsp for level-by-level runs on the CPU)".into(),
                ));
            }
        }
        let elapsed = t0.elapsed();
        unbind_all();
        run_outcome(
            &control,
            self.timeout,
            panic_message,
            &plan,
            &capacities,
            queues.iter().copied().enumerate(),
        )?;
        let queue_stats = queues
            .iter()
            .enumerate()
            .map(|(i, q)| {
                let t = q.totals();
                let (pushes, tasks) = pushes_and_tasks([&t.words[..]]);
                QueueStats {
                    name: plan.queues[i].clone(),
                    capacity: capacities[i],
                    seeded: seeds[i].len() as u64,
                    popped: tasks,
                    pushed: pushes - seeds[i].len() as u64,
                    peak: t.peak,
                    helped: helped([&t.words[..]]),
                    far: plan.far_of(i).is_some(),
                }
            })
            .collect();
        let priority = plan
            .priority
            .iter()
            .zip(&prios)
            .map(|(pp, p)| PriorityStats {
                name: plan.queues[pp.near].clone(),
                advances: p.word(pc::ADVANCES).load(Acquire),
                moved: p.word(pc::MOVED).load(Acquire),
                examined: p.far.done(),
                threshold: p.word(pc::THRESHOLD).load(Acquire),
            })
            .collect();
        Ok(Stats {
            levels,
            priority,
            ..self.stats(
                format!("CPU ({} threads)", self.threads),
                elapsed,
                &control,
                queue_stats,
            )
        }
        .totals())
    }
}

/// How a run ended: `Ok`, or the overflow of the ring that needed the most (`rings`: each
/// ring with its queue index) or the panic that stopped it.
fn run_outcome<'q>(
    control: &Control,
    limit: Option<Duration>,
    panic_message: Mutex<Option<String>>,
    plan: &Plan,
    capacities: &[u64],
    rings: impl Iterator<Item = (usize, &'q CpuQueue)>,
) -> Result<(), RunError> {
    match control.status() {
        status::OK => Ok(()),
        status::OVERFLOW => {
            let (q, needed) = rings
                .map(|(q, r)| (q, r.totals().needed))
                .max_by_key(|(_, n)| *n)
                .expect("an overflow names a queue");
            Err(RunError::overflow(&plan.queues[q], capacities[q], needed))
        }
        status::TIMED_OUT => Err(RunError::TimedOut {
            limit: limit.unwrap_or_default(),
        }),
        _ => Err(RunError::TaskPanicked {
            message: panic_message.into_inner().unwrap().unwrap_or_default(),
        }),
    }
}

impl CpuExecutor {
    /// A CPU run's stats (no levels, priority queues or devices: callers add theirs).
    fn stats(
        &self,
        device: String,
        elapsed: Duration,
        control: &Control,
        queues: Vec<QueueStats>,
    ) -> Stats {
        Stats {
            device,
            time: elapsed,
            time_is_gpu_events: false,
            seeded: 0,
            popped: 0,
            pushed: 0,
            queue_peak: 0,
            queues,
            idle_sweeps: control.word(ctl::IDLE_SWEEPS).load(Acquire),
            workers: self.threads as u64,
            grid: None,
            strategy: self.strategy,
            launches: 0,
            levels: 0,
            wall: None,
            upload: None,
            timeline: None,
            timeline_queues: None,
            phases: None,
            progress_error: None,
            priority: Vec::new(),
            devices: Vec::new(),
        }
    }

    /// Each task's fetch size (the override, or the task's own).
    fn fetches(&self, irs: &[&atos_codegen::FnIr]) -> Vec<u64> {
        irs.iter()
            .map(|ir| {
                u64::from(
                    self.fetch
                        .unwrap_or_else(|| ir.task_attrs().map(|a| a.fetch).unwrap_or(1)),
                )
            })
            .collect()
    }

    /// Runs `f` on every worker thread; a panicking task fails the run with its message, and
    /// a watchdog fails it with [`status::TIMED_OUT`] if the threads are still at it at
    /// `deadline`.
    fn on_threads(
        &self,
        control: &Control,
        panic_message: &Mutex<Option<String>>,
        deadline: Option<Instant>,
        f: &(dyn Fn() + Sync),
    ) {
        std::thread::scope(|scope| {
            let workers: Vec<_> = (0..self.threads)
                .map(|_| {
                    scope.spawn(|| {
                        if let Err(payload) = catch_unwind(AssertUnwindSafe(f)) {
                            let msg = payload
                                .downcast_ref::<String>()
                                .cloned()
                                .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                                .unwrap_or_else(|| "task panicked".into());
                            panic_message.lock().unwrap().get_or_insert(msg);
                            control.fail(status::PANICKED);
                        }
                    })
                })
                .collect();
            if let Some(deadline) = deadline {
                // Woken early (the sender dropped) when every worker has returned.
                let (done, wait) = std::sync::mpsc::channel::<()>();
                scope.spawn(move || {
                    let left = deadline.saturating_duration_since(Instant::now());
                    if let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = wait.recv_timeout(left)
                    {
                        control.fail(status::TIMED_OUT);
                    }
                });
                for w in workers {
                    let _ = w.join();
                }
                drop(done);
            }
        })
    }

    /// A run spread over the simulated devices of `placement` (see [`CpuExecutor::placement`]).
    fn run_mesh<P: TaskSet>(
        &self,
        state: &P::State<'_>,
        seeds: &Seeds,
        placement: Arc<Placement>,
    ) -> Result<Stats, RunError> {
        let (plan, irs) = plan_of::<P>()?;
        let desc = <P::State<'_> as State>::desc();
        atos_codegen::unit::check_spread(self.strategy, &desc)?;
        let fetches = self.fetches(&irs);
        let fields = state.fields();
        let hosts = queue_fields(&fields);
        let seeds = seeds_per_queue(&plan, seeds)?;
        let (ring_list, _) = rings(&desc, &hosts)?;
        crate::program::check_spread_rings(&plan, &ring_list, self.aggregation)?;
        let capacities: Vec<u64> = ring_list.iter().map(|r| r.capacity).collect();
        let range = idle_range(&plan, &irs, &field_values(&fields))?;
        let total_seeds: u64 = seeds.iter().map(|s| s.len() as u64).sum();
        let devices = placement.devices();
        let control = Arc::new(Control::new());
        control
            .word(ctl::IDLE_CLEAN)
            .store(u64::from(total_seeds == 0), Relaxed);
        control.word(ctl::IDLE_BASE).store(total_seeds, Relaxed);
        // Per queue: its rings on every device (each of the queue's capacity), seeds on their
        // owners' local rings.
        let mut routes = Vec::new();
        for (q, f) in desc.queues().enumerate() {
            let first = f.elem.parts()[0];
            let per_device = crate::placement::seeds_by_owner(&seeds[q], &placement, first);
            if let Some(most) = per_device.iter().map(Vec::len).max()
                && most as u64 > capacities[q]
            {
                return Err(RunError::overflow(
                    &plan.queues[q],
                    capacities[q],
                    most as u64,
                ));
            }
            let r = ring_list[q];
            let ring = |seeds: &[ItemBits]| {
                CpuQueue::new(r.capacity, r.linear, r.elem_size, seeds, control.clone())
            };
            routes.push(mesh::CpuRoute::new(
                per_device.iter().map(|s| ring(s)).collect(),
                &|| ring(&[]),
                self.aggregation,
                placement.clone(),
                first,
            ));
        }
        let runners = inline_runners::<P>(&plan, self.strategy, state);
        for (q, f) in &runners {
            // SAFETY: as in `run_seeds`: unbound before `runners` is dropped.
            routes[*q].set_inline(unsafe { InlineRun::new(&**f) });
            if let Some(offer) = offer_of(&plan, *q, &desc, &fields) {
                routes[*q].set_offer(offer);
            }
        }
        for (i, h) in hosts.iter().enumerate() {
            let QueueField::Plain(q) = h else {
                unreachable!("priority queues are refused above")
            };
            if !q.bind_routed(&routes[i]) {
                hosts[..i].iter().for_each(QueueField::unbind);
                return Err(RunError::AlreadyRunning {
                    queue: plan.queues[i].clone(),
                });
            }
        }
        let rings_of = |d: usize| DeviceRings {
            local: routes.iter().map(|r| &r.local[d]).collect(),
            recv: routes.iter().map(|r| &r.recv[d]).collect(),
            all: routes.iter().flat_map(|r| r.rings_of(d)).collect(),
            routes: &routes,
            over: std::sync::atomic::AtomicBool::new(false),
            sweep: placement.sweep_share(range, d),
            idle_cursor: std::sync::atomic::AtomicU64::new(0),
        };
        let device_rings: Vec<DeviceRings> = (0..devices).map(rings_of).collect();
        // The combine copies of the spread fields the program accumulates into (as
        // `MeshState::upload` allocates them on GPUs), and those fields, where deliveries go.
        let homes: Vec<&dyn AtomicHost> = fields
            .iter()
            .zip(&desc.fields)
            .filter_map(|(f, fd)| match f {
                FieldRef::Atomics(a)
                    if plan.combines.contains(&fd.name)
                        && a.len() as u64 == placement.len()
                        && devices > 1 =>
                {
                    Some(*a)
                }
                _ => None,
            })
            .collect();
        // Every `Atomics` field as the GPUs place it, with the filter copies the plan gives.
        let spread = Arc::new(mesh::SpreadFields::new(
            &fields
                .iter()
                .zip(&desc.fields)
                .filter_map(|(f, fd)| match f {
                    FieldRef::Atomics(a) => Some(mesh::FieldAt {
                        at: a.cells_addr(),
                        len: a.len(),
                        filter: plan.filters.iter().any(|p| p.name == fd.name),
                        host: *a,
                    }),
                    _ => None,
                })
                .collect::<Vec<_>>(),
            placement.clone(),
        ));
        let combines = (self.combining && !homes.is_empty()).then(|| {
            let at: Vec<(usize, usize)> = homes.iter().map(|h| (h.cells_addr(), h.len())).collect();
            Arc::new(mesh::Combines::new(
                &at,
                placement.clone(),
                self.drain,
                spread.clone(),
            ))
        });
        let all: Vec<&CpuQueue> = (0..devices)
            .flat_map(|d| routes.iter().flat_map(move |r| r.rings_of(d)))
            .collect();
        let run = CpuRun {
            plan: &plan,
            fetches: &fetches,
            queues: &all,
            prios: &[],
            control: &control,
            range,
            devices: &device_rings,
            threads: self.threads,
            next_thread: AtomicUsize::new(0),
            combines: combines.as_deref().map(|c| (c, &homes[..])),
        };
        let panic_message: Mutex<Option<String>> = Mutex::new(None);
        let t0 = Instant::now();
        let deadline = self.timeout.map(|t| t0 + t);
        self.on_threads(&control, &panic_message, deadline, &|| {
            let _spread = mesh::enter_spread(mesh::SpreadRun {
                fields: spread.clone(),
                combines: combines.clone(),
            });
            run.worker::<P>(state)
        });
        // The kernels' `deliver_rest`: the run is over on every device.
        if let Some(c) = &combines {
            c.deliver_all(&homes);
        }
        let elapsed = t0.elapsed();
        hosts.iter().for_each(QueueField::unbind);
        run_outcome(
            &control,
            self.timeout,
            panic_message,
            &plan,
            &capacities,
            routes.iter().enumerate().flat_map(|(q, r)| {
                (0..devices).flat_map(move |d| r.rings_of(d).map(move |x| (q, x)))
            }),
        )?;
        let queue_stats = routes
            .iter()
            .enumerate()
            .map(|(q, r)| {
                let t: Vec<_> = r
                    .local
                    .iter()
                    .chain(&r.recv)
                    .map(CpuQueue::totals)
                    .collect();
                let (pushes, tasks) = pushes_and_tasks(t.iter().map(|t| &t.words[..]));
                QueueStats {
                    name: plan.queues[q].clone(),
                    capacity: capacities[q],
                    seeded: seeds[q].len() as u64,
                    popped: tasks,
                    pushed: pushes - seeds[q].len() as u64,
                    peak: t.iter().map(|t| t.peak).max().unwrap_or(0),
                    helped: helped(t.iter().map(|t| &t.words[..])),
                    far: false,
                }
            })
            .collect();
        let device_stats = (0..devices)
            .map(|d| {
                let received: Vec<u64> = routes.iter().map(|r| r.recv[d].pushed()).collect();
                DeviceStats {
                    name: format!("CPU device {d}"),
                    indices: placement.count(d),
                    tasks: routes
                        .iter()
                        .map(|r| {
                            let (local, recv) = (r.local[d].totals(), r.recv[d].totals());
                            pushes_and_tasks([&local.words[..], &recv.words[..]]).1
                        })
                        .sum(),
                    sent: routes.iter().map(|r| r.sent(d)).sum(),
                    remote_ops: Some(spread.remote_ops(d)),
                    progress: Vec::new(),
                    delivered: combines.as_ref().map_or(0, |c| c.delivered(d)),
                    received: received.iter().sum(),
                    received_bytes: received
                        .iter()
                        .zip(&ring_list)
                        .map(|(n, r)| n * r.elem_size as u64)
                        .sum(),
                }
            })
            .collect();
        Ok(Stats {
            devices: device_stats,
            ..self.stats(
                format!(
                    "CPU ({} threads, {devices} simulated devices)",
                    self.threads
                ),
                elapsed,
                &control,
                queue_stats,
            )
        }
        .totals())
    }
}

/// Queue `q`'s offers (`Plan::offers`), if its inline task guards its body with a filtered
/// field: the field's cells and where the value is in an item.
fn offer_of(
    plan: &Plan,
    q: usize,
    desc: &atos_codegen::StateDesc,
    fields: &[FieldRef<'_>],
) -> Option<mesh::Offer> {
    let offer = plan.offers.iter().find(|o| o.queue == plan.queues[q])?;
    let FieldRef::Atomics(a) = fields[offer.field] else {
        return None;
    };
    let parts = desc.field(&offer.queue)?.elem.parts();
    Some(mesh::Offer {
        at: a.cells_addr(),
        offset: atos_codegen::item::tuple_layout(parts).offsets[1],
        value: parts[1],
        down: offer.direction == atos_codegen::plan::Direction::Down,
    })
}

/// The inline tasks' runners of a run, by queue index: each calls its task on an item
/// (`#[atos::task(inline)]`). Persistent runs only, as on the GPU: a level-by-level run keeps
/// its pushes for the next level.
#[allow(clippy::type_complexity)]
fn inline_runners<'s, P: TaskSet>(
    plan: &Plan,
    strategy: Strategy,
    state: &'s P::State<'_>,
) -> Vec<(usize, Box<dyn Fn(ItemBits) + Sync + 's>)> {
    if strategy != Strategy::Persistent {
        return Vec::new();
    }
    (0..plan.tasks.len())
        .filter(|&t| plan.tasks[t].inline)
        .filter_map(|t| plan.queue_of(t).map(|q| (t, q)))
        .map(|(t, q)| {
            let run: Box<dyn Fn(ItemBits) + Sync + 's> =
                Box::new(move |bits| P::call(t, bits, state));
            (q, run)
        })
        .collect()
}

/// One run's shared data, as every worker thread sees it.
struct CpuRun<'r> {
    plan: &'r Plan,
    fetches: &'r [u64],
    /// Every ring, in queue index order.
    queues: &'r [&'r CpuQueue],
    /// The priority queues, in `plan.priority` order.
    prios: &'r [CpuPriority],
    control: &'r Control,
    range: u64,
    /// A spread run: per simulated device, its local and receive rings by queue index (empty
    /// for a run on one device).
    devices: &'r [DeviceRings<'r>],
    threads: usize,
    /// Hands each worker thread its index.
    next_thread: AtomicUsize,
    /// A spread run that accumulates: the combine copies and the fields they deliver to.
    combines: Option<(&'r mesh::Combines, &'r [&'r dyn AtomicHost])>,
}

/// A window of an idle sweep (`SweepParts` and `split_sweep` in queue.cuh, checked equal on a
/// GPU by `atos::gpu::twins::check_sweep_twins`): the hook's indices `[lo, lo + n)`
/// and positions `[deliver_lo, deliver_lo + deliver_n)` of `device`'s combine copies.
pub(crate) struct SweepWindow {
    pub(crate) device: usize,
    pub(crate) lo: u64,
    pub(crate) n: u64,
    pub(crate) deliver_lo: u64,
    pub(crate) deliver_n: u64,
}

impl SweepWindow {
    /// Positions `[pos, pos + n)` of `device`'s sweep (`sweep_parts` in mesh.cuh): its
    /// `copies` combine-copy positions come first, then its share of the hook's indices from
    /// `first` on (why: `MeshQueues::grab_window` in mesh.cuh); a window holding both delivers
    /// first.
    pub(crate) fn split(device: usize, pos: u64, n: u64, copies: u64, first: u64) -> SweepWindow {
        let deliver_n = if pos < copies { n.min(copies - pos) } else { 0 };
        SweepWindow {
            device,
            lo: first + (pos + deliver_n).saturating_sub(copies),
            n: n - deliver_n,
            deliver_lo: pos,
            deliver_n,
        }
    }

    /// Positions of the sweep it covers.
    fn total(&self) -> u64 {
        self.n + self.deliver_n
    }
}

/// One simulated device's rings, by queue index.
struct DeviceRings<'r> {
    local: Vec<&'r CpuQueue>,
    recv: Vec<&'r CpuQueue>,
    /// Every ring of the device (outboxes included).
    all: Vec<&'r CpuQueue>,
    /// Every queue's routes (for the device's forwards).
    routes: &'r [mesh::CpuRoute],
    /// Set by the device's termination poller once every ring of every device was quiescent
    /// (`over` in mesh.cuh's DeviceCounters).
    over: std::sync::atomic::AtomicBool,
    /// Its share `[lo, hi)` of an idle sweep (`Placement::sweep_share`).
    sweep: (u64, u64),
    /// Its cursor over that share: sweep << IDLE_SWEEP_SHIFT | next position (`idle_cursor`
    /// in mesh.cuh's DeviceCounters).
    idle_cursor: std::sync::atomic::AtomicU64,
}

impl CpuRun<'_> {
    /// The bulk-synchronous loop: each level runs, on every thread, the items queued before it
    /// (every queue's window); with an idle hook, a level of one whole sweep runs when the
    /// queues are empty, and the run ends when such a sweep pushed nothing. Returns the levels.
    fn levels<P: TaskSet>(
        &self,
        state: &P::State<'_>,
        on_threads: &dyn Fn(&(dyn Fn() + Sync)),
    ) -> u64 {
        let all = QueueSet(self.queues);
        let mut levels = 0;
        loop {
            if self.control.status() != status::OK {
                return levels;
            }
            // A far ring gets no window of its own: passes over it run when all else is done.
            let windows: Vec<u64> = (0..self.queues.len())
                .map(|q| match self.plan.far_of(q) {
                    Some(_) => self.queues[q].start(),
                    None => self.queues[q].end(),
                })
                .collect();
            let empty = self
                .queues
                .iter()
                .zip(&windows)
                .all(|(q, &hi)| q.start() >= hi);
            if empty && self.pass_level(on_threads) {
                levels += 1;
                continue;
            }
            if empty {
                let Some(hook) = self.plan.idle().filter(|_| self.range > 0) else {
                    return levels;
                };
                let before = all.pushed();
                let cursor = std::sync::atomic::AtomicU64::new(0);
                on_threads(&|| {
                    loop {
                        let lo = cursor.fetch_add(self.fetches[hook], AcqRel);
                        if lo >= self.range {
                            return;
                        }
                        for i in lo..(lo + self.fetches[hook]).min(self.range) {
                            P::call(hook, ItemBits::from(i), state);
                        }
                    }
                });
                self.control.word(ctl::IDLE_SWEEPS).fetch_add(1, Relaxed);
                levels += 1;
                if all.pushed() == before {
                    // The first sweep is not counted in `idle_sweeps` (as on the GPU).
                    self.control.word(ctl::IDLE_SWEEPS).fetch_sub(1, Relaxed);
                    return levels;
                }
                continue;
            }
            levels += 1;
            on_threads(&|| {
                let mut batch = Vec::new();
                while self.serve_round::<P>(
                    state,
                    self.queues,
                    &mut batch,
                    |q, queue, fetch, out| queue.claim_below(fetch, windows[q], out),
                ) {}
            });
        }
    }

    /// Bulk-synchronous: when no task has items, a level that advances the threshold of every
    /// priority queue holding far items and runs one pass over them (the windowed GPU driver
    /// does the same). Whether it ran.
    fn pass_level(&self, on_threads: &dyn Fn(&(dyn Fn() + Sync))) -> bool {
        let open: Vec<(&CpuPriority, u64)> = self
            .prios
            .iter()
            .filter(|p| p.far.end() > p.far.start())
            .map(|p| (p, p.far.end()))
            .collect();
        if open.is_empty() {
            return false;
        }
        open.iter().for_each(|(p, _)| p.step_threshold());
        on_threads(&|| {
            let mut batch = Vec::new();
            for (p, hi) in &open {
                loop {
                    let n = p.far.claim_below(u64::from(PASS_FETCH), *hi, &mut batch);
                    if n == 0 {
                        break;
                    }
                    p.split(&batch);
                    p.far.complete(n);
                }
            }
        });
        true
    }

    /// One round over every queue: each task's queue is claimed from with `claim` (queue
    /// index, queue, fetch, batch) and the claimed items run. Whether any ran.
    fn serve_round<P: TaskSet>(
        &self,
        state: &P::State<'_>,
        rings: &[&CpuQueue],
        batch: &mut Vec<ItemBits>,
        claim: impl Fn(usize, &CpuQueue, u64, &mut Vec<ItemBits>) -> u64,
    ) -> bool {
        let mut worked = false;
        for task in 0..self.plan.tasks.len() {
            let Some(q) = self.plan.queue_of(task) else {
                continue;
            };
            let queue = &rings[q];
            let n = claim(q, queue, self.fetches[task], batch);
            if n > 0 {
                self.run_batch::<P>(state, task, batch, queue);
                worked = true;
            }
        }
        worked
    }

    /// Runs task `task` on the `batch` claimed from `ring`, then counts it done there.
    fn run_batch<P: TaskSet>(
        &self,
        state: &P::State<'_>,
        task: usize,
        batch: &[ItemBits],
        ring: &CpuQueue,
    ) {
        for bits in batch {
            P::call(task, *bits, state);
        }
        let n = batch.len() as u64;
        // Before the batch counts done, as `drain_combined` in mesh.cuh.
        if let Some((c, homes)) = self.combines {
            c.drain(homes, mesh::device(), n);
        }
        ring.complete(n);
    }

    /// A batch of priority queue `p`'s next ring's open part, run by the task popping its near
    /// ring; whether there was one.
    fn serve_next<P: TaskSet>(
        &self,
        state: &P::State<'_>,
        p: &CpuPriority,
        pp: &PriorityPlan,
        batch: &mut Vec<ItemBits>,
    ) -> bool {
        let Some(task) = self.plan.consumer(pp.near) else {
            return false;
        };
        if p.claim_next(self.fetches[task], batch) == 0 {
            return false;
        }
        self.run_batch::<P>(state, task, batch, &p.next);
        true
    }

    /// The persistent loop of `worker.cuh`, for one thread.
    fn worker<P: TaskSet>(&self, state: &P::State<'_>) {
        let mut batch = Vec::new();
        let mut idle = 0u32;
        let all = QueueSet(self.queues);
        let t = self.next_thread.fetch_add(1, Relaxed);
        let mine = if self.devices.is_empty() {
            Vec::new()
        } else {
            mesh::devices_of(t, self.threads, self.devices.len())
        };
        let claim = |_: usize, queue: &CpuQueue, fetch: u64, out: &mut Vec<ItemBits>| {
            queue.claim(fetch, out)
        };
        loop {
            let mut worked = false;
            if mine.is_empty() {
                worked = self.serve_round::<P>(state, self.queues, &mut batch, claim);
            }
            for &d in &mine {
                mesh::set_device(d);
                let rings = &self.devices[d];
                // `here`: this device's pass found work (a forward when idle asks it).
                let mut here = self.serve_round::<P>(state, &rings.local, &mut batch, claim);
                here |= self.serve_round::<P>(state, &rings.recv, &mut batch, claim);
                for r in rings.routes {
                    here |= r.forward(d, FORWARD_MOST, &mut batch, here);
                }
                worked |= here;
            }
            if let Some(&d) = mine.first() {
                mesh::set_device(d); // the idle hook's pushes route from here
            }
            // Priority queues whose task found nothing: a batch of the next ring's open part,
            // else of the open pass, else an advance (`PriorityServer` in worker.cuh).
            for (p, pp) in self.prios.iter().zip(&self.plan.priority) {
                if worked {
                    break;
                }
                worked = self.serve_next::<P>(state, p, pp, &mut batch)
                    || p.serve_pass(u64::from(PASS_FETCH), &mut batch)
                    || p.advance();
            }
            if worked {
                idle = 0;
                // A run that keeps finding work still stops on a failure (a time limit).
                if self.control.status() != status::OK {
                    return;
                }
                continue;
            }
            if self.control.status() != status::OK {
                return;
            }
            if let Some(hook) = self.plan.idle().filter(|_| self.range > 0) {
                if self.control.word(ctl::STOP).load(Acquire) != 0 {
                    return;
                }
                if let Some(w) = self.grab_window(self.fetches[hook], &mine) {
                    // Deliveries first, as IdleServer.
                    let mut delivered = false;
                    if let Some((c, homes)) = self.combines {
                        for p in w.deliver_lo..w.deliver_lo + w.deliver_n {
                            delivered |= c.deliver(homes, w.device, p);
                        }
                    }
                    for i in w.lo..w.lo + w.n {
                        P::call(hook, ItemBits::from(i), state);
                    }
                    // As IdleServer: a delivery means the sweep cannot prove the end.
                    if delivered {
                        self.control.word(ctl::IDLE_CLEAN).store(0, Relaxed);
                    }
                    let finished = self
                        .control
                        .word(ctl::IDLE_FINISHED)
                        .fetch_add(w.total(), AcqRel)
                        + w.total();
                    if finished == self.sweep_total() {
                        self.close_sweep(&all);
                    }
                    idle = 0;
                    continue;
                }
            } else if mine.is_empty() && all.quiescent().0
                || !mine.is_empty() && self.mesh_over(t, &mine, &all)
            {
                return;
            }
            idle += 1;
            if idle < 64 {
                std::hint::spin_loop();
            } else if idle < 256 {
                std::thread::yield_now();
            } else {
                std::thread::sleep(Duration::from_micros(20));
            }
        }
    }

    /// `MeshQueues::quiescent` of mesh.cuh for thread `t`, serving simulated devices `mine`: a
    /// look at their own rings first; then each device's poller (one thread per device) runs
    /// the full check over every device's rings and records the end in the device's `over`,
    /// which the device's other threads read.
    fn mesh_over(&self, t: usize, mine: &[usize], all: &QueueSet<'_>) -> bool {
        if mine
            .iter()
            .any(|&d| !QueueSet(&self.devices[d].all).quiescent().0)
        {
            return false;
        }
        for &d in mine {
            let over = &self.devices[d].over;
            if over.load(Acquire) {
                continue;
            }
            // Thread d % threads serves device d (mesh::devices_of): its poller.
            if t != d % self.threads || !all.quiescent().0 {
                return false;
            }
            over.store(true, Release);
        }
        true
    }

    /// Positions of one device's combine copies (`deliver_len`; 0 when nothing combines).
    fn deliver_len(&self) -> u64 {
        self.combines.map_or(0, |(c, _)| c.len())
    }

    /// Positions of a whole sweep (`sweep_total` in queue.cuh and mesh.cuh): the hook's range,
    /// and every device's combine copies.
    fn sweep_total(&self) -> u64 {
        self.range + self.devices.len() as u64 * self.deliver_len()
    }

    /// A window of the open sweep: from the control block's cursor on one device
    /// (`QueueSet::grab_window` in queue.cuh); spread, from the share of one of the devices
    /// `mine` this thread serves, whose device the hook's pushes then route from
    /// (`MeshQueues::grab_window` in mesh.cuh): its combine copies' positions, then its share of
    /// the hook's indices.
    fn grab_window(&self, want: u64, mine: &[usize]) -> Option<SweepWindow> {
        if self.devices.is_empty() {
            let cursor = self.control.word(ctl::IDLE_CURSOR);
            let (lo, n) = grab_from(cursor, self.range, want)?;
            return Some(SweepWindow {
                device: 0,
                lo,
                n,
                deliver_lo: 0,
                deliver_n: 0,
            });
        }
        mine.iter().find_map(|&d| {
            let dev = &self.devices[d];
            let (lo, hi) = dev.sweep;
            let share = hi - lo;
            let copies = self.deliver_len();
            let (pos, n) = grab_from(&dev.idle_cursor, copies + share, want)?;
            mesh::set_device(d);
            Some(SweepWindow::split(d, pos, n, copies, lo))
        })
    }

    /// `close_sweep` of worker.cuh: stop if this sweep proved the run finished, else open the
    /// next one.
    fn close_sweep(&self, all: &QueueSet<'_>) {
        let c = |i| self.control.word(i);
        if c(ctl::IDLE_CLEAN).load(Acquire) != 0 && all.pushed() == c(ctl::IDLE_BASE).load(Acquire)
        {
            c(ctl::STOP).store(1, Release);
            return;
        }
        let (quiet, pushed) = all.quiescent();
        c(ctl::IDLE_CLEAN).store(u64::from(quiet), Relaxed);
        c(ctl::IDLE_BASE).store(pushed, Relaxed);
        c(ctl::IDLE_FINISHED).store(0, Relaxed);
        c(ctl::IDLE_SWEEPS).fetch_add(1, Relaxed);
        // Release: the new sweep's record comes before the cursor(s) that open it.
        if self.devices.is_empty() {
            next_sweep(c(ctl::IDLE_CURSOR));
        }
        for dev in self.devices {
            next_sweep(&dev.idle_cursor);
        }
    }
}

/// `grab_from` of queue.cuh: a window of up to `want` of a share's `size` positions from its
/// cursor (sweep << IDLE_SWEEP_SHIFT | next position), as (first position, count).
fn grab_from(cursor: &std::sync::atomic::AtomicU64, size: u64, want: u64) -> Option<(u64, u64)> {
    let pos_mask = (1u64 << IDLE_SWEEP_SHIFT) - 1;
    if cursor.load(Acquire) & pos_mask >= size {
        return None;
    }
    let pos = cursor.fetch_add(want, AcqRel) & pos_mask;
    (pos < size).then(|| (pos, want.min(size - pos)))
}

/// `next_sweep` of queue.cuh: opens the next sweep on a cursor.
fn next_sweep(cursor: &std::sync::atomic::AtomicU64) {
    let sweep = cursor.load(Acquire) >> IDLE_SWEEP_SHIFT;
    cursor.swap((sweep + 1) << IDLE_SWEEP_SHIFT, AcqRel);
}

#[cfg(test)]
mod tests {
    use super::SweepWindow;

    /// A device's sweep is its copies' positions, then its share of the hook's indices: the
    /// windows of 4 over 5 copy positions and a share of 6 indices from 100 deliver 0..4, then
    /// 4 and run 100..103, then run 103..106, every position once.
    #[test]
    fn a_sweep_delivers_its_copies_before_it_runs_the_hook() {
        let parts = |pos, n| {
            let w = SweepWindow::split(1, pos, n, 5, 100);
            assert_eq!(w.device, 1);
            assert_eq!(w.total(), n);
            (w.deliver_lo, w.deliver_n, w.lo, w.n)
        };
        assert_eq!(parts(0, 4).1, 4);
        assert_eq!(parts(0, 4).3, 0);
        assert_eq!(parts(4, 4), (4, 1, 100, 3));
        assert_eq!(parts(8, 3).1, 0);
        assert_eq!((parts(8, 3).2, parts(8, 3).3), (103, 3));
        // Nothing combined: the window is all indices, from the share's first on.
        let w = SweepWindow::split(0, 2, 4, 0, 100);
        assert_eq!((w.deliver_n, w.lo, w.n), (0, 102, 4));
    }
}
