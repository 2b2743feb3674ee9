//! The CPU executor: the same task functions on CPU threads, with the queue protocol, idle
//! sweeps and exact termination of the GPU. It is the oracle for GPU results and the fallback
//! without one.

pub mod queue;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed, Release};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use atos_codegen::layout::{IDLE_SWEEP_SHIFT, control as ctl, status};
use atos_codegen::{Plan, Strategy};

use crate::elem::ItemBits;
use crate::error::RunError;
use crate::program::{
    QueueField, Seeds, check_seed_room, field_values, idle_range, plan_of, queue_fields, rings,
    seeds_per_queue,
};
use crate::state::State;
use crate::stats::{PriorityStats, QueueStats, Stats};
use crate::task::{Task, TaskSet};
use atos_codegen::layout::priority_control as pc;
use atos_codegen::unit::PASS_FETCH;
use queue::{Control, CpuPriority, CpuQueue, QueueSet};

/// Runs tasks on CPU threads.
#[derive(Clone, Debug)]
pub struct CpuExecutor {
    threads: usize,
    fetch: Option<u32>,
    strategy: Strategy,
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
        }
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
        let (plan, irs) = plan_of::<P>()?;
        let fetches: Vec<u64> = irs
            .iter()
            .map(|ir| {
                u64::from(
                    self.fetch
                        .unwrap_or_else(|| ir.task_attrs().map(|a| a.fetch).unwrap_or(1)),
                )
            })
            .collect();
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
        // Plain queues own their ring; a priority queue owns both of its.
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
                        s.key,
                        s.key_offset,
                        s.delta,
                        s.threshold,
                    ));
                    next += 2;
                }
            }
        }
        let mut queues: Vec<&CpuQueue> = Vec::with_capacity(next);
        for q in 0..next {
            let r = match plan.priority.iter().position(|p| p.near == q || p.far == q) {
                Some(k) if plan.priority[k].near == q => &prios[k].near,
                Some(k) => &prios[k].far,
                None => &plain.iter().find(|(at, _)| *at == q).expect("a ring").1,
            };
            queues.push(r);
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
        };
        let panic_message: Mutex<Option<String>> = Mutex::new(None);
        let on_threads = |f: &(dyn Fn() + Sync)| {
            std::thread::scope(|scope| {
                for _ in 0..self.threads {
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
                    });
                }
            })
        };
        let t0 = Instant::now();
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
        match control.status() {
            status::OK => {}
            status::OVERFLOW => {
                let (i, t) = queues
                    .iter()
                    .map(|q| q.totals())
                    .enumerate()
                    .max_by_key(|(_, t)| t.needed)
                    .expect("an overflow names a queue");
                return Err(RunError::overflow(&plan.queues[i], capacities[i], t.needed));
            }
            _ => {
                return Err(RunError::TaskPanicked {
                    message: panic_message.into_inner().unwrap().unwrap_or_default(),
                });
            }
        }
        let queue_stats = queues
            .iter()
            .enumerate()
            .map(|(i, q)| {
                let t = q.totals();
                QueueStats {
                    name: plan.queues[i].clone(),
                    capacity: capacities[i],
                    seeded: seeds[i].len() as u64,
                    popped: t.done,
                    pushed: t.end_alloc - seeds[i].len() as u64,
                    peak: t.peak,
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
            device: format!("CPU ({} threads)", self.threads),
            time: elapsed,
            time_is_gpu_events: false,
            seeded: 0,
            popped: 0,
            pushed: 0,
            queue_peak: 0,
            queues: queue_stats,
            idle_sweeps: control.word(ctl::IDLE_SWEEPS).load(Acquire),
            workers: self.threads as u64,
            grid: None,
            strategy: self.strategy,
            launches: 0,
            levels,
            wall: None,
            upload: None,
            timeline: None,
            priority,
        }
        .totals())
    }
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
                while self.serve_round::<P>(state, &mut batch, |q, queue, fetch, out| {
                    queue.claim_below(fetch, windows[q], out)
                }) {}
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
        batch: &mut Vec<ItemBits>,
        claim: impl Fn(usize, &CpuQueue, u64, &mut Vec<ItemBits>) -> u64,
    ) -> bool {
        let mut worked = false;
        for task in 0..self.plan.tasks.len() {
            let Some(q) = self.plan.queue_of(task) else {
                continue;
            };
            let queue = &self.queues[q];
            let n = claim(q, queue, self.fetches[task], batch);
            if n > 0 {
                for bits in batch.iter() {
                    P::call(task, *bits, state);
                }
                queue.complete(n);
                worked = true;
            }
        }
        worked
    }

    /// The persistent loop of `worker.cuh`, for one thread.
    fn worker<P: TaskSet>(&self, state: &P::State<'_>) {
        let mut batch = Vec::new();
        let mut idle = 0u32;
        let all = QueueSet(self.queues);
        loop {
            let mut worked = self.serve_round::<P>(state, &mut batch, |_, queue, fetch, out| {
                queue.claim(fetch, out)
            });
            // Priority queues whose task found nothing: a batch of the open pass, else an
            // advance (`PriorityServer` in worker.cuh).
            for p in self.prios.iter() {
                if !worked && (p.serve_pass(u64::from(PASS_FETCH), &mut batch) || p.advance()) {
                    worked = true;
                }
            }
            if worked {
                idle = 0;
                continue;
            }
            if self.control.status() != status::OK {
                return;
            }
            if let Some(hook) = self.plan.idle().filter(|_| self.range > 0) {
                if self.control.word(ctl::STOP).load(Acquire) != 0 {
                    return;
                }
                if let Some((lo, n)) = self.grab_window(self.fetches[hook]) {
                    for i in lo..lo + n {
                        P::call(hook, ItemBits::from(i), state);
                    }
                    let finished = self.control.word(ctl::IDLE_FINISHED).fetch_add(n, AcqRel) + n;
                    if finished == self.range {
                        self.close_sweep(&all);
                    }
                    idle = 0;
                    continue;
                }
            } else if all.quiescent().0 {
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

    /// `grab_window` of worker.cuh.
    fn grab_window(&self, want: u64) -> Option<(u64, u64)> {
        let pos_mask = (1u64 << IDLE_SWEEP_SHIFT) - 1;
        let cursor = self.control.word(ctl::IDLE_CURSOR);
        if cursor.load(Acquire) & pos_mask >= self.range {
            return None;
        }
        let pos = cursor.fetch_add(want, AcqRel) & pos_mask;
        (pos < self.range).then(|| (pos, want.min(self.range - pos)))
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
        let sweep = c(ctl::IDLE_CURSOR).load(Acquire) >> IDLE_SWEEP_SHIFT;
        // Release: the new sweep's record comes before the cursor that opens it.
        c(ctl::IDLE_CURSOR).swap((sweep + 1) << IDLE_SWEEP_SHIFT, AcqRel);
    }
}
