//! How a compiled program's kernel is driven on the device: one persistent launch, or windowed
//! launches decided by the host (discrete: a launch per newly published window of a queue,
//! several in flight; bulk-synchronous: every queue's window, then a barrier, level by level).
//!
//! A windowed launch runs exactly the items `[lo, hi)` of one queue, all published before it
//! was launched, and its pushes land above every published window: the host reads the
//! counters, launches what is new, and ends the run when every launch has finished and no
//! queue has unlaunched items (nor, with an idle hook, did a whole sweep of it push anything).

use std::ffi::c_void;
use std::sync::Arc;
use std::time::{Duration, Instant};

use atos_codegen::faults::FaultFunction;
use atos_codegen::layout::{
    EVERY_KEY, control as ctl, priority_control as pc, queue_counters as qc, status, window,
};
use atos_codegen::unit::PASS_FETCH;
use atos_codegen::{KernelSpec, Plan, Strategy};
use cudarc::driver::{CudaEvent, CudaStream, sys};

use super::device_state::{Counters, DeviceState};
use super::{Gpu, GpuError, driver_err};
use crate::elem::ItemBits;
use crate::error::RunError;
use crate::stats::{PhaseTimes, PriorityStats, QueueStats, Stats, helped, pushes_and_tasks};

/// What the launches of one run took.
pub(crate) struct Outcome {
    /// GPU time between the first launch and the end of the last (CUDA events).
    pub ms: f64,
    pub launches: u64,
    /// Bulk-synchronous levels (0 for the other strategies).
    pub levels: u64,
    /// Windowed strategies: sweeps of the idle hook run.
    pub sweeps: u64,
    /// Host wall time of the whole drive (launches, polls, waits).
    pub wall: Duration,
    /// Persistent runs with sampling on: (microseconds, tasks done in each queue, in the
    /// program's queue order) while the kernel ran.
    pub timeline: Vec<(f64, Vec<u64>)>,
}

pub(crate) struct Driver<'a> {
    pub program: sys::CUfunction,
    pub spec: &'a KernelSpec,
    pub plan: &'a Plan,
    pub gpu: &'a Gpu,
    pub grid: u32,
    pub timeout: Option<Duration>,
    pub idle_range: u64,
    /// Persistent runs: sample the tasks done this often while the kernel runs.
    pub sample_every: Option<Duration>,
    /// The unit's functions in fault-site order, to name a fault's function.
    pub fault_functions: &'a [FaultFunction],
}

impl Driver<'_> {
    /// Drives the run. A timeout's error carries the counters as they were when it struck
    /// (read on a stream of their own while the kernel still runs, as `sample` reads them):
    /// which queue held items, what was claimed and done, where a priority queue's threshold
    /// stood.
    pub fn run(&self, dev: &DeviceState<'_>, main: &Arc<CudaStream>) -> Result<Outcome, GpuError> {
        self.drive(dev, main).map_err(|e| match e {
            GpuError::Timeout { seconds, .. } => GpuError::Timeout {
                seconds,
                state: self.state_at_timeout(dev),
            },
            e => e,
        })
    }

    fn state_at_timeout(&self, dev: &DeviceState<'_>) -> String {
        let counters = self
            .gpu
            .ctx()
            .new_stream()
            .map_err(driver_err("creating a stream"))
            .and_then(|poll| dev.read_counters(&poll));
        // A stamped unit's rings keep `end` and the read_* words at the seeds (their slots'
        // stamps say what is written), which the report should not read as a stuck publication.
        let traits = atos_codegen::unit::BoundTraits::of(self.plan);
        let stamped = if self.spec.stamps_rings(traits) {
            " (stamped rings: `end` stays at the seeds, `end_count` counts approved pushes)"
        } else {
            ""
        };
        match counters {
            Ok(c) => format!(
                "; the run state at the timeout{stamped} (include it in the report): {}",
                describe_counters(
                    &self.plan.queues,
                    &self
                        .plan
                        .priority
                        .iter()
                        .map(|p| p.near)
                        .collect::<Vec<_>>(),
                    &c
                )
            ),
            Err(e) => format!("; the run state could not be read: {e}"),
        }
    }

    fn drive(&self, dev: &DeviceState<'_>, main: &Arc<CudaStream>) -> Result<Outcome, GpuError> {
        let t0 = Instant::now();
        // A timeout too long for an `Instant` is no deadline.
        let deadline = self.timeout.and_then(|t| t0.checked_add(t).map(|d| (d, t)));
        let start = self.event()?;
        start
            .record(main)
            .map_err(driver_err("recording the start event"))?;
        let mut timeline = Vec::new();
        let (launches, levels, sweeps) = match self.spec.strategy {
            Strategy::Persistent => {
                self.launch(dev, main, self.grid, None)?;
                if let Some(every) = self.sample_every {
                    self.sample(dev, main, every, deadline, &mut timeline)?;
                }
                (1, 0, 0)
            }
            Strategy::Discrete | Strategy::Bsp => self.windowed(dev, main, deadline)?,
        };
        let stop = self.event()?;
        stop.record(main)
            .map_err(driver_err("recording the stop event"))?;
        wait(&stop, deadline)?;
        let ms = start
            .elapsed_ms(&stop)
            .map_err(driver_err("reading the event timer"))?;
        Ok(Outcome {
            ms: f64::from(ms),
            launches,
            levels,
            sweeps,
            wall: t0.elapsed(),
            timeline,
        })
    }

    /// Samples the tasks done in each queue every `every` while the persistent launch runs, on
    /// a stream of its own: (host microseconds since the first sample, tasks done per queue). The first
    /// sample is taken right after the launch call, so times are offset by the launch latency.
    fn sample(
        &self,
        dev: &DeviceState<'_>,
        main: &Arc<CudaStream>,
        every: Duration,
        deadline: Option<(Instant, Duration)>,
        out: &mut Vec<(f64, Vec<u64>)>,
    ) -> Result<(), GpuError> {
        let poll = self
            .gpu
            .ctx()
            .new_stream()
            .map_err(driver_err("creating a stream"))?;
        let end = self.recorded(main)?;
        let t0 = Instant::now();
        loop {
            let done_now = end
                .try_is_complete()
                .map_err(driver_err("running the kernel"))?;
            let c = dev.read_counters(&poll)?;
            let done: Vec<u64> = c.queues.iter().map(|q| q[qc::DONE]).collect();
            out.push((t0.elapsed().as_secs_f64() * 1e6, done));
            if done_now {
                return Ok(());
            }
            check_deadline(deadline)?;
            let next = Instant::now() + every;
            while Instant::now() < next {
                std::hint::spin_loop();
            }
        }
    }

    fn event(&self) -> Result<CudaEvent, GpuError> {
        self.gpu
            .ctx()
            .new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))
            .map_err(driver_err("creating an event"))
    }

    /// Launches the kernel with `grid` blocks on `stream`; windowed kernels take `window`.
    fn launch(
        &self,
        dev: &DeviceState<'_>,
        stream: &CudaStream,
        grid: u32,
        window: Option<[u8; window::BYTES]>,
    ) -> Result<(), GpuError> {
        let mut arg = dev.packed.clone();
        let mut control = dev.control;
        let mut window = window.unwrap_or([0; window::BYTES]);
        let mut params = [
            arg.as_mut_ptr() as *mut c_void,
            (&mut control) as *mut u64 as *mut c_void,
            window.as_mut_ptr() as *mut c_void,
        ];
        let n = if self.spec.strategy.windowed() { 3 } else { 2 };
        // SAFETY: the kernel takes the by-value state struct, whose layout `generate_unit`
        // asserts (static_assert on its size) to match `packed`, a pointer to the control
        // block and, windowed, an `atos::Window` (layout.rs); every pointer in them is a live
        // allocation owned by `dev`. The driver copies the parameters at launch.
        unsafe {
            cudarc::driver::result::launch_kernel(
                self.program,
                (grid.max(1), 1, 1),
                (self.spec.block_size, 1, 1),
                0,
                stream.cu_stream(),
                &mut params[..n],
            )
        }
        .map_err(driver_err("launching the kernel"))
    }

    /// Blocks for a window of `n` items of the task at `task` (or the idle hook), at most
    /// `cap`: each block takes (block / worker threads) x fetch items per round.
    fn window_grid(&self, task: usize, n: u64, cap: u32) -> u32 {
        let ts = &self.spec.tasks[task];
        let per_block = u64::from(self.spec.block_size / self.spec.worker_threads(ts.worker))
            * u64::from(ts.fetch);
        n.div_ceil(per_block.max(1)).clamp(1, u64::from(cap.max(1))) as u32
    }

    /// The windowed host loop. Returns (launches, levels, sweeps). A timeout returns at once,
    /// as for a persistent launch: a launch that never ends (a task that spins) cannot be
    /// waited for, and the context cannot be used after it.
    fn windowed(
        &self,
        dev: &DeviceState<'_>,
        main: &Arc<CudaStream>,
        deadline: Option<(Instant, Duration)>,
    ) -> Result<(u64, u64, u64), GpuError> {
        let bsp = self.spec.strategy == Strategy::Bsp;
        let ctx = self.gpu.ctx();
        let n_queues = dev.queues.len();
        // Discrete: a stream per queue, one launch in flight on each (a queue's windows run in
        // order: a push may wait for an item of the queue's earlier window, which must be
        // handed out, never queued behind it); together they fit on the device at once.
        let streams: Vec<Arc<CudaStream>> = if bsp {
            vec![main.clone()]
        } else {
            (0..n_queues)
                .map(|_| ctx.new_stream().map_err(driver_err("creating a stream")))
                .collect::<Result<_, _>>()?
        };
        let cap = if bsp {
            self.grid
        } else {
            (self.grid / n_queues.max(1) as u32).max(1)
        };
        let poll = ctx.new_stream().map_err(driver_err("creating a stream"))?;
        let mut busy: Vec<Option<CudaEvent>> = (0..n_queues).map(|_| None).collect();
        let mut launched = vec![0u64; n_queues];
        let (mut launches, mut levels, mut sweeps) = (0u64, 0u64, 0u64);
        let hook = self.plan.idle().filter(|_| self.idle_range > 0);
        loop {
            check_deadline(deadline)?;
            let c = dev.read_counters(&poll)?;
            if c.control[ctl::STATUS] != status::OK {
                break;
            }
            let mut any = false;
            for q in 0..n_queues {
                if self.plan.far_of(q).is_some() {
                    continue; // passes over a far ring run when nothing else is left
                }
                if self.plan.next_of(q).is_some() {
                    continue; // empty: windowed runs keep the band end at the threshold
                }
                let (lo, hi) = (launched[q], c.queues[q][qc::END]);
                if hi <= lo || !lane_free(&mut busy[q])? {
                    continue;
                }
                let task = self
                    .plan
                    .consumer(q)
                    .expect("planned queues have a consumer");
                let stream = &streams[if bsp { 0 } else { q }];
                dev.set_window_start(stream, q, lo)?;
                let grid = self.window_grid(task, hi - lo, cap);
                self.launch(dev, stream, grid, Some(window::pack(q as u32, lo, hi)))?;
                if !bsp {
                    busy[q] = Some(self.recorded(stream)?);
                }
                launched[q] = hi;
                launches += 1;
                any = true;
            }
            if any {
                if bsp {
                    levels += 1;
                    wait(&self.recorded(main)?, deadline)?;
                }
                continue;
            }
            if busy
                .iter()
                .flatten()
                .any(|e| !e.try_is_complete().unwrap_or(true))
            {
                std::thread::yield_now();
                continue;
            }
            // Every launch has finished: whatever they pushed is published now.
            let c = dev.read_counters(&poll)?;
            if c.control[ctl::STATUS] != status::OK {
                break;
            }
            if (0..n_queues)
                .any(|q| self.plan.far_of(q).is_none() && c.queues[q][qc::END] > launched[q])
            {
                continue;
            }
            // Nothing else left: advance the threshold of every priority queue holding far
            // items and run one pass over them (as the CPU executor's bulk-synchronous levels).
            let mut passes = 0;
            for (k, p) in self.plan.priority.iter().enumerate() {
                let (lo, hi) = (launched[p.far], c.queues[p.far][qc::END]);
                if hi <= lo {
                    continue;
                }
                let w = &c.priority[k];
                let next = atos_codegen::keys::next_threshold(
                    p.key,
                    w[pc::THRESHOLD],
                    w[pc::DELTA],
                    w[pc::PASS_MIN],
                );
                let stream = &streams[if bsp { 0 } else { p.far }];
                dev.set_priority_words(
                    stream,
                    k,
                    &[
                        (pc::THRESHOLD, next),
                        (pc::BAND_END, next),
                        (pc::PASS_MIN, EVERY_KEY),
                        (pc::ADVANCES, w[pc::ADVANCES] + 1),
                    ],
                )?;
                dev.set_window_start(stream, p.far, lo)?;
                let per_block = u64::from(self.spec.block_size * PASS_FETCH);
                let grid = (hi - lo)
                    .div_ceil(per_block)
                    .clamp(1, u64::from(cap.max(1))) as u32;
                self.launch(dev, stream, grid, Some(window::pack(p.far as u32, lo, hi)))?;
                if !bsp {
                    busy[p.far] = Some(self.recorded(stream)?);
                }
                launched[p.far] = hi;
                launches += 1;
                passes += 1;
            }
            if passes > 0 {
                if bsp {
                    levels += 1;
                    wait(&self.recorded(main)?, deadline)?;
                }
                continue;
            }
            let Some(hook) = hook else { break };
            let before = pushes(&c);
            let grid = self.window_grid(hook, self.idle_range, self.grid);
            self.launch(
                dev,
                &streams[0],
                grid,
                Some(window::pack(n_queues as u32, 0, self.idle_range)),
            )?;
            launches += 1;
            sweeps += 1;
            if bsp {
                levels += 1;
            }
            wait(&self.recorded(&streams[0])?, deadline)?;
            if pushes(&dev.read_counters(&poll)?) == before {
                break;
            }
        }
        // The stop event (on `main`) comes after every launch.
        for s in streams.iter().filter(|s| !Arc::ptr_eq(s, main)) {
            let e = self.recorded(s)?;
            main.wait(&e).map_err(driver_err("joining the streams"))?;
        }
        Ok((launches, levels, sweeps))
    }

    fn recorded(&self, stream: &CudaStream) -> Result<CudaEvent, GpuError> {
        let e = self.event()?;
        e.record(stream).map_err(driver_err("recording an event"))?;
        Ok(e)
    }
}

/// Every push of the run so far, all queues.
fn pushes(c: &Counters) -> u64 {
    c.queues.iter().map(|q| q[qc::END_ALLOC]).sum()
}

/// Whether a queue's stream has no launch in flight (forgetting a finished one).
fn lane_free(slot: &mut Option<CudaEvent>) -> Result<bool, GpuError> {
    let free = match slot {
        None => true,
        Some(e) => e
            .try_is_complete()
            .map_err(driver_err("running the kernel"))?,
    };
    if free {
        *slot = None;
    }
    Ok(free)
}

/// The counter words of a run that are not 0, by their layout names: `control {..}`, then each
/// queue's ring by name (`queues`, in queue index order), then each priority queue's words,
/// named by its near ring (`priority_near`: that ring's queue index, one per priority queue).
pub(crate) fn describe_counters(
    queues: &[String],
    priority_near: &[usize],
    c: &Counters,
) -> String {
    fn words(names: &[(&str, &str)], values: &[u64]) -> String {
        let set: Vec<String> = names
            .iter()
            .zip(values)
            .filter(|&(_, &v)| v != 0)
            .map(|((name, _), v)| format!("{name}={v}"))
            .collect();
        format!("{{{}}}", set.join(" "))
    }
    let mut parts = vec![format!("control {}", words(ctl::WORDS, &c.control))];
    for (name, q) in queues.iter().zip(&c.queues) {
        parts.push(format!("{name} {}", words(qc::WORDS, q)));
    }
    for (&near, w) in priority_near.iter().zip(&c.priority) {
        parts.push(format!("{} priority {}", queues[near], words(pc::WORDS, w)));
    }
    parts.join("; ")
}

pub(super) fn check_deadline(deadline: Option<(Instant, Duration)>) -> Result<(), GpuError> {
    match deadline {
        Some((at, limit)) if Instant::now() > at => Err(GpuError::Timeout {
            seconds: limit.as_secs_f64(),
            state: String::new(),
        }),
        _ => Ok(()),
    }
}

/// Waits for `event`, failing past the deadline instead of waiting for ever.
fn wait(event: &CudaEvent, deadline: Option<(Instant, Duration)>) -> Result<(), GpuError> {
    if deadline.is_none() {
        return event
            .synchronize()
            .map_err(driver_err("running the kernel"));
    }
    // Short waits (a level, a window) spin; long ones sleep between looks.
    let t0 = Instant::now();
    loop {
        if event
            .try_is_complete()
            .map_err(driver_err("running the kernel"))?
        {
            return Ok(());
        }
        check_deadline(deadline)?;
        if t0.elapsed() < Duration::from_millis(2) {
            std::hint::spin_loop();
        } else {
            std::thread::sleep(Duration::from_micros(100));
        }
    }
}

impl Driver<'_> {
    /// A run's stats from its counters, or the overflow it hit.
    pub(crate) fn stats(
        &self,
        dev: &DeviceState<'_>,
        seeds: &[Vec<ItemBits>],
        counters: &Counters,
        outcome: Outcome,
    ) -> Result<Stats, RunError> {
        let (plan, spec, gpu, grid) = (self.plan, self.spec, self.gpu, self.grid);
        let mut queue_stats = Vec::new();
        let mut overflow: Option<(usize, u64)> = None;
        for (i, (q, c)) in dev.queues.iter().zip(&counters.queues).enumerate() {
            let seeded = seeds[i].len() as u64;
            if c[qc::NEEDED] > 0 && overflow.is_none_or(|(_, n)| c[qc::NEEDED] > n) {
                overflow = Some((i, c[qc::NEEDED]));
            }
            let (pushes, tasks) = pushes_and_tasks([&c[..]]);
            queue_stats.push(QueueStats {
                name: plan.queues[i].clone(),
                capacity: q.capacity,
                seeded,
                popped: tasks,
                pushed: pushes - seeded,
                // A linear queue's peak is every push (no extra atomic on its hot path).
                peak: if q.linear {
                    c[qc::END_ALLOC]
                } else {
                    c[qc::PEAK]
                },
                helped: helped([&c[..]]),
                far: plan.far_of(i).is_some(),
            });
        }
        let priority = plan
            .priority
            .iter()
            .zip(&counters.priority)
            .map(|(p, w)| PriorityStats {
                name: plan.queues[p.near].clone(),
                advances: w[pc::ADVANCES],
                moved: w[pc::MOVED],
                examined: counters.queues[p.far][qc::DONE],
                threshold: w[pc::THRESHOLD],
            })
            .collect();
        // A fault first: an overflow that follows it may be its consequence.
        if counters.control[ctl::FAULT] != 0 {
            return Err(RunError::fault(
                counters.control[ctl::FAULT],
                self.fault_functions,
            ));
        }
        if counters.control[ctl::STATUS] != status::OK {
            let (i, needed) = overflow.unwrap_or((0, 0));
            return Err(RunError::overflow(
                &plan.queues[i],
                dev.queues[i].capacity,
                needed,
            ));
        }
        let persistent = spec.strategy == Strategy::Persistent;
        Ok(Stats {
            device: gpu.name().to_string(),
            time: Duration::from_secs_f64(outcome.ms / 1e3),
            time_is_gpu_events: true,
            seeded: 0,
            popped: 0,
            pushed: 0,
            queue_peak: 0,
            queues: queue_stats,
            idle_sweeps: if persistent {
                counters.control[ctl::IDLE_SWEEPS]
            } else {
                outcome.sweeps.saturating_sub(1)
            },
            workers: spec.groups(grid),
            grid: Some((grid, spec.block_size)),
            strategy: spec.strategy,
            launches: outcome.launches,
            levels: outcome.levels,
            wall: Some(outcome.wall),
            upload: None,
            timeline: (!outcome.timeline.is_empty()).then(|| {
                outcome
                    .timeline
                    .iter()
                    .map(|(us, done)| (*us, done.iter().sum()))
                    .collect()
            }),
            phases: PhaseTimes::from_clock(
                counters.control[ctl::TRACE_START],
                counters.control[ctl::TRACE_WORK],
                counters.control[ctl::TRACE_STOP],
                counters.control[ctl::TRACE_EXIT],
            ),
            timeline_queues: (!outcome.timeline.is_empty()).then(|| {
                plan.queues
                    .iter()
                    .enumerate()
                    .map(|(i, name)| {
                        let done = outcome.timeline.iter().map(|(_, d)| d[i]).collect();
                        (name.clone(), done)
                    })
                    .collect()
            }),
            progress_error: None,
            priority,
            devices: Vec::new(),
        }
        .totals())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_timeout_names_the_counter_words_that_are_set() {
        let mut control = vec![0; ctl::WORDS.len()];
        control[ctl::STATUS] = status::OVERFLOW;
        let mut near = vec![0; qc::WORDS.len()];
        near[qc::START] = 14;
        near[qc::END_ALLOC] = 66;
        near[qc::DONE] = 10;
        let far = vec![0; qc::WORDS.len()];
        let mut prio = vec![0; pc::WORDS.len()];
        prio[pc::THRESHOLD] = 2;
        let counters = Counters {
            control,
            queues: vec![near, far],
            priority: vec![prio],
        };
        let names = ["work".to_string(), "work.far".to_string()];
        assert_eq!(
            describe_counters(&names, &[0], &counters),
            "control {status=1}; work {start=14 end_alloc=66 done=10}; work.far {}; work priority {threshold=2}"
        );
    }
}
