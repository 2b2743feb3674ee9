//! A state's fields on the device, uploaded once and reused by every run: read-only arrays stay
//! as they are, and each run resets what runs mutate (the `Atomics` fields, from a pristine
//! device copy taken at upload; the queues' seeds and counters; the control block).

use std::sync::Arc;
use std::time::{Duration, Instant};

use atos_codegen::StateDesc;
use atos_codegen::layout::{
    EVERY_KEY, control as ctl, pack_words, priority_control as pc, queue_counters as qc,
    stamp_bytes, stamp_written, stamps_offset, unpack_words, word_offset,
};
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, result, sys};

use super::{Gpu, GpuError, driver_err};
use crate::arrays::ring_slots;
use crate::elem::ItemBits;
use crate::error::RunError;
use crate::program::{PrioritySetup, Ring, queue_fields, rings};
use crate::state::{AtomicHost, FieldRef, State};

/// One `Atomics` field on the device.
struct AtomicBuf<'s> {
    host: &'s dyn AtomicHost,
    live: u64,
    pristine: u64,
    bytes: usize,
}

/// One queue on the device.
pub(crate) struct QueueBuf {
    pub capacity: u64,
    pub linear: bool,
    items: u64,
    elem_size: usize,
    /// The slot stamps after the slots (queue.cuh `QueueRef::stamps`): allocated by the first
    /// run of a unit that stamps its rings ([`DeviceState::ensure_stamps`]), reset by each.
    stamps: Option<Stamps>,
    /// Where the ring's words sit in `packed`, and its slots in `buffers`.
    at: RingAt,
    /// A priority queue's next ring left at the smallest ring (capacity 0 on the device) by a
    /// windowed program's upload ([`DeviceState::ensure_next_rings`]). `capacity` is the one a
    /// persistent run gets.
    deferred: bool,
}

/// Where a ring's slot stamps sit: address, and the slots (one 32-bit stamp each).
#[derive(Clone, Copy)]
struct Stamps {
    at: u64,
    slots: u64,
}

#[derive(Clone, Copy)]
struct RingAt {
    packed_at: usize,
    buffer: usize,
}

/// A state's device copy, bound to the host state it was uploaded from (its `Atomics` results
/// are copied back there). Made by [`Program::upload`](super::Program::upload).
pub struct DeviceState<'s> {
    pub(crate) gpu: Gpu,
    pub(crate) desc: StateDesc,
    /// The kernel's state argument (pointers into the buffers below).
    pub(crate) packed: Vec<u8>,
    /// Control block, then each queue's counters, then each priority queue's control words:
    /// one buffer, read back with one copy.
    pub(crate) control: u64,
    /// Every ring, in queue index order.
    pub(crate) queues: Vec<QueueBuf>,
    /// Each priority queue's first threshold and delta.
    pub(crate) priority: Vec<PrioritySetup>,
    /// Per field, what an idle hook over it sweeps (`program::field_values`).
    pub(crate) field_values: Vec<u64>,
    atomics: Vec<AtomicBuf<'s>>,
    /// Owns every allocation above.
    buffers: Vec<CudaSlice<u8>>,
    upload_time: Duration,
    uploaded_bytes: u64,
}

/// Bytes of the control buffer: the control block, one counter block per ring, one priority
/// control block per priority queue.
pub(crate) fn control_bytes(queues: usize, priority: usize) -> usize {
    ctl::BYTES + queues * qc::BYTES + priority * pc::BYTES
}

/// A scalar field's packing: its `size` low bytes in an 8-byte slot (the state struct's
/// `alignas(8)` member).
pub(crate) fn scalar_slot(bits: u64, size: usize) -> [u8; 8] {
    let mut slot = [0u8; 8];
    slot[..size].copy_from_slice(&bits.to_le_bytes()[..size]);
    slot
}

impl<'s> DeviceState<'s> {
    /// Allocates and uploads every field of `state` on `stream` (waits for the copies). Only
    /// persistent runs use a priority queue's next ring: without `next_rings` each is left at
    /// the smallest ring until a persistent run needs it ([`ensure_next_rings`](Self::ensure_next_rings)).
    pub(crate) fn upload<S: State>(
        gpu: &Gpu,
        stream: &Arc<CudaStream>,
        state: &'s S,
        next_rings: bool,
    ) -> Result<DeviceState<'s>, RunError> {
        let t0 = Instant::now();
        let desc = S::desc();
        let fields = state.fields();
        let (ring_list, setups) = rings(&desc, &queue_fields(&fields))?;
        let n_queues = ring_list.len();
        let mut arena = Arena::new(stream);
        let control = arena.alloc(control_bytes(n_queues, setups.len()), None)?;
        let mut packed = Vec::new();
        let mut atomics = Vec::new();
        let mut queues = Vec::new();
        let mut priority_blocks = 0;
        for (field, fd) in fields.iter().zip(&desc.fields) {
            match field {
                FieldRef::Slice { bytes, len } => {
                    let ptr = arena.alloc(bytes.len(), Some(bytes))?;
                    packed.extend_from_slice(&ptr.to_le_bytes());
                    packed.extend_from_slice(&(*len as u64).to_le_bytes());
                }
                FieldRef::Atomics(a) => {
                    let data = a.read_bytes();
                    let pristine = arena.alloc(data.len(), Some(&data))?;
                    let live = arena.alloc(data.len(), None)?;
                    atomics.push(AtomicBuf {
                        host: *a,
                        live,
                        pristine,
                        bytes: data.len(),
                    });
                    packed.extend_from_slice(&live.to_le_bytes());
                    packed.extend_from_slice(&(a.len() as u64).to_le_bytes());
                }
                FieldRef::Queue(_) | FieldRef::Priority(_) => {
                    let prio = matches!(field, FieldRef::Priority(_));
                    for ring in 0..if prio { 3 } else { 1 } {
                        let r: Ring = ring_list[queues.len()];
                        // The next ring (near, far, next: `program::rings`) of a program that
                        // never opens it starts at capacity 0, the smallest ring.
                        let small = prio && ring == 2 && !next_rings && r.capacity > 0;
                        let capacity = if small { 0 } else { r.capacity };
                        let (items, stamps, words) = ring_words(&mut arena, r, capacity, false)?;
                        let at = RingAt {
                            packed_at: packed.len(),
                            buffer: arena.buffers.len() - 1,
                        };
                        let counters = control + (ctl::BYTES + queues.len() * qc::BYTES) as u64;
                        for word in [words[0], counters, words[1], words[2]] {
                            packed.extend_from_slice(&word.to_le_bytes());
                        }
                        queues.push(QueueBuf {
                            capacity: r.capacity,
                            linear: r.linear,
                            items,
                            elem_size: r.elem_size,
                            stamps,
                            at,
                            deferred: small,
                        });
                    }
                    if prio {
                        let k = priority_blocks;
                        priority_blocks += 1;
                        let at =
                            control + (ctl::BYTES + n_queues * qc::BYTES + k * pc::BYTES) as u64;
                        packed.extend_from_slice(&at.to_le_bytes());
                    }
                }
                FieldRef::Scalar(bits) => {
                    packed.extend_from_slice(&scalar_slot(*bits, fd.elem.size_bytes()));
                }
            }
        }
        debug_assert_eq!(packed.len(), atos_codegen::state_size(&desc));
        stream
            .synchronize()
            .map_err(driver_err("copying state to the device"))?;
        Ok(DeviceState {
            gpu: gpu.clone(),
            desc,
            packed,
            control,
            queues,
            priority: setups,
            field_values: crate::program::field_values(&fields),
            atomics,
            uploaded_bytes: arena.uploaded,
            buffers: arena.buffers,
            upload_time: t0.elapsed(),
        })
    }

    /// Gives every priority queue's next ring the capacity a persistent run needs, if the
    /// upload left it small (a windowed program uploaded the state): allocates it and points
    /// the state's words at it. Nothing else changes, so a device state serves programs of
    /// every strategy, and holds the next rings only once one of them needs them.
    pub(crate) fn ensure_next_rings(&mut self, stream: &Arc<CudaStream>) -> Result<(), GpuError> {
        let mut arena = Arena::new(stream);
        for i in 0..self.queues.len() {
            if self.queues[i].deferred {
                self.reallocate_ring(&mut arena, i, false)?;
            }
        }
        Ok(())
    }

    /// Gives every ring (not the linear queues) its slot stamps, if it has none: a unit that
    /// stamps its rings ([`KernelSpec::stamps_rings`](atos_codegen::KernelSpec::stamps_rings))
    /// is about to run. The stamps (4 bytes a slot) are held only once such a unit runs.
    pub(crate) fn ensure_stamps(&mut self, stream: &Arc<CudaStream>) -> Result<(), GpuError> {
        let mut arena = Arena::new(stream);
        for i in 0..self.queues.len() {
            let q = &self.queues[i];
            if !q.linear && q.stamps.is_none() {
                self.reallocate_ring(&mut arena, i, true)?;
            }
        }
        Ok(())
    }

    /// Allocates queue `i`'s slots anew at its full capacity, with slot stamps if `stamped`,
    /// and points the state's words at them. The old slots go: no run is in flight between
    /// runs, and each run writes its seeds.
    fn reallocate_ring(
        &mut self,
        arena: &mut Arena<'_>,
        i: usize,
        stamped: bool,
    ) -> Result<(), GpuError> {
        let q = &mut self.queues[i];
        let r = Ring {
            capacity: q.capacity,
            linear: q.linear,
            elem_size: q.elem_size,
        };
        let (items, stamps, [item_word, capacity_word, mask_word]) =
            ring_words(arena, r, q.capacity, stamped)?;
        // The ring's words: items, counters (unchanged), capacity, mask.
        for (k, word) in [(0, item_word), (2, capacity_word), (3, mask_word)] {
            let at = q.at.packed_at + 8 * k;
            self.packed[at..at + 8].copy_from_slice(&word.to_le_bytes());
        }
        q.items = items;
        q.stamps = stamps;
        q.deferred = false;
        self.buffers[q.at.buffer] = arena.buffers.pop().expect("the ring just allocated");
        Ok(())
    }

    /// Bytes of device memory this state holds: its fields, their pristine copies, the queues'
    /// rings and the control block.
    pub fn device_bytes(&self) -> u64 {
        self.buffers.iter().map(|b| b.len() as u64).sum()
    }

    /// Wall time of the upload (allocation and copies).
    pub fn upload_time(&self) -> Duration {
        self.upload_time
    }

    /// Bytes copied to the device by the upload.
    pub fn uploaded_bytes(&self) -> u64 {
        self.uploaded_bytes
    }

    /// Takes the host `Atomics` values as the ones every later run starts from (after the host
    /// changed them, e.g. a new BFS source).
    pub fn reload_atomics(&mut self) -> Result<(), RunError> {
        let stream = self
            .gpu
            .ctx()
            .new_stream()
            .map_err(driver_err("creating a stream"))?;
        for a in &self.atomics {
            let data = a.host.read_bytes();
            // SAFETY: `pristine` is a live allocation of `a.bytes` bytes owned by `_buffers`.
            unsafe { copy_in_and_wait(a.pristine, &data, &stream, "copying state to the device") }?;
        }
        Ok(())
    }

    /// Queues on `stream` the reset of everything a run mutates, with `seeds` per queue;
    /// `stamped`: the run's unit stamps its rings (`KernelSpec::stamps_rings`), so their
    /// stamps are reset too: 0 (free for the first lap), the seeds' written (other runs never
    /// read them).
    pub(crate) fn reset(
        &self,
        stream: &Arc<CudaStream>,
        seeds: &[Vec<ItemBits>],
        stamped: bool,
    ) -> Result<(), GpuError> {
        let s = stream.cu_stream();
        for a in &self.atomics {
            // SAFETY: both are live allocations of `a.bytes` bytes owned by `_buffers`.
            unsafe { result::memcpy_dtod_async(a.live, a.pristine, a.bytes, s) }
                .map_err(driver_err("resetting the state"))?;
        }
        let total_seeds: u64 = seeds.iter().map(|q| q.len() as u64).sum();
        let mut block = pack_words(
            ctl::WORDS.len(),
            &[
                (ctl::IDLE_CLEAN, u64::from(total_seeds == 0)),
                (ctl::IDLE_BASE, total_seeds),
            ],
        );
        for (q, items) in self.queues.iter().zip(seeds) {
            let n = items.len() as u64;
            block.extend(seeded_counters(n));
            if !items.is_empty() {
                let mut raw = Vec::with_capacity(items.len() * q.elem_size);
                for item in items {
                    raw.extend_from_slice(&item.to_le_bytes()[..q.elem_size]);
                }
                // SAFETY: the seeds fit the queue (checked by the caller against its capacity,
                // and the buffer holds at least `capacity` slots).
                unsafe { copy_in_and_wait(q.items, &raw, stream, "writing the seeds") }?;
            }
            let (true, Some(Stamps { at, slots })) = (stamped, q.stamps) else {
                continue;
            };
            // SAFETY: `at` is a live allocation of `slots` 32-bit stamps (`ring_words`), and the
            // seeds are at most `slots` (their capacity is below the slots).
            unsafe { sys::cuMemsetD32Async(at, 0, slots as usize, s).result() }
                .map_err(driver_err("resetting the slot stamps"))?;
            if n > 0 {
                // SAFETY: as above.
                unsafe {
                    sys::cuMemsetD32Async(at, stamp_written(0, slots), n as usize, s).result()
                }
                .map_err(driver_err("stamping the seeds"))?;
            }
        }
        for p in &self.priority {
            block.extend(pack_words(
                pc::WORDS.len(),
                &[
                    (pc::THRESHOLD, p.threshold),
                    // The first advance opens the next ring (persistent runs); windowed runs
                    // keep the band end at the threshold.
                    (pc::BAND_END, p.threshold),
                    (pc::DELTA, p.delta),
                    (pc::PASS_MIN, EVERY_KEY),
                    (pc::SLACK, p.slack),
                ],
            ));
        }
        // SAFETY: the control buffer holds exactly this many bytes.
        unsafe { copy_in_and_wait(self.control, &block, stream, "resetting the run counters") }?;
        Ok(())
    }

    /// Queues on `stream` the start of queue `q`'s next window (`window_next`, read by
    /// `take_window` in queue.cuh).
    pub(crate) fn set_window_start(
        &self,
        stream: &Arc<CudaStream>,
        q: usize,
        lo: u64,
    ) -> Result<(), GpuError> {
        let at = self.control + (ctl::BYTES + q * qc::BYTES + word_offset(qc::WINDOW_NEXT)) as u64;
        // SAFETY: `at` is a word of queue q's counters inside the control buffer, which
        // `self` owns; a pageable source is staged before the call returns. The driver calls
        // it only on a stream with nothing in flight (a finished level, or a free lane), so
        // the staging never waits for a running launch.
        unsafe { result::memcpy_htod_async(at, &lo.to_le_bytes(), stream.cu_stream()) }
            .map_err(driver_err("setting a window"))
    }

    /// Queues on `stream` the writes of priority queue `k`'s control words `(word, value)`
    /// (the windowed driver's threshold advance, made while nothing runs).
    pub(crate) fn set_priority_words(
        &self,
        stream: &Arc<CudaStream>,
        k: usize,
        words: &[(usize, u64)],
    ) -> Result<(), GpuError> {
        let block =
            self.control + (ctl::BYTES + self.queues.len() * qc::BYTES + k * pc::BYTES) as u64;
        for &(w, v) in words {
            // SAFETY: a word of priority queue k's block inside the control buffer, which
            // `self` owns; the pageable source is staged before the call returns.
            unsafe {
                result::memcpy_htod_async(
                    block + word_offset(w) as u64,
                    &v.to_le_bytes(),
                    stream.cu_stream(),
                )
            }
            .map_err(driver_err("advancing a threshold"))?;
        }
        Ok(())
    }

    /// The control block's and every queue's counter words, read on `stream`.
    pub(crate) fn read_counters(&self, stream: &Arc<CudaStream>) -> Result<Counters, GpuError> {
        let mut raw = vec![0u8; control_bytes(self.queues.len(), self.priority.len())];
        // SAFETY: the control buffer holds exactly `raw.len()` bytes.
        unsafe { copy_out_and_wait(&mut raw, self.control, stream, "reading run counters") }?;
        let words = unpack_words(&raw);
        let (control, rest) = words.split_at(ctl::WORDS.len());
        let (queues, prios) = rest.split_at(self.queues.len() * qc::WORDS.len());
        Ok(Counters {
            control: control.to_vec(),
            queues: queues
                .chunks_exact(qc::WORDS.len())
                .map(<[u64]>::to_vec)
                .collect(),
            priority: prios
                .chunks_exact(pc::WORDS.len())
                .map(<[u64]>::to_vec)
                .collect(),
        })
    }

    /// Copies every `Atomics` field's device values into its host array.
    pub fn read_back(&self) -> Result<(), RunError> {
        let stream = self
            .gpu
            .ctx()
            .new_stream()
            .map_err(driver_err("creating a stream"))?;
        for a in &self.atomics {
            let mut bytes = vec![0u8; a.bytes];
            if !bytes.is_empty() {
                // SAFETY: `live` holds `a.bytes` bytes.
                unsafe { copy_out_and_wait(&mut bytes, a.live, &stream, "copying results back") }?;
                a.host.write_bytes(&bytes);
            }
        }
        Ok(())
    }
}

/// Allocates the slots of ring `r` at `capacity` (a linear queue never wraps: its mask is all
/// ones, `LINEAR` in queue.cuh), followed by its slot stamps if `stamped`. Returns the slots'
/// address, the stamps and the ring's state words: items, capacity, mask.
fn ring_words(
    arena: &mut Arena<'_>,
    r: Ring,
    capacity: u64,
    stamped: bool,
) -> Result<(u64, Option<Stamps>, [u64; 3]), GpuError> {
    let (slots, mask) = if r.linear {
        (capacity.max(1), u64::MAX)
    } else {
        let slots = ring_slots(capacity);
        (slots, slots - 1)
    };
    let offset = stamps_offset(slots, r.elem_size);
    let bytes = if stamped {
        offset + stamp_bytes(slots)
    } else {
        slots * r.elem_size as u64
    };
    let items = arena.alloc(bytes as usize, None)?;
    let stamps = stamped.then_some(Stamps {
        at: items + offset,
        slots,
    });
    Ok((items, stamps, [items, capacity, mask]))
}

/// Counter words read back from the device.
pub(crate) struct Counters {
    pub control: Vec<u64>,
    pub queues: Vec<Vec<u64>>,
    /// Each priority queue's control words.
    pub priority: Vec<Vec<u64>>,
}

/// Copies `bytes` to device address `at` on `stream` and waits for it, so `bytes` may go as soon
/// as this returns.
///
/// # Safety
/// `at` must be a live device allocation of at least `bytes.len()` bytes.
pub(crate) unsafe fn copy_in_and_wait(
    at: u64,
    bytes: &[u8],
    stream: &CudaStream,
    during: &str,
) -> Result<(), GpuError> {
    // SAFETY: the caller guarantees the destination; the wait keeps `bytes` borrowed until the
    // copy is done.
    unsafe { result::memcpy_htod_async(at, bytes, stream.cu_stream()) }
        .map_err(driver_err(during))?;
    stream.synchronize().map_err(driver_err(during))
}

/// Copies `bytes.len()` bytes from device address `at` into `bytes` on `stream` and waits.
///
/// # Safety
/// `at` must be a live device allocation of at least `bytes.len()` bytes.
pub(crate) unsafe fn copy_out_and_wait(
    bytes: &mut [u8],
    at: u64,
    stream: &CudaStream,
    during: &str,
) -> Result<(), GpuError> {
    // SAFETY: as for `copy_in_and_wait`.
    unsafe { result::memcpy_dtoh_async(bytes, at, stream.cu_stream()) }
        .map_err(driver_err(during))?;
    stream.synchronize().map_err(driver_err(during))
}

/// The counter block of a queue starting a run with `n` seeds.
pub(crate) fn seeded_counters(n: u64) -> Vec<u8> {
    pack_words(
        qc::WORDS.len(),
        &atos_codegen::layout::SEEDED_COUNTERS.map(|w| (w, n)),
    )
}

/// Zeroed device allocations on one stream's device, optionally filled from the host; keeps
/// the buffers (their owner frees them) and counts the bytes copied in.
pub(crate) struct Arena<'a> {
    pub stream: &'a Arc<CudaStream>,
    pub buffers: Vec<CudaSlice<u8>>,
    pub uploaded: u64,
}

impl<'a> Arena<'a> {
    pub fn new(stream: &'a Arc<CudaStream>) -> Arena<'a> {
        Arena {
            stream,
            buffers: Vec::new(),
            uploaded: 0,
        }
    }

    /// The device address of `bytes` new bytes (at least 8), holding `init` when given.
    pub fn alloc(&mut self, bytes: usize, init: Option<&[u8]>) -> Result<u64, GpuError> {
        let mut buf = self
            .stream
            .alloc_zeros::<u8>(bytes.max(8))
            .map_err(driver_err("allocating device memory"))?;
        if let Some(data) = init.filter(|d| !d.is_empty()) {
            self.stream
                .memcpy_htod(data, &mut buf)
                .map_err(driver_err("copying state to the device"))?;
            self.uploaded += data.len() as u64;
        }
        let ptr = {
            let (ptr, _sync) = buf.device_ptr(self.stream);
            ptr
        };
        self.buffers.push(buf);
        Ok(ptr)
    }
}
