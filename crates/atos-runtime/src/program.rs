//! What both executors share about a program: its plan, its seeds per queue, the state's
//! queues and the idle hook's range.

use atos_codegen::item::{MAX_ITEM_BYTES, MAX_TUPLE_PARTS, tuple_layout};
use atos_codegen::layout::EVERY_KEY;
use atos_codegen::{CodegenError, FnIr, Plan, Source, StateDesc, plan_program};

use crate::elem::{ItemBits, QueueItem};
use crate::error::RunError;
use crate::state::{FieldRef, PriorityHost, QueueHost, State};
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

/// Whether a task set `accumulate`s into some `Atomics` field (`Plan::combines`): only such
/// programs have anything to combine when spread over several devices. A set that does not
/// plan (its runs fail with the planning error) accumulates nothing.
pub fn accumulates<P: TaskSet>() -> bool {
    plan_of::<P>().is_ok_and(|(plan, _)| !plan.combines.is_empty())
}

/// Seeds as bits per queue index.
/// A device state runs only programs over the state type it was uploaded from.
pub(crate) fn check_uploaded_from(uploaded: &StateDesc, desc: &StateDesc) -> Result<(), RunError> {
    if uploaded != desc {
        return Err(RunError::Seeds(format!(
            "this device state was uploaded from a `{}`, not the `{}` this program runs on",
            uploaded.name, desc.name
        )));
    }
    Ok(())
}

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

/// A queue field of the state, as the executors bind it.
#[derive(Clone, Copy)]
pub(crate) enum QueueField<'s> {
    Plain(&'s dyn QueueHost),
    Priority(&'s dyn PriorityHost),
}

impl QueueField<'_> {
    pub(crate) fn unbind(&self) {
        match self {
            QueueField::Plain(q) => q.unbind(),
            QueueField::Priority(p) => p.unbind(),
        }
    }
}

/// The state's queue fields, in declaration order.
pub(crate) fn queue_fields<'s>(fields: &[FieldRef<'s>]) -> Vec<QueueField<'s>> {
    fields
        .iter()
        .filter_map(|f| match f {
            FieldRef::Queue(q) => Some(QueueField::Plain(*q)),
            FieldRef::Priority(p) => Some(QueueField::Priority(*p)),
            _ => None,
        })
        .collect()
}

/// One ring of a run, in queue index order: a queue, or a priority queue's near, far or next
/// ring.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ring {
    pub capacity: u64,
    pub linear: bool,
    pub elem_size: usize,
}

/// A priority queue's setup: where the key sits in a far item, its delta and first threshold.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PrioritySetup {
    pub key: atos_codegen::Scalar,
    pub key_offset: u32,
    pub delta: u64,
    pub threshold: u64,
    pub slack: u64,
}

/// The rings of the state's queue fields (`queues`, from [`queue_fields`]) in queue index
/// order, and each priority queue's setup, checked: a far item (the item's parts and the key)
/// must fit a queue slot, and the delta must be above zero.
pub(crate) fn rings(
    desc: &StateDesc,
    queues: &[QueueField<'_>],
) -> Result<(Vec<Ring>, Vec<PrioritySetup>), RunError> {
    let mut rings = Vec::new();
    let mut setups = Vec::new();
    for (f, q) in desc.queues().zip(queues) {
        match q {
            QueueField::Plain(h) => rings.push(Ring {
                capacity: h.capacity(),
                linear: h.linear(),
                elem_size: h.elem_size(),
            }),
            QueueField::Priority(h) => {
                let far = f.far_elem().expect("a priority queue field");
                let parts = far.parts();
                let layout = tuple_layout(parts);
                if parts.len() > MAX_TUPLE_PARTS || layout.size as usize > MAX_ITEM_BYTES {
                    return Err(RunError::Priority {
                        queue: f.name.clone(),
                        message: format!(
                            "its far ring keeps each `{}` item with its key, {} parts in {} bytes, over the {MAX_TUPLE_PARTS} parts and {MAX_ITEM_BYTES} bytes a queue slot holds; use items of at most 3 parts and 12 bytes (e.g. an index into an array)",
                            f.elem.rust_name(),
                            parts.len(),
                            layout.size
                        ),
                    });
                }
                let (delta, valid) = h.delta();
                if !valid {
                    return Err(RunError::Priority {
                        queue: f.name.clone(),
                        message: "its delta must be above zero (and finite): every advance must move the threshold; set it with `.delta(..)`".into(),
                    });
                }
                // An unordered queue never pushes far or next (every key is below EVERY_KEY):
                // those rings are the smallest rings.
                let held_capacity = if h.start_threshold() >= EVERY_KEY {
                    0
                } else {
                    h.capacity()
                };
                // Near, far (keyed items), next: queue index order (`plan::queue_rings`).
                for (capacity, elem_size) in [
                    (h.capacity(), h.elem_size()),
                    (held_capacity, layout.size as usize),
                    (held_capacity, h.elem_size()),
                ] {
                    rings.push(Ring {
                        capacity,
                        linear: false,
                        elem_size,
                    });
                }
                setups.push(PrioritySetup {
                    key: h.key(),
                    key_offset: layout.offsets[parts.len() - 1],
                    delta,
                    threshold: h.start_threshold(),
                    slack: h.slack(),
                });
            }
        }
    }
    Ok((rings, setups))
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
            FieldRef::Queue(_) | FieldRef::Priority(_) => 0,
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

/// Spread runs use rings only: a linear queue's capacity bounds every push of a run, which has
/// no meaning per device.
pub(crate) fn check_spread_rings(
    plan: &Plan,
    rings: &[Ring],
    aggregation: crate::Aggregation,
) -> Result<(), RunError> {
    if let Some(q) = rings.iter().position(|r| r.linear) {
        return Err(RunError::Unsupported(format!(
            "queue `{}` is linear: a program spread over several devices takes ring queues (`Queue::with_capacity`), whose capacity bounds the items alive on each device's rings",
            plan.queues[q]
        )));
    }
    for (name, r) in plan.queues.iter().zip(rings) {
        aggregation
            .check_capacity(name, r.capacity)
            .map_err(RunError::Unsupported)?;
    }
    Ok(())
}
