use std::fmt;
use std::time::Duration;

use atos_codegen::layout::queue_counters as qc;

/// A queue's pushes (seeds included) and tasks run, from the counter words
/// (`layout::queue_counters`) of the rings its items run from: a push is a reservation in a
/// ring (`end_alloc`), an item a CTA kept, or an inline run; a task is an item done or an
/// inline run. The one definition both executors' stats use (outboxes are hops, not rings
/// items run from: leave them out).
pub(crate) fn pushes_and_tasks<'a>(rings: impl IntoIterator<Item = &'a [u64]>) -> (u64, u64) {
    rings.into_iter().fold((0, 0), |(pushes, tasks), c| {
        (
            pushes + c[qc::END_ALLOC] + c[qc::KEPT] + c[qc::INLINED],
            tasks + c[qc::DONE] + c[qc::INLINED],
        )
    })
}

/// Indices of shared ranges that helpers ran, over the counter words of the rings a queue's
/// items run from (`layout::queue_counters::HELPED`; the CPU executor shares none).
pub(crate) fn helped<'a>(rings: impl IntoIterator<Item = &'a [u64]>) -> u64 {
    rings.into_iter().map(|c| c[qc::HELPED]).sum()
}

/// What a run did with one queue.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueueStats {
    /// The queue field's name.
    pub name: String,
    pub capacity: u64,
    /// Items given to the run for this queue.
    pub seeded: u64,
    /// Items taken and processed.
    pub popped: u64,
    /// Items pushed by tasks and the idle hook.
    pub pushed: u64,
    /// The capacity this run needed, at most: for a ring, the most items alive at once
    /// (pushed, not yet taken) seen by a push; for a linear queue, every push (seeds included).
    pub peak: u64,
    /// Indices of this queue's task's balanced loops that idle CTA groups ran for the group
    /// that posted them (docs/runtime.md, "Shared ranges"): 0 where nothing was shared, and
    /// always on the CPU executor.
    pub helped: u64,
    /// A priority queue's far ring (`<field>.far`): its items are not tasks (the passes move
    /// them to the near or the next ring), so the totals leave it out. The next ring
    /// (`<field>.next`) holds tasks: it is not `far`.
    pub far: bool,
}

/// What a run did with one priority queue (beside the [`QueueStats`] of its three rings).
#[derive(Clone, Debug, PartialEq)]
pub struct PriorityStats {
    /// The field's name.
    pub name: String,
    /// Threshold advances (each opened a pass over the far ring).
    pub advances: u64,
    /// Far items the passes moved to the near or the next ring.
    pub moved: u64,
    /// Far items the passes looked at (moved, or pushed back to the far ring).
    pub examined: u64,
    /// The threshold at the end, encoded (`atos_codegen::keys`; `EVERY_KEY` if unordered).
    pub threshold: u64,
}

/// What one device of a run spread over several devices did (CPU: a simulated device).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceStats {
    /// Where it ran ("NVIDIA H200" or "CPU device 1").
    pub name: String,
    /// Indices the placement gave it.
    pub indices: u64,
    /// Tasks it ran (from its local and its receive rings).
    pub tasks: u64,
    /// Items its tasks pushed to peers' receive rings.
    pub sent: u64,
    /// Items peers pushed to its receive rings.
    pub received: u64,
    /// Bytes of the items it received (item size x items): the queue traffic over the links
    /// into it. Remote atomics and loads on spread arrays are in `remote_ops`.
    pub received_bytes: u64,
    /// Loads, stores and atomics its tasks made on `Atomics` elements in another device's
    /// memory (a `lower` or `raise` answered by the filter copy is not one; a delivery from a
    /// combine copy is). The CPU executor's simulated devices keep one array but count what
    /// the GPUs would (`cpu::mesh::SpreadFields`). Both executors fill it (`Some`) for every
    /// spread run.
    pub remote_ops: Option<u64>,
    /// Elements it delivered from its combine copies (`accumulate` into other devices'
    /// elements): each one add at the element's home, the sum of the device's adds to it since
    /// the last delivery (docs/runtime.md, "Combined adds"). 0 when nothing combines.
    pub delivered: u64,
    /// Spread GPU runs built with `ProgramBuilder::sample_progress` (peer-to-peer): (host
    /// nanoseconds since just before the first launch, items this device had taken: claimed
    /// from its local and receive rings, or kept by the group that pushed them), sampled while the kernels ran; the last entry holds the
    /// final counts, dated at the latest kernel end (its launch's host time plus its
    /// CUDA-event time). Empty otherwise (the CPU executor does not sample).
    pub progress: Vec<(u64, u64)>,
}

/// What a run did.
#[derive(Clone, Debug)]
pub struct Stats {
    /// Where it ran ("NVIDIA H100 80GB HBM3", "CPU (8 threads)").
    pub device: String,
    /// Kernel time from CUDA events on the GPU; wall time on the CPU.
    pub time: Duration,
    pub time_is_gpu_events: bool,
    /// Tasks given to the run, all queues.
    pub seeded: u64,
    /// Tasks processed (popped and run), all queues.
    pub popped: u64,
    /// Tasks pushed by tasks and the idle hook, all queues (a priority queue: pushes into its
    /// near and next rings, the moves of its passes included; not those held in its far ring).
    pub pushed: u64,
    /// The largest per-queue `peak`.
    pub queue_peak: u64,
    /// Per queue, in state declaration order.
    pub queues: Vec<QueueStats>,
    /// Idle-hook sweeps opened after the first (0 without an idle hook).
    pub idle_sweeps: u64,
    /// Worker groups (GPU: threads, warps or CTAs of the program's largest worker kind;
    /// CPU: threads).
    pub workers: u64,
    /// GPU launch shape (blocks, threads per block; for windowed strategies the most blocks
    /// a launch may take).
    pub grid: Option<(u32, u32)>,
    /// How the run was driven.
    pub strategy: atos_codegen::Strategy,
    /// Kernel launches (1 for a persistent GPU run, 0 on the CPU).
    pub launches: u64,
    /// Bulk-synchronous levels: windows of every queue run between barriers (0 otherwise).
    pub levels: u64,
    /// GPU: host wall time of the run's launches, polls and waits (besides `time`).
    pub wall: Option<Duration>,
    /// GPU: time spent uploading the state when the run did (`Program::run`), else `None`.
    pub upload: Option<Duration>,
    /// Persistent GPU runs built with `sample_progress`: (microseconds since the launch,
    /// tasks done in all queues), sampled by the host while the kernel ran.
    pub timeline: Option<Vec<(f64, u64)>>,
    /// The same samples by queue: (the queue's name, its tasks done at each sample of
    /// `timeline`), in the program's queue order.
    pub timeline_queues: Option<Vec<(String, Vec<u64>)>>,
    /// Persistent GPU runs built with `trace_phases`: when the run's phases happened.
    pub phases: Option<PhaseTimes>,
    /// A spread run that sampled its devices' progress (`DeviceStats::progress`) and stopped
    /// sampling on an error: what it was (the run itself went on and ended as any other).
    pub progress_error: Option<String>,
    /// One entry per priority queue.
    pub priority: Vec<PriorityStats>,
    /// A run spread over several devices: one entry per device (empty otherwise). The queue
    /// stats above sum every device's rings.
    pub devices: Vec<DeviceStats>,
}

/// When a persistent GPU run's phases happened (`ProgramBuilder::trace_phases`): microseconds
/// after its first block started its loop, on the GPU's clock. The run's `time` (CUDA events)
/// less `exit_us` is what the launch and the events add around the kernel's loop.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PhaseTimes {
    /// The end of the run's last batch or idle window (0 if no group ran one).
    pub last_work_us: f64,
    /// The first group's sight of the end (quiescence, the idle hook's proof, or a failure).
    pub stop_seen_us: f64,
    /// The last block's exit from its loop.
    pub exit_us: f64,
}

impl PhaseTimes {
    /// From the control block's trace words (`trace_start`, `trace_work`, `trace_stop`,
    /// `trace_exit`, clock nanoseconds); `None` if the run did not trace (a zero start).
    pub fn from_clock(start: u64, work: u64, stop: u64, exit: u64) -> Option<PhaseTimes> {
        let after = |t: u64| t.saturating_sub(start) as f64 / 1e3;
        (start != 0).then(|| PhaseTimes {
            last_work_us: after(work),
            stop_seen_us: after(stop),
            exit_us: after(exit),
        })
    }
}

impl Stats {
    pub(crate) fn totals(mut self) -> Stats {
        let tasks = || self.queues.iter().filter(|q| !q.far);
        self.seeded = tasks().map(|q| q.seeded).sum();
        self.popped = tasks().map(|q| q.popped).sum();
        self.pushed = tasks().map(|q| q.pushed).sum();
        self.queue_peak = self.queues.iter().map(|q| q.peak).max().unwrap_or(0);
        self
    }

    /// The stats of queue `name`.
    pub fn queue(&self, name: &str) -> Option<&QueueStats> {
        self.queues.iter().find(|q| q.name == name)
    }
}

impl fmt::Display for Stats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:.3} ms on {} ({}), {} tasks popped, {} pushed, peak {} alive",
            self.time.as_secs_f64() * 1e3,
            self.device,
            if self.time_is_gpu_events {
                "CUDA events"
            } else {
                "wall clock"
            },
            self.popped,
            self.pushed,
            self.queue_peak
        )?;
        if self.levels > 0 {
            write!(f, ", {} levels", self.levels)?;
        } else if self.launches > 1 {
            write!(f, ", {} launches", self.launches)?;
        }
        if self.idle_sweeps > 0 {
            write!(f, ", {} idle sweeps", self.idle_sweeps + 1)?;
        }
        let helped: u64 = self.queues.iter().map(|q| q.helped).sum();
        if helped > 0 {
            write!(f, ", {helped} shared indices run by helpers")?;
        }
        if !self.devices.is_empty() {
            let sent: u64 = self.devices.iter().map(|d| d.sent).sum();
            write!(
                f,
                ", {} devices, {sent} items sent between them",
                self.devices.len()
            )?;
            if let Some(ops) = self
                .devices
                .iter()
                .map(|d| d.remote_ops)
                .sum::<Option<u64>>()
            {
                write!(f, ", {ops} remote element accesses")?;
            }
            let delivered: u64 = self.devices.iter().map(|d| d.delivered).sum();
            if delivered > 0 {
                write!(f, ", {delivered} combined adds delivered")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::PhaseTimes;

    /// Trace words become microseconds after the start; a run that did not trace (start 0)
    /// has none, and a word left 0 (no group ran a batch) reads as the start.
    #[test]
    fn phase_times_count_from_the_first_start() {
        assert_eq!(PhaseTimes::from_clock(0, 5, 6, 7), None);
        let p = PhaseTimes::from_clock(1_000_000, 1_012_500, 1_020_000, 1_031_000).unwrap();
        assert_eq!(
            (p.last_work_us, p.stop_seen_us, p.exit_us),
            (12.5, 20.0, 31.0)
        );
        let idle = PhaseTimes::from_clock(1_000_000, 0, 1_004_000, 1_009_000).unwrap();
        assert_eq!(idle.last_work_us, 0.0);
    }
}
