//! How a program spread over several devices sends the items it pushes to another device:
//! eagerly (each warp's items straight into the owner's receive ring), or aggregated (into a
//! local outbox per destination, forwarded in batches), after the multi-GPU Atos paper's
//! `BATCH_SIZE` and `WAIT_TIME`. Both executors take it: the GPU (`MeshProgram::aggregation`)
//! and the CPU executor's simulated devices (`CpuExecutor::aggregation`).

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// How items pushed to another device travel. `Eager` is the default (over NVLink a remote
/// push is cheap enough; see docs/runtime.md).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Aggregation {
    /// Each push goes straight to the owner's receive ring (one reservation per warp and
    /// destination).
    #[default]
    Eager,
    /// Pushes go to this device's outbox for the owner; an outbox is forwarded (one
    /// reservation and one publication in the owner's ring) once it holds `batch` items, or
    /// once `wait` has passed since its last forward, or, with `idle`, as soon as a worker
    /// group that serves it found nothing else to do in its pass over the queues (so a run's
    /// last items, when most groups are idle, do not wait out `wait` at each hop between
    /// devices).
    Batched {
        batch: u32,
        wait: Duration,
        idle: bool,
    },
}

impl Aggregation {
    /// `Batched`, checked: `batch` at least 1; no idle forwarding.
    pub fn batched(batch: u32, wait: Duration) -> Result<Aggregation, String> {
        if batch == 0 {
            return Err("an aggregation batch holds at least 1 item".into());
        }
        Ok(Aggregation::Batched {
            batch,
            wait,
            idle: false,
        })
    }

    /// The same aggregation, forwarding at once from idle groups (`idle`; eager unchanged).
    pub fn forward_when_idle(self, on: bool) -> Aggregation {
        match self {
            Aggregation::Batched { batch, wait, .. } => Aggregation::Batched {
                batch,
                wait,
                idle: on,
            },
            eager => eager,
        }
    }

    /// The device words: (batch, wait in ns, forward when idle: 0 or 1); batch 0 is eager.
    pub fn words(&self) -> (u64, u64, u64) {
        match *self {
            Aggregation::Eager => (0, 0, 0),
            Aggregation::Batched { batch, wait, idle } => (
                u64::from(batch),
                u64::try_from(wait.as_nanos()).unwrap_or(u64::MAX),
                u64::from(idle),
            ),
        }
    }

    pub fn is_batched(&self) -> bool {
        matches!(self, Aggregation::Batched { .. })
    }

    /// An outbox holds at most its queue's capacity, so a batch above it would never fill:
    /// refused, naming the queue (both executors check before a run).
    pub fn check_capacity(&self, queue: &str, capacity: u64) -> Result<(), String> {
        match *self {
            Aggregation::Batched { batch, .. } if u64::from(batch) > capacity => Err(format!(
                "aggregation batch {batch} is more than queue `{queue}` holds ({capacity} items): an outbox would never fill; use a batch of at most {capacity}"
            )),
            _ => Ok(()),
        }
    }
}

/// `eager`, or `BATCH:WAIT_US` (e.g. `256:20`: forward at 256 items or 20 µs after the last
/// forward), or `BATCH:WAIT_US:idle` (the same, and at once from a group with nothing else to
/// do).
impl FromStr for Aggregation {
    type Err = String;
    fn from_str(s: &str) -> Result<Aggregation, String> {
        let s = s.trim();
        if s == "eager" {
            return Ok(Aggregation::Eager);
        }
        let bad = || {
            format!(
                "bad aggregation `{s}`: use `eager`, BATCH:WAIT_US (e.g. 256:20) or BATCH:WAIT_US:idle"
            )
        };
        let (s_main, idle) = match s.strip_suffix(":idle") {
            Some(rest) => (rest, true),
            None => (s, false),
        };
        let (b, w) = s_main.split_once(':').ok_or_else(bad)?;
        let batch: u32 = b.trim().parse().map_err(|_| bad())?;
        let wait: f64 = w.trim().parse().map_err(|_| bad())?;
        let wait = crate::seconds::seconds_or_zero(wait / 1e6).ok_or_else(|| {
            format!(
                "{}: WAIT_US must be from 0 to {:e} microseconds",
                bad(),
                crate::seconds::MAX_SECONDS * 1e6
            )
        })?;
        Aggregation::batched(batch, wait)
            .map(|a| a.forward_when_idle(idle))
            .map_err(|e| format!("{}: {e}", bad()))
    }
}

impl fmt::Display for Aggregation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Aggregation::Eager => write!(f, "eager"),
            // Whole nanoseconds as microseconds (0.1 prints as 0.1, not 0.09999...).
            Aggregation::Batched { batch, wait, idle } => {
                write!(f, "{batch}:{}", wait.as_nanos() as f64 / 1e3)?;
                if *idle {
                    write!(f, ":idle")?;
                }
                Ok(())
            }
        }
    }
}

/// Positions of a device's combine copies a group delivers per task of each batch it runs, by
/// default, in spread runs that combine `accumulate`s (docs/runtime.md, "Combined adds"): the
/// copies are drained while tasks run, not only by idle sweeps. `MeshProgram::set_drain` and
/// `CpuExecutor::drain` choose another; 0 leaves delivery to the sweeps and the run's end.
pub const COMBINE_DRAIN: u32 = 16;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_both_forms() {
        assert_eq!("eager".parse::<Aggregation>().unwrap(), Aggregation::Eager);
        let a: Aggregation = "256:20".parse().unwrap();
        assert_eq!(
            a,
            Aggregation::Batched {
                batch: 256,
                wait: Duration::from_micros(20),
                idle: false,
            }
        );
        assert_eq!(a.to_string(), "256:20");
        assert_eq!(a.words(), (256, 20_000, 0));
        let i: Aggregation = "1024:50:idle".parse().unwrap();
        assert_eq!(
            i,
            Aggregation::batched(1024, Duration::from_micros(50))
                .unwrap()
                .forward_when_idle(true)
        );
        assert_eq!(i.to_string(), "1024:50:idle");
        assert_eq!(i.words(), (1024, 50_000, 1));
        assert_eq!(
            Aggregation::Eager.forward_when_idle(true),
            Aggregation::Eager
        );
        assert_eq!("0.5:0.5".parse::<Aggregation>().ok(), None);
        assert_eq!("8:0.1".parse::<Aggregation>().unwrap().to_string(), "8:0.1");
        assert!(a.check_capacity("work", 256).is_ok());
        let e = a.check_capacity("work", 255).unwrap_err();
        assert!(e.contains("queue `work`") && e.contains("255"), "{e}");
        assert!(Aggregation::Eager.check_capacity("work", 1).is_ok());
        for bad in [
            "",
            "256",
            "0:5",
            "x:1",
            "8:-1",
            "8:inf",
            "8:1:lazy",
            "8:idle",
            "eager:idle",
        ] {
            let e = bad.parse::<Aggregation>().unwrap_err();
            assert!(e.contains("BATCH:WAIT_US"), "{bad}: {e}");
        }
    }
}
