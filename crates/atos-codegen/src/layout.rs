//! Memory layouts shared by Rust and CUDA, written once here: the queue counters and the run
//! control block. The CUDA structs (`atos/layout.cuh`) are generated from these lists and the
//! host reads and writes the same words by the indices generated beside them.

/// Every counter sits on its own 128-byte line (no false sharing between hot counters).
pub const LINE_BYTES: usize = 128;

macro_rules! words {
    ($(#[$meta:meta])* $module:ident, $cuda:literal, { $($index:literal $name:ident $cname:literal : $doc:literal),* $(,)? }) => {
        $(#[$meta])*
        pub mod $module {
            $(#[doc = $doc] pub const $name: usize = $index;)*
            /// `(C++ member name, meaning)` in layout order.
            pub const WORDS: &[(&str, &str)] = &[$(($cname, $doc)),*];
            /// The C++ struct name.
            pub const CUDA_STRUCT: &str = $cuda;
            /// Size in bytes of the struct on the device.
            pub const BYTES: usize = WORDS.len() * super::LINE_BYTES;
            const _: () = { let mut i = 0; $(assert!($index == i, "indices must count up from 0"); i += 1;)* let _ = i; };
        }
    };
}

words!(
    /// Counters of one queue (`atos::QueueCounters`). Item `i` (counting every push of the run,
    /// seeds first) lives in ring slot `i & mask`.
    queue_counters, "QueueCounters", {
        0 START "start": "items below it have been claimed by a worker",
        1 END "end": "items below it are written and may be claimed (stamped rings keep it at the seeds: their slots' stamps say what is written)",
        2 END_ALLOC "end_alloc": "items reserved by pushers (seeds included): every push of the run",
        3 END_MAX "end_max": "highest reserved end whose writer has finished writing",
        4 END_COUNT "end_count": "items written so far (stamped rings: items whose writing was approved, counted before they are written)",
        5 READ_END "read_end": "items below it have been copied out by their claimer: their slots are free (stamped rings: unused, their slots' stamps say so)",
        6 READ_MAX "read_max": "highest claimed end whose claimer has finished copying",
        7 READ_COUNT "read_count": "items copied out so far",
        8 DONE "done": "items fully processed (counted after their own pushes are reserved)",
        9 PEAK "peak": "most items alive (pushed, not yet claimed) seen by a push",
        10 NEEDED "needed": "on overflow: items alive when a push found no room",
        11 AVAIL "avail": "ring: written items not yet claimed (signed; claims take from it, each advance of end adds to it; stamped rings: each writer credits its range)",
        12 WINDOW_NEXT "window_next": "windowed launches: the next item of the launch's window to hand out (set by the host before each launch)",
        13 KEPT "kept": "pushes a CTA kept in shared memory and ran itself instead of publishing them (counted before the batch that pushed them is done)",
        14 STAMP "stamp": "outbox rings of an aggregated spread run: the device's clock (ns) at the last forward of this outbox to its peer",
        15 INLINED "inlined": "items of an inline task's queue that their push ran at once (never in the ring; added when the kernel ends): counted as pushed and popped, not in termination",
        16 HELPED "helped": "shared ranges: indices of this queue's task's balanced loops that idle CTA groups ran for the group that posted them (each helper adds its walk's count after counting it finished); statistics only",
    }
);

/// The counters of a queue that starts a run holding `n` seeds: each of these is `n`, every
/// other counter 0 (seeds are pushed, written and published, not yet claimed).
pub const SEEDED_COUNTERS: [usize; 6] = [
    queue_counters::END,
    queue_counters::END_ALLOC,
    queue_counters::END_MAX,
    queue_counters::END_COUNT,
    queue_counters::PEAK,
    queue_counters::AVAIL,
];

words!(
    /// The run's control block (`atos::Control`), one per run.
    control, "Control", {
        0 STATUS "status": "0 while healthy; 1 once a push overflowed its queue; 3 once a task faulted",
        1 STOP "stop": "set by the idle sweep that proved the run finished",
        2 IDLE_CURSOR "idle_cursor": "idle sweep number << 40 | next index handed out in it",
        3 IDLE_FINISHED "idle_finished": "indices of the current sweep whose hook has completed",
        4 IDLE_CLEAN "idle_clean": "1 if nothing was queued or in flight when the current sweep opened",
        5 IDLE_BASE "idle_base": "pushes of the run (all queues) when the current sweep opened",
        6 IDLE_SWEEPS "idle_sweeps": "sweeps opened after the first",
        7 FAULT "fault": "the first fault's site (faults.rs): function << 40 | line << 8 | fault; 0 if none",
        8 TRACE_START "trace_start": "persistent units built with trace_phases: the GPU clock (ns, %globaltimer) when the first block started its loop (0 otherwise)",
        9 TRACE_WORK "trace_work": "trace_phases: the clock after the run's last batch or idle window",
        10 TRACE_STOP "trace_stop": "trace_phases: the clock when the first group saw the end of the run",
        11 TRACE_EXIT "trace_exit": "trace_phases: the clock when the last block left its loop",
    }
);

words!(
    /// One priority queue's scheduling words (`atos::PriorityControl`). Keys compare as
    /// *encoded* keys (`encode_key` in queue.cuh, `PriorityKey::encode` on the host): a u32 key
    /// as itself, an f32 key as its bits made to sort as the floats do; every encoded key is
    /// below [`EVERY_KEY`].
    priority_control, "PriorityControl", {
        0 THRESHOLD "threshold": "a push whose encoded key is below it goes to the near ring, else to the next ring (below `band_end`) or the far ring; only grows (EVERY_KEY: every key is near)",
        1 DELTA "delta": "how far an advance moves the threshold, in the key's own type (its bits)",
        2 PASS_END "pass_end": "persistent: far items below it belong to the pass opened by the last advance",
        3 PASS_MIN "pass_min": "smallest encoded key sent to the far ring since the last advance, by a task's push or a pass's push-back (EVERY_KEY if none)",
        4 LOCK "lock": "persistent: 1 while a group advances the threshold",
        5 ADVANCES "advances": "threshold advances of the run",
        6 MOVED "moved": "far items the passes moved to the near or the next ring",
        7 SLACK "slack": "persistent: an advance may start while at most this many near items and open next items are in flight (0: only once both are quiescent)",
        8 BAND_END "band_end": "a push whose encoded key is at or above the threshold and below it goes to the next ring (the band the next advance opens); persistent runs keep it one band above the threshold, windowed ones equal to it (the next ring unused)",
        9 NEXT_END "next_end": "persistent: next-ring items below it are open (the advance that set it made their band current): served as tasks, like the near ring's",
        10 OPEN "open": "persistent: open next-ring items not claimed yet (signed; each advance adds the items it opens, claims take from it as a ring's claims take from its `avail`)",
        11 PARKED "parked": "persistent CTA groups: epoch << PARK_EPOCH_SHIFT | next-band items parked in a group's shared memory since the epoch began; each advance takes the count (the items it opens) and starts the next epoch",
        12 OPEN_PARKED "open_parked": "persistent CTA groups: parked items the advances opened so far (the band's in-flight count adds them to the ring's open items)",
    }
);

words!(
    /// Per-device counters of a program spread over several devices (`atos::DeviceCounters`),
    /// in each device's own memory.
    device_counters, "DeviceCounters", {
        0 SENT "sent": "items this device's tasks pushed to a peer's receive ring",
        1 OVER "over": "set once this device's termination poller (block 0's first group) found every ring of every device quiescent",
        2 ELAPSED_NS "elapsed_ns": "the device's kernel time of the last run in ns, written by its host after the run (the kernel leaves it alone)",
        3 REMOTE_OPS "remote_ops": "loads, stores and atomics this device's tasks made on `Atomics` elements in another device's memory (counted per block, added when the kernel ends)",
        4 IDLE_CURSOR "idle_cursor": "with an idle hook: this device's cursor over its share of the open sweep (sweep << IDLE_SWEEP_SHIFT | next position in the share), set to the next sweep by the worker that opens it",
        5 SWEEP_LO "sweep_lo": "with an idle hook: the first position of this device's share of every sweep (written by its host at each run start: Placement::sweep_share)",
        6 SWEEP_HI "sweep_hi": "with an idle hook: the end of this device's share of every sweep",
        7 DELIVER_LEN "deliver_len": "positions of this device's combine copies (the lengths of the fields it keeps one of, end to end), written by its host at each run start: batches drain them, an idle sweep delivers them before the device's share of the hook's, and the kernel's end delivers what is left",
        8 DELIVERED "delivered": "elements this device delivered from its combine copies (each one add at the element's home: the sum of the device's accumulates into it since the last)",
        9 DRAIN "drain": "positions of this device's combine copies a group delivers per item of each batch it ran, before the batch counts done (0: only sweeps and the kernel's end deliver), written by its host at each run start",
        10 DRAIN_CURSOR "drain_cursor": "positions of this device's combine copies handed out to batches' drains so far (position = cursor mod deliver_len), zeroed at each run start",
    }
);

/// Where a program spread over several devices finds its placement and every device's rings
/// (`atos::Mesh`, one per device, in that device's memory; its host copies it into the
/// device's module, the `__constant__` `atos_mesh` of mesh.cuh, before each launch). Unlike
/// the counter blocks it is packed: 8-byte words, no padding.
pub mod mesh {
    /// Most devices a program spreads over.
    pub const MAX_DEVICES: usize = 8;
    /// `(C++ member, number of 8-byte words, meaning)` in layout order.
    pub const FIELDS: &[(&str, usize, &str)] = &[
        ("device", 1, "this device's index"),
        ("devices", 1, "devices of the run"),
        (
            "kind",
            1,
            "KIND_RANGES: index i belongs to the device whose range holds it; KIND_MAP: to owner[i]",
        ),
        (
            "len",
            1,
            "indices placed: [0, len); an index at or past it belongs to device 0",
        ),
        (
            "owner",
            1,
            "KIND_MAP: address (on this device) of each index's device, one byte per index",
        ),
        (
            "local",
            1,
            "KIND_MAP: address (on this device) of each index's position on its device (u32)",
        ),
        (
            "rings",
            1,
            "address (on this device) of every device's ring counters (QueueCounters*), device by device; per device the same number: per queue field its local ring, its receive ring, then in an aggregated run its outbox to each peer",
        ),
        ("ring_count", 1, "entries of `rings`"),
        ("counters", 1, "address of this device's DeviceCounters"),
        (
            "batch",
            1,
            "aggregated remote pushes: forward an outbox once it holds this many items (0: eager, no outboxes)",
        ),
        (
            "wait_ns",
            1,
            "aggregated remote pushes: or once this many ns have passed since its last forward",
        ),
        (
            "forward_idle",
            1,
            "aggregated remote pushes: 1: or at once, by a group whose pass over the queues found nothing else to do",
        ),
        (
            "own_lo",
            1,
            "KIND_RANGES: the first index of this device's range (bounds[device]); KIND_MAP: 0",
        ),
        (
            "own_span",
            1,
            "KIND_RANGES: indices in this device's range (an index i is its own when i - own_lo < own_span); KIND_MAP: 0, every index takes the general path",
        ),
        (
            "bounds",
            MAX_DEVICES + 1,
            "KIND_RANGES: device d holds [bounds[d], bounds[d + 1])",
        ),
        (
            "sweeps",
            MAX_DEVICES,
            "address (as this device reaches it) of every device's idle sweep cursor (its DeviceCounters' idle_cursor)",
        ),
    ];
    /// Word index of each field (order of [`FIELDS`]).
    pub const DEVICE: usize = 0;
    pub const DEVICES: usize = 1;
    pub const KIND: usize = 2;
    pub const LEN: usize = 3;
    pub const OWNER: usize = 4;
    pub const LOCAL: usize = 5;
    pub const RINGS: usize = 6;
    pub const RING_COUNT: usize = 7;
    pub const COUNTERS: usize = 8;
    pub const BATCH: usize = 9;
    pub const WAIT_NS: usize = 10;
    pub const FORWARD_IDLE: usize = 11;
    pub const OWN_LO: usize = 12;
    pub const OWN_SPAN: usize = 13;
    pub const BOUNDS: usize = 14;
    pub const SWEEPS: usize = BOUNDS + MAX_DEVICES + 1;
    /// Words of the struct.
    pub const WORDS: usize = SWEEPS + MAX_DEVICES;
    pub const KIND_RANGES: u64 = 0;
    pub const KIND_MAP: u64 = 1;
    /// The C++ struct name.
    pub const CUDA_STRUCT: &str = "Mesh";
    /// The C name of a spread unit's `__constant__` copy of its device's `Mesh` (mesh.cuh
    /// declares it; the host looks it up by this name in each device's module and fills it
    /// before each launch). `tests/nvrtc_compile.rs` checks the header and a compiled unit.
    pub const CUDA_CONSTANT: &str = "atos_mesh";
    const _: () = {
        let mut at = 0;
        let mut i = 0;
        let starts = [
            DEVICE,
            DEVICES,
            KIND,
            LEN,
            OWNER,
            LOCAL,
            RINGS,
            RING_COUNT,
            COUNTERS,
            BATCH,
            WAIT_NS,
            FORWARD_IDLE,
            OWN_LO,
            OWN_SPAN,
            BOUNDS,
            SWEEPS,
        ];
        while i < FIELDS.len() {
            assert!(starts[i] == at, "word indices follow FIELDS");
            at += FIELDS[i].1;
            i += 1;
        }
        assert!(at == WORDS);
    };
}

/// Where an `Atomics` field of a program spread over several devices lives
/// (`atos::SpreadParts`, held by value in each device's kernel argument): spread over the
/// devices by the placement (element i on its owner, at its local position), or whole on
/// device 0; and the device's filter copy of a field the plan gives one (`Plan::filters`), and
/// its combine copy of a field the program accumulates into (`Plan::combines`).
pub mod spread_parts {
    use super::mesh::MAX_DEVICES;
    /// (member, words, meaning), in order: the one description of the struct.
    pub const FIELDS: &[(&str, usize, &str)] = &[
        (
            "spread",
            1,
            "1: spread by the placement; 0: the whole array on device 0 (part[0])",
        ),
        (
            "part",
            MAX_DEVICES,
            "device d's part (a peer address every device can use)",
        ),
        (
            "filter",
            1,
            "this device's filter copy (every element, on this device; 0: none), read by lower/raise",
        ),
        (
            "combine",
            1,
            "this device's combine copy (every element, on this device; 0: none): its `accumulate`s into other devices' elements, not delivered yet",
        ),
    ];
    pub const SPREAD: usize = 0;
    pub const PART: usize = 1;
    pub const FILTER: usize = PART + MAX_DEVICES;
    pub const COMBINE: usize = FILTER + 1;
    pub const WORDS: usize = COMBINE + 1;
    pub const CUDA_STRUCT: &str = "SpreadParts";
    const _: () = {
        let mut at = 0;
        let mut i = 0;
        let starts = [SPREAD, PART, FILTER, COMBINE];
        while i < FIELDS.len() {
            assert!(starts[i] == at, "word indices follow FIELDS");
            at += FIELDS[i].1;
            i += 1;
        }
        assert!(at == WORDS);
    };
}

/// A struct of 64-bit words described by a `FIELDS` table, with its size checked.
fn word_struct(out: &mut String, name: &str, fields: &[(&str, usize, &str)], words: usize) {
    out.push_str(&format!("struct {name} {{\n"));
    for (member, n, doc) in fields {
        let dim = if *n > 1 {
            format!("[{n}]")
        } else {
            String::new()
        };
        out.push_str(&format!(
            "    unsigned long long {member}{dim};  // {doc}\n"
        ));
    }
    out.push_str(&format!(
        "}};\nstatic_assert(sizeof({name}) == {}, \"layout generated from layout.rs\");\n\n",
        words * 8
    ));
}

/// Above every encoded key: a threshold of this value puts every push in the near ring.
pub const EVERY_KEY: u64 = 1 << 32;

/// `Control::status` values.
pub mod status {
    pub const OK: u64 = 0;
    /// A push found more than its queue's capacity alive.
    pub const OVERFLOW: u64 = 1;
    /// CPU executor only: a task panicked.
    pub const PANICKED: u64 = 2;
    /// A task faulted (overflow, division by zero, an index out of bounds): see `faults.rs`.
    pub const FAULT: u64 = 3;
    /// CPU executor only: the run passed its time limit (`CpuExecutor::timeout`).
    pub const TIMED_OUT: u64 = 4;
}

/// The byte offset of word `i` in a block of counters (each word on its own line).
pub const fn word_offset(i: usize) -> usize {
    i * LINE_BYTES
}

/// Host image of a `words`-word block (queue counters or control block): every word zero but
/// the `(index, value)` pairs given.
pub fn pack_words(words: usize, set: &[(usize, u64)]) -> Vec<u8> {
    let mut raw = vec![0u8; words * LINE_BYTES];
    for &(i, v) in set {
        raw[word_offset(i)..word_offset(i) + 8].copy_from_slice(&v.to_le_bytes());
    }
    raw
}

/// The words of a block read back from the device (`pack_words`' inverse).
pub fn unpack_words(raw: &[u8]) -> Vec<u64> {
    raw.chunks_exact(LINE_BYTES)
        .map(|line| u64::from_le_bytes(line[..8].try_into().expect("8 bytes")))
        .collect()
}

/// The argument of a windowed launch (`atos::Window`): which queue (or, equal to the number of
/// queues, the idle hook) and the items `[lo, hi)` of it to run.
pub mod window {
    /// Size in bytes: `queue` (u32), padding (u32), `lo` (u64), `hi` (u64).
    pub const BYTES: usize = 24;
    /// The C++ struct name.
    pub const CUDA_STRUCT: &str = "Window";

    /// The kernel argument's bytes.
    pub fn pack(queue: u32, lo: u64, hi: u64) -> [u8; BYTES] {
        let mut raw = [0u8; BYTES];
        raw[..4].copy_from_slice(&queue.to_le_bytes());
        raw[8..16].copy_from_slice(&lo.to_le_bytes());
        raw[16..].copy_from_slice(&hi.to_le_bytes());
        raw
    }
}

/// Where a queue's slot stamps start in its slot buffer: after its `slots` items of
/// `elem_size` bytes, rounded up to 8 bytes (queue.cuh `QueueRef::stamps`). Stamped rings
/// (`KernelSpec::stamped_rings`) keep one 32-bit stamp per slot: [`stamp_free`] of a lap while
/// the slot may be written with that lap's item, [`stamp_written`] once it is.
pub fn stamps_offset(slots: u64, elem_size: usize) -> u64 {
    (slots * elem_size as u64).next_multiple_of(8)
}

/// The bytes of a queue's slot stamps: 4 per slot.
pub fn stamp_bytes(slots: u64) -> u64 {
    4 * slots
}

/// A slot's stamp once item number `i` of a ring of `slots` slots is written in it (lap
/// `i / slots`): odd.
pub fn stamp_written(i: u64, slots: u64) -> u32 {
    (2 * (i / slots) + 1) as u32
}

/// A slot's stamp while it may take item number `i` of a ring of `slots` slots (the item of
/// the lap before has been copied out, or `i` is in the first lap): even. A run starts with
/// every stamp 0 but the seeds' (`stamp_written(i, slots)` for seed `i`).
pub fn stamp_free(i: u64, slots: u64) -> u32 {
    (2 * (i / slots)) as u32
}

/// Bit position of the sweep number in `Control::idle_cursor`.
pub const IDLE_SWEEP_SHIFT: u32 = 40;

/// Bit position of the epoch in `PriorityControl::parked` (the count of parked items below it).
pub const PARK_EPOCH_SHIFT: u32 = 40;

/// The generated `atos/layout.cuh`.
pub fn layout_header() -> String {
    let mut out = String::from(
        "// Generated by atos-codegen (layout.rs): the one definition of these layouts.\n#pragma once\n\nnamespace atos {\n\n",
    );
    out.push_str(&format!(
        "struct alignas({LINE_BYTES}) Counter {{\n    unsigned long long value;\n}};\n\n"
    ));
    for (name, words, bytes) in [
        (
            queue_counters::CUDA_STRUCT,
            queue_counters::WORDS,
            queue_counters::BYTES,
        ),
        (control::CUDA_STRUCT, control::WORDS, control::BYTES),
        (
            priority_control::CUDA_STRUCT,
            priority_control::WORDS,
            priority_control::BYTES,
        ),
        (
            device_counters::CUDA_STRUCT,
            device_counters::WORDS,
            device_counters::BYTES,
        ),
    ] {
        out.push_str(&format!("struct {name} {{\n"));
        for (member, doc) in words {
            out.push_str(&format!("    Counter {member};  // {doc}\n"));
        }
        out.push_str(&format!(
            "}};\nstatic_assert(sizeof({name}) == {bytes}, \"layout generated from layout.rs\");\n\n"
        ));
    }
    out.push_str(&format!(
        "struct {} {{\n    unsigned int queue;\n    unsigned int pad;\n    unsigned long long lo;\n    unsigned long long hi;\n}};\nstatic_assert(sizeof({0}) == {}, \"layout generated from layout.rs\");\n\n",
        window::CUDA_STRUCT,
        window::BYTES
    ));
    out.push_str(&format!(
        "constexpr unsigned MAX_DEVICES = {};\nconstexpr unsigned long long MESH_RANGES = {}ull, MESH_MAP = {}ull;\n",
        mesh::MAX_DEVICES,
        mesh::KIND_RANGES,
        mesh::KIND_MAP
    ));
    word_struct(&mut out, mesh::CUDA_STRUCT, mesh::FIELDS, mesh::WORDS);
    word_struct(
        &mut out,
        spread_parts::CUDA_STRUCT,
        spread_parts::FIELDS,
        spread_parts::WORDS,
    );
    out.push_str(&format!(
        "enum : unsigned long long {{ STATUS_OK = {}, STATUS_OVERFLOW = {}, STATUS_FAULT = {} }};\nconstexpr unsigned IDLE_SWEEP_SHIFT = {IDLE_SWEEP_SHIFT};\nconstexpr unsigned PARK_EPOCH_SHIFT = {PARK_EPOCH_SHIFT};\nconstexpr unsigned long long EVERY_KEY = {EVERY_KEY}ull;\n\n}}  // namespace atos\n",
        status::OK,
        status::OVERFLOW,
        status::FAULT
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The slot stamps sit 8-byte aligned after the slots, 4 bytes each; a slot's written stamp
    /// for one lap is one below its free stamp for the next.
    #[test]
    fn slot_stamps_lay_out_after_the_slots() {
        assert_eq!(stamps_offset(1024, 4), 4096);
        assert_eq!(stamps_offset(3, 12), 40);
        assert_eq!(stamp_bytes(1024), 4096);
        assert_eq!((stamp_free(0, 1024), stamp_written(0, 1024)), (0, 1));
        assert_eq!((stamp_free(1023, 1024), stamp_written(1023, 1024)), (0, 1));
        // The slot's next lap: free once the first lap's item is copied out.
        assert_eq!((stamp_free(1024, 1024), stamp_written(1024, 1024)), (2, 3));
        assert_eq!(stamp_free(5000, 1024), stamp_written(5000 - 1024, 1024) + 1);
    }

    /// A word written at `word_offset` (as the host does for one counter, e.g. a device's
    /// `elapsed_ns`) is the word `unpack_words` reads back, and the one `pack_words` sets.
    #[test]
    fn word_offsets_pack_and_unpack_agree() {
        let words = device_counters::WORDS.len();
        for i in 0..words {
            let mut raw = vec![0u8; device_counters::BYTES];
            let v = 0x0102_0304_0506_0708u64 + i as u64;
            raw[word_offset(i)..word_offset(i) + 8].copy_from_slice(&v.to_le_bytes());
            let back = unpack_words(&raw);
            assert_eq!(back.len(), words);
            assert_eq!(back[i], v, "word {i}");
            assert_eq!(raw, pack_words(words, &[(i, v)]));
        }
        assert_eq!(
            device_counters::WORDS[device_counters::ELAPSED_NS].0,
            "elapsed_ns"
        );
    }
}
