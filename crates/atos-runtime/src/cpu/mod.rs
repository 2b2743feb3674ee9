//! The CPU executor: the same task functions on CPU threads, with the queue protocol and
//! exact termination of the GPU. It is the oracle for GPU results and the fallback without one.

pub mod queue;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::elem::Elem;
use crate::error::RunError;
use crate::state::{FieldRef, State};
use crate::stats::Stats;
use crate::task::Task;
use queue::{CpuQueue, STATUS_OK, STATUS_OVERFLOW, STATUS_PANICKED};

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

    /// Overrides the task's fetch size (tasks a worker grabs at a time).
    pub fn fetch(mut self, fetch: u32) -> Self {
        self.fetch = Some(fetch.max(1));
        self
    }

    /// Runs `task` from `seeds` until no task is queued or in flight.
    pub fn run<T: Task>(
        &self,
        _task: T,
        state: &T::State<'_>,
        seeds: &[T::Item],
    ) -> Result<Stats, RunError> {
        let fetch = self
            .fetch
            .unwrap_or_else(|| T::ir().task_attrs().map(|a| a.fetch).unwrap_or(1))
            as u64;
        let fields = state.fields();
        let queue_host = fields
            .iter()
            .find_map(|f| match f {
                FieldRef::Queue(q) => Some(*q),
                _ => None,
            })
            .ok_or_else(|| RunError::NoQueue {
                state: <T::State<'_> as State>::desc().name,
            })?;
        let capacity = queue_host.capacity();
        if (seeds.len() as u64) > capacity {
            return Err(RunError::QueueOverflow {
                capacity,
                needed: seeds.len() as u64,
            });
        }
        let seed_bits: Vec<u64> = seeds.iter().map(|s| s.to_bits()).collect();
        let queue = CpuQueue::new(capacity, &seed_bits);
        if !queue_host.bind(&queue) {
            return Err(RunError::AlreadyRunning);
        }
        let panic_message: Mutex<Option<String>> = Mutex::new(None);
        let t0 = Instant::now();
        std::thread::scope(|scope| {
            for _ in 0..self.threads {
                scope.spawn(|| {
                    let result =
                        catch_unwind(AssertUnwindSafe(|| worker_loop::<T>(&queue, state, fetch)));
                    if let Err(payload) = result {
                        let msg = payload
                            .downcast_ref::<String>()
                            .cloned()
                            .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                            .unwrap_or_else(|| "task panicked".into());
                        panic_message.lock().unwrap().get_or_insert(msg);
                        queue.fail(STATUS_PANICKED);
                    }
                });
            }
        });
        let elapsed = t0.elapsed();
        queue_host.unbind();
        let totals = queue.totals();
        match totals.status {
            STATUS_OK => {}
            STATUS_OVERFLOW => {
                return Err(RunError::QueueOverflow {
                    capacity,
                    needed: totals.needed.max(totals.end_alloc),
                });
            }
            _ => {
                return Err(RunError::TaskPanicked {
                    message: panic_message.into_inner().unwrap().unwrap_or_default(),
                });
            }
        }
        Ok(Stats {
            device: format!("CPU ({} threads)", self.threads),
            time: elapsed,
            time_is_gpu_events: false,
            seeded: seeds.len() as u64,
            popped: totals.done,
            pushed: totals.end_alloc - seeds.len() as u64,
            queue_peak: totals.end_alloc,
            workers: self.threads as u64,
            grid: None,
        })
    }
}

fn worker_loop<T: Task>(q: &CpuQueue, state: &T::State<'_>, fetch: u64) {
    let (mut cur, mut lim) = (0u64, 0u64);
    let mut idle = 0u32;
    loop {
        if cur == lim {
            cur = q.grab(fetch);
            lim = cur + fetch;
        }
        let hi = q.published_end().min(lim);
        if cur < hi {
            for slot in cur..hi {
                T::call(T::Item::from_bits(q.item(slot)), state);
            }
            q.complete(hi - cur);
            cur = hi;
            idle = 0;
            continue;
        }
        if q.status() != STATUS_OK || q.terminated() {
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
