//! What both executors share about a program: its plan, its seeds per queue, the state's
//! queues and the idle hook's range.

use atos_codegen::{CodegenError, FnIr, Plan, Source, plan_program};

use crate::elem::{ItemBits, QueueItem};
use crate::error::RunError;
use crate::state::{FieldRef, QueueHost, State};
use crate::task::{Task, TaskSet};

/// Initial items of a run, per task: `Seeds::new().add(color::Task, &vertices)` puts the
/// vertices in the queue `color` pops.
#[derive(Clone, Debug, Default)]
pub struct Seeds {
    by_task: Vec<(&'static str, Vec<ItemBits>)>,
}

impl Seeds {
    pub fn new() -> Seeds {
        Seeds::default()
    }

    /// Adds `items` for `task` (typed: they are the task's own item type).
    pub fn add<T: Task>(self, _task: T, items: &[T::Item]) -> Seeds {
        self.add_for::<T>(items)
    }

    pub(crate) fn add_for<T: Task>(mut self, items: &[T::Item]) -> Seeds {
        let name = T::ir().name.as_str();
        let bits = items.iter().map(|i| i.to_item_bits());
        match self.by_task.iter_mut().find(|(n, _)| *n == name) {
            Some((_, v)) => v.extend(bits),
            None => self.by_task.push((name, bits.collect())),
        }
        self
    }
}

/// A task set's plan against its state.
pub(crate) fn plan_of<P: TaskSet>() -> Result<(Plan, Vec<&'static FnIr>), CodegenError> {
    let irs = P::irs();
    let plan = plan_program(&irs, &P::device_fns(), &<P::State<'_> as State>::desc())?;
    Ok((plan, irs))
}

/// Seeds as bits per queue index.
pub(crate) fn seeds_per_queue(plan: &Plan, seeds: &Seeds) -> Result<Vec<Vec<ItemBits>>, RunError> {
    let mut out = vec![Vec::new(); plan.queues.len()];
    for (name, items) in &seeds.by_task {
        let task = plan.tasks.iter().find(|t| t.name == *name).ok_or_else(|| {
            RunError::Seeds(format!(
                "task `{name}` is not part of this program; seed one of: {}",
                plan.tasks
                    .iter()
                    .map(|t| format!("`{}`", t.name))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })?;
        match task.source {
            Source::Queue { queue, .. } => out[queue].extend_from_slice(items),
            Source::Idle { .. } if items.is_empty() => {}
            Source::Idle { .. } => {
                return Err(RunError::Seeds(format!(
                    "`{name}` is an idle hook: it sweeps its range by itself and takes no seeds"
                )));
            }
        }
    }
    Ok(out)
}

/// The state's queue fields, in queue index order.
pub(crate) fn queue_fields<'s>(fields: &[FieldRef<'s>]) -> Vec<&'s dyn QueueHost> {
    fields
        .iter()
        .filter_map(|f| match f {
            FieldRef::Queue(q) => Some(*q),
            _ => None,
        })
        .collect()
}

/// Checks seeds against capacities.
pub(crate) fn check_seed_room(
    plan: &Plan,
    capacities: &[u64],
    seeds: &[Vec<ItemBits>],
) -> Result<(), RunError> {
    for ((name, &capacity), s) in plan.queues.iter().zip(capacities).zip(seeds) {
        if s.len() as u64 > capacity {
            return Err(RunError::overflow(name, capacity, s.len() as u64));
        }
    }
    Ok(())
}

/// What an idle hook over each field would sweep: a scalar's value, an array's length (0 for
/// queues).
pub(crate) fn field_values(fields: &[FieldRef<'_>]) -> Vec<u64> {
    fields
        .iter()
        .map(|f| match f {
            FieldRef::Scalar(bits) => *bits,
            FieldRef::Slice { len, .. } => *len as u64,
            FieldRef::Atomics(a) => a.len() as u64,
            FieldRef::Queue(_) => 0,
        })
        .collect()
}

/// Largest range an idle hook may sweep (the sweep cursor keeps the index in 40 bits, with
/// room for every group's window past the end).
pub const MAX_IDLE_RANGE: u64 = 1 << 36;

/// The number of indices the idle hook sweeps (0 without a hook), checked against its index
/// type and the cursor's width.
pub(crate) fn idle_range(plan: &Plan, irs: &[&FnIr], values: &[u64]) -> Result<u64, RunError> {
    let Some(hook) = plan.idle() else {
        return Ok(0);
    };
    let Source::Idle { range_field } = plan.tasks[hook].source else {
        return Ok(0);
    };
    let range = values[range_field];
    let index = irs[hook].params[0].ty;
    let most = match index {
        atos_codegen::Scalar::U32 => 1u64 << 32,
        _ => MAX_IDLE_RANGE,
    }
    .min(MAX_IDLE_RANGE);
    if range > most {
        return Err(RunError::IdleRange(format!(
            "idle hook `{}` would sweep {range} indices; with `{}` indices it can sweep at most {most}",
            plan.tasks[hook].name,
            index.rust_name()
        )));
    }
    Ok(range)
}
