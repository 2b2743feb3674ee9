//! The CPU executor: the same task functions on CPU threads, with the queue protocol, idle
//! sweeps and exact termination of the GPU. It is the oracle for GPU results and the fallback
//! without one.

pub mod queue;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed, Release};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use atos_codegen::Plan;
use atos_codegen::layout::{IDLE_SWEEP_SHIFT, control as ctl, status};

use crate::error::RunError;
use crate::program::{Seeds, check_seed_room, idle_range, plan_of, queue_fields, seeds_per_queue};
use crate::state::State;
use crate::stats::{QueueStats, Stats};
use crate::task::{Task, TaskSet};
use queue::{Control, CpuQueue, QueueSet};

/// Runs tasks on CPU threads.
#[derive(Clone, Debug)]
pub struct CpuExecutor {
    threads: usize,
    fetch: Option<u32>,
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
        }
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
        check_seed_room(&plan, &hosts, &seeds)?;
        let range = idle_range(&plan, &irs, &fields)?;
        let total_seeds: u64 = seeds.iter().map(|s| s.len() as u64).sum();

        let control = Arc::new(Control::new());
        control
            .word(ctl::IDLE_CLEAN)
            .store(u64::from(total_seeds == 0), Relaxed);
        control.word(ctl::IDLE_BASE).store(total_seeds, Relaxed);
        let queues: Vec<CpuQueue> = hosts
            .iter()
            .zip(&seeds)
            .map(|(h, s)| CpuQueue::new(h.capacity(), h.linear(), s, control.clone()))
            .collect();
        for (i, (h, q)) in hosts.iter().zip(&queues).enumerate() {
            if !h.bind(q) {
                hosts[..i].iter().for_each(|h| h.unbind());
                return Err(RunError::AlreadyRunning {
                    queue: plan.queues[i].clone(),
                });
            }
        }
        let run = CpuRun {
            plan: &plan,
            fetches: &fetches,
            queues: &queues,
            control: &control,
            range,
        };
        let panic_message: Mutex<Option<String>> = Mutex::new(None);
        let t0 = Instant::now();
        std::thread::scope(|scope| {
            for _ in 0..self.threads {
                scope.spawn(|| {
                    let result = catch_unwind(AssertUnwindSafe(|| run.worker::<P>(state)));
                    if let Err(payload) = result {
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
        });
        let elapsed = t0.elapsed();
        hosts.iter().for_each(|h| h.unbind());
        match control.status() {
            status::OK => {}
            status::OVERFLOW => {
                let (i, t) = queues
                    .iter()
                    .map(CpuQueue::totals)
                    .enumerate()
                    .max_by_key(|(_, t)| t.needed)
                    .expect("an overflow names a queue");
                return Err(RunError::overflow(
                    &plan.queues[i],
                    hosts[i].capacity(),
                    t.needed,
                ));
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
                    capacity: hosts[i].capacity(),
                    seeded: seeds[i].len() as u64,
                    popped: t.done,
                    pushed: t.end_alloc - seeds[i].len() as u64,
                    peak: t.peak,
                }
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
        }
        .totals())
    }
}

/// One run's shared data, as every worker thread sees it.
struct CpuRun<'r> {
    plan: &'r Plan,
    fetches: &'r [u64],
    queues: &'r [CpuQueue],
    control: &'r Control,
    range: u64,
}

impl CpuRun<'_> {
    /// The persistent loop of `worker.cuh`, for one thread.
    fn worker<P: TaskSet>(&self, state: &P::State<'_>) {
        let mut batch = Vec::new();
        let mut idle = 0u32;
        let all = QueueSet(self.queues);
        loop {
            let mut worked = false;
            for task in 0..self.plan.tasks.len() {
                let Some(q) = self.plan.queue_of(task) else {
                    continue;
                };
                let queue = &self.queues[q];
                let n = queue.claim(self.fetches[task], &mut batch);
                if n > 0 {
                    for bits in &batch {
                        P::call(task, *bits, state);
                    }
                    queue.complete(n);
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
                        P::call(hook, i, state);
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
