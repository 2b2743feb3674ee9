// The atos task queue: a ring of slots with exact termination (after Atos SC'22, Listing 6,
// made reusable). Counters (atos/layout.cuh, generated from layout.rs) live on separate lines.
//
// Every push of a run gets an item number i (seeds first); item i lives in slot i & mask.
//   producers  reserve  end_alloc   write the slots   complete [base, base+n) on end_*
//   consumers  take     avail, then start (never past end)   copy the items out
//              complete on read_*   (linear queues: reserve start ahead, no read_*)
// A completed range is counted in `count` after raising `max`; the prefix (`end`, `read_end`)
// advances to v only when count == max == v, which means the completed ranges tile [0, v).
// Under steady pushing that instant may not come for as long as the pushes go on (some range
// is always between its two counts), and each publication is a chain of dependent release
// atomics. Stamped rings (one-GPU persistent units without a priority queue; by default where
// a task runs on thread or warp workers: ATOS_STAMPED_RINGS, below `publish`) publish each slot
// by a stamp instead and keep no prefix.
//
// Memory ordering, explicitly, and cheaply: on sm_90 `ld.acquire` and `fence.acq_rel` each
// invalidate the SM's L1 (CCTL.IVALL) while release operations only wait for earlier memory
// operations (MEMBAR). So polls are relaxed loads, publications are release operations, and an
// acquire comes once per batch a worker has actually taken:
//  - a producer lane fences (release) after its slot store; the range is counted with a
//    release max and an acquire-release add, and whoever completes a tiling raises the prefix
//    and credits `avail` with release atomics; a consumer fences (acquire) after taking items
//    and before loading them;
//  - a consumer's item loads come before its range is counted on read_*; a producer fences
//    (acquire) after seeing `read_end` pass a slot before overwriting it;
//  - a worker counts `done` with a release atomic after its batch's pushes are reserved, and
//    termination reads every `done`, fences, then reads every `end_alloc`.
// The argument is written out in docs/runtime.md.
#pragma once

namespace atos {

typedef unsigned long long u64;

// A linear queue (mask == LINEAR) fills each slot once: capacity bounds every push of the run.
constexpr u64 LINEAR = ~0ull;

// The scope of a ring's orderings (its fences, release and acquire operations): `false`, this
// device (every ring of a one-GPU unit, and the local rings of a spread unit, which only their
// own device pushes to and pops); `true`, every GPU of the run (the receive rings of a spread
// unit, pushed to from peers). Every counter atomic takes the unit's scope (ATOS_ATOMIC), local
// rings' included: termination reads `end_alloc`, `kept` and `done` across devices, and the
// others (`avail`, `start`, `peak`, ...) are relaxed, where the scope was not measured to cost
// anything (narrowing them is untried). `done` is released at the unit's scope, so the
// termination argument is the same for every ring.
template <class T, bool SYS = false>
struct QueueRef {
    T* items;
    QueueCounters* counters;
    u64 capacity;  // ring: most items alive (pushed, not yet claimed) at once; linear: all pushes
    u64 mask;      // ring: slots - 1 (slots: a power of two above capacity, see ring_slots); or LINEAR

    static constexpr bool sys = SYS;
    __device__ bool ring() const { return mask != LINEAR; }
    __device__ T* slot(u64 i) const { return &items[i & mask]; }
    // The slots allocated: a ring's mask + 1, a linear queue's capacity (at least 1).
    __device__ u64 slots() const { return ring() ? mask + 1 : (capacity > 0 ? capacity : 1); }
    // Stamped rings: one 32-bit stamp per slot, after the slots (8-byte aligned; the host's
    // layout::stamps_offset): 2L while the slot may take its lap-L item, 2L + 1 once written.
    __device__ uint32_t* stamps() const {
        return (uint32_t*)(((unsigned long long)items + slots() * sizeof(T) + 7ull) & ~7ull);
    }
    __device__ uint32_t* stamp(u64 i) const { return stamps() + (i & mask); }
    // Item i's lap, times two (rings: slots are a power of two).
    __device__ uint32_t lap2(u64 i) const { return (uint32_t)(i >> __popcll(mask)) << 1; }
};

// Orderings at a scope: S true is the system scope (between GPUs), false the device's. The
// default is the unit's scope (ATOS_SYSTEM_SCOPE).
constexpr bool UNIT_SCOPE = ATOS_SYSTEM_SCOPE != 0;
#ifndef ATOS_DONE_BATCHES
#define ATOS_DONE_BATCHES 1u  // batches a server's leader runs per `done` count (worker.cuh)
#endif
#ifndef ATOS_KEPT_DONE_DEFER
#define ATOS_KEPT_DONE_DEFER 1u  // a CTA group counts its kept chain's `done` once, at its end (worker.cuh run_from)
#endif
#define ATOS_SCOPED(S, before, after, ...) \
    do {                                   \
        if constexpr (S) asm volatile(before "sys" after __VA_ARGS__); \
        else asm volatile(before "gpu" after __VA_ARGS__);             \
    } while (0)

// ATOS_REMOTE_CALLS (remote.cuh): an access to a tagged counter (one other ranks also reach)
// is an NVSHMEM call; a release point, at either scope, first completes this thread's earlier
// calls (nvshmem_quiet), so what it orders over mappings it also orders over calls.
#if ATOS_REMOTE_CALLS
#define ATOS_ON_REMOTE(p, call)                    \
    do {                                           \
        const int pe_ = remote::pe_of(p);          \
        if (pe_ >= 0) {                            \
            call;                                  \
        }                                          \
    } while (0)
#define ATOS_REMOTE_QUIET(S) \
    do {                     \
        (void)(S);           \
        remote::quiet();     \
    } while (0)
#else
#define ATOS_ON_REMOTE(p, call) \
    do {                        \
    } while (0)
#define ATOS_REMOTE_QUIET(S) \
    do {                     \
    } while (0)
#endif

template <bool S = UNIT_SCOPE>
__device__ __forceinline__ u64 ld_relaxed(const u64* p) {
    ATOS_ON_REMOTE(p, return remote::nv_fetch(remote::address(const_cast<u64*>(p)), pe_));
    u64 v;
    ATOS_SCOPED(S, "ld.relaxed.", ".global.u64 %0, [%1];", : "=l"(v) : "l"(p) : "memory");
    return v;
}
template <bool S = UNIT_SCOPE>
__device__ __forceinline__ u64 ld_acquire(const u64* p) {
    ATOS_ON_REMOTE(p, return remote::nv_fetch(remote::address(const_cast<u64*>(p)), pe_));
    u64 v;
    ATOS_SCOPED(S, "ld.acquire.", ".global.u64 %0, [%1];", : "=l"(v) : "l"(p) : "memory");
    return v;
}
template <bool S = UNIT_SCOPE>
__device__ __forceinline__ void st_relaxed(u64* p, u64 v) {
    ATOS_ON_REMOTE(p, remote::nv_set(remote::address(p), v, pe_); return);
    ATOS_SCOPED(S, "st.relaxed.", ".global.u64 [%0], %1;", ::"l"(p), "l"(v) : "memory");
}
template <bool S = UNIT_SCOPE>
__device__ __forceinline__ void st_release(u64* p, u64 v) {
    ATOS_REMOTE_QUIET(S);
    ATOS_ON_REMOTE(p, remote::nv_set(remote::address(p), v, pe_); return);
    ATOS_SCOPED(S, "st.release.", ".global.u64 [%0], %1;", ::"l"(p), "l"(v) : "memory");
}
template <bool S = UNIT_SCOPE>
__device__ __forceinline__ void fence_acq_rel() {
    ATOS_SCOPED(S, "fence.acq_rel.", ";", ::: "memory");
    ATOS_REMOTE_QUIET(S);
}
// Orders this thread's earlier memory operations (a slot store) before its later ones, without
// invalidating L1 (MEMBAR only).
template <bool S = UNIT_SCOPE>
__device__ __forceinline__ void fence_release() {
    ATOS_SCOPED(S, "fence.release.", ";", ::: "memory");
    ATOS_REMOTE_QUIET(S);
}
// Release read-modify-writes: earlier memory operations of this thread are ordered before them.
template <bool S = UNIT_SCOPE>
__device__ __forceinline__ u64 add_release(u64* p, u64 v) {
    ATOS_REMOTE_QUIET(S);
    ATOS_ON_REMOTE(p, return remote::nv_add(remote::address(p), v, pe_));
    u64 old;
    ATOS_SCOPED(S, "atom.release.", ".global.add.u64 %0, [%1], %2;", : "=l"(old) : "l"(p), "l"(v) : "memory");
    return old;
}
template <bool S = UNIT_SCOPE>
__device__ __forceinline__ u64 add_acq_rel(u64* p, u64 v) {
    ATOS_REMOTE_QUIET(S);
    ATOS_ON_REMOTE(p, return remote::nv_add(remote::address(p), v, pe_));
    u64 old;
    ATOS_SCOPED(S, "atom.acq_rel.", ".global.add.u64 %0, [%1], %2;", : "=l"(old) : "l"(p), "l"(v) : "memory");
    return old;
}
template <bool S = UNIT_SCOPE>
__device__ __forceinline__ u64 max_release(u64* p, u64 v) {
    ATOS_REMOTE_QUIET(S);
    ATOS_ON_REMOTE(p, return remote::update(p, pe_, [v](u64 x) { return x < v ? v : x; }));
    u64 old;
    ATOS_SCOPED(S, "atom.release.", ".global.max.u64 %0, [%1], %2;", : "=l"(old) : "l"(p), "l"(v) : "memory");
    return old;
}

// Raises `prefix` to v; a ring's `end` also credits the items it newly published to `avail`
// (atomicMax returns the old value, so concurrent raises credit disjoint ranges). Both release:
// what the raiser acquired (the counted ranges) comes before them.
template <bool S>
__device__ __forceinline__ void raise_prefix(Counter& prefix, Counter* credit, u64 v) {
    u64 old = max_release<S>(&prefix.value, v);
    if (credit && old < v) add_release<S>(&credit->value, v - old);
}

// Advances `prefix` to `count` when count == max (read in that order: `max` only grows and every
// counted range raised it first, so an equal pair means the counted ranges tile [0, count)).
// The fence between the reads orders them and makes what the counts prove (the ranges' stores
// or loads, released by their counters) come before the raise and the credit.
template <bool S>
__device__ __forceinline__ void try_advance(Counter& count, Counter& max, Counter& prefix, Counter* credit) {
    u64 c = ld_relaxed(&count.value);
    if (c <= ld_relaxed(&prefix.value)) return;  // nothing new: no fence on the polling path
    fence_acq_rel<S>();
    if (c == ld_relaxed(&max.value)) raise_prefix<S>(prefix, credit, c);
}

// Counts the completed range [base, base + n): written (end_*) or copied out (read_*): `max`
// with a release (the range's stores or loads come first), then `count` with an acquire-release
// (after `max`; and it acquires the earlier ranges' counts so that, when this count completes
// the tiling, the raise passes them on). The writer that completes a tiling raises the prefix
// itself: pollers alone could miss every instant with count == max under steady traffic.
template <bool S>
__device__ __forceinline__ void complete_range(Counter& count, Counter& max, Counter& prefix, Counter* credit, u64 base, u64 n) {
    max_release<S>(&max.value, base + n);
    u64 c = add_acq_rel<S>(&count.value, n) + n;
    if (c == ld_relaxed(&max.value)) raise_prefix<S>(prefix, credit, c);
}

// The publication of a queue's written items (each already fenced by its writer); a ring
// credits `avail`.
template <class T, bool S>
__device__ __forceinline__ void publish(const QueueRef<T, S>& q, u64 base, u64 n) {
    QueueCounters* c = q.counters;
    complete_range<S>(c->end_count, c->end_max, c->end, q.ring() ? &c->avail : nullptr, base, n);
}

// ---- stamped rings (ATOS_STAMPED_RINGS: KernelSpec::stamped_rings) ----
//
// A one-GPU persistent unit without a priority queue may publish its rings' items slot by slot:
//   producers  reserve on end_alloc; look for room (the bound on `start` only: no `read_end`);
//              count the range on `end_count` (its writing is approved); per slot of a wrapped
//              lap, wait until the slot's stamp says the item of the lap before is copied out
//              (then acquire); store; fence (release); stamp each slot written (2L + 1); the
//              leader credits `avail` (relaxed: the stamps order the items, not the credit);
//   consumers  take credit from `avail`, then `start` (no fences: the positions may be
//              reserved items not yet written); per slot, wait for its written stamp; acquire;
//              copy the items out; release; stamp each slot free for the next lap (2L + 2),
//              before the batch runs.
// So a hop (push, claim, copy-out) is two relaxed atomics, a load and a fence on each side,
// where a tiled publication chains four release atomics after the writer's fence and a copy-out
// two more (docs/results/2026-12-07c). No prefix moves: `end`, `end_max` and every read_*
// counter stay at their seeded values. Termination is unchanged (`done` against `end_alloc`).
//
// Waits end. A writer waits for all its slots before storing any, and a claimer group frees
// none of its slots until all its items are written (then it copies and frees them all), so a
// wait is between a batch and a range. A batch taken at `start` = a took credits only from
// ranges approved with their end at most a + capacity, and a range whose items it waits for is
// not among them; every slot such a range waits on holds an item below a + capacity - slots < a
// (slots > capacity), taken by a batch that started below a. Batch starts strictly fall along
// any chain of waits, which therefore ends at a batch that waits for nothing. A writer whose
// range claims have passed has room (its bound is below its size, at most `capacity`:
// `first_look`), so no writer waits for room on claimers that wait for it. The items of a push
// that found no room (an overflow) are never written: their claimers stop waiting once the run
// has failed (`status`), and drop their batch.
//
// The overflow's lower bound reads `end_count` (approved ranges) where a tiled ring reads `end`:
// the leader counts its range there before its fence, and credits `avail` after it, so a credit
// seen in `avail` is seen in `end_count` (never counted twice).
#ifndef ATOS_STAMPED_RINGS
#define ATOS_STAMPED_RINGS 0
#endif
template <class T, bool S>
__device__ __forceinline__ bool stamped(const QueueRef<T, S>& q) {
    return ATOS_STAMPED_RINGS != 0 && !S && q.ring();
}
__device__ __forceinline__ uint32_t ld_stamp(const uint32_t* p) {
    uint32_t v;
    asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ void st_stamp(uint32_t* p, uint32_t v) {
    asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
// Waits (relaxed polls, short naps) until the stamp at `p` is `want`; false if the run failed
// first. The caller acquires after its waits.
__device__ __noinline__ bool wait_stamp_slow(const uint32_t* p, uint32_t want, const Control* ctl) {
    uint32_t nap = 32;
    for (uint32_t polls = 1;; ++polls) {
        __nanosleep(nap);
        if (nap < 256) nap *= 2;
        if (ld_stamp(p) == want) return true;
        if ((polls & 15u) == 0 && ld_relaxed(&ctl->status.value) != STATUS_OK) return false;
    }
}
__device__ __forceinline__ bool wait_stamp(const uint32_t* p, uint32_t want, const Control* ctl) {
    return ld_stamp(p) == want || wait_stamp_slow(p, want, ctl);
}
// A writer of item i of a stamped ring, before storing it: whether its slot may be written
// (the first lap's may at once; a later lap's once its stamp says the lap before is copied out;
// false if the run failed first). `wrapped` is set when it waited on a later lap: the caller
// then acquires (fence_acq_rel) before its stores.
template <class T, bool S>
__device__ __forceinline__ bool stamped_slot_free(const QueueRef<T, S>& q, u64 i, const Control* ctl, bool& wrapped) {
    if (i <= q.mask) return true;
    wrapped = true;
    return wait_stamp(q.stamp(i), q.lap2(i), ctl);
}

__device__ __forceinline__ void report_overflow(Control* ctl, QueueCounters* c, u64 alive) {
    ATOS_ATOMIC(atomicMax)(&c->needed.value, alive);
    ATOS_ATOMIC(atomicCAS)(&ctl->status.value, STATUS_OK, STATUS_OVERFLOW);
}

// Whether the reserved items below `need` may be written, after one look (never waits):
// ROOM_YES, ROOM_NO (an overflow, reported, or a failed run; nothing is written), or ROOM_WAIT
// (look again after a nap). More than `capacity` items alive is an overflow. Else every item of
// an earlier lap in these slots is already claimed, and its claimer is copying it out without
// waiting on anything: wait for that copy to be counted.
//
// Alive items (pushed, not yet claimed) are bounded from above by `need - start` (`start` lags a
// claim by one atomic) and from below by `need - end + avail` (items reserved but unwritten, plus
// written ones not claimed; `avail` lags a publication by one atomic). Proceed when the upper
// bound fits, report an overflow when the lower one does not, and look again while a claim or a
// publication is between its two atomics.
enum RoomLook : int { ROOM_WAIT = 0, ROOM_YES = 1, ROOM_NO = 2 };
template <class T, bool S>
__device__ int look_for_room(const QueueRef<T, S>& q, u64 need, Control* ctl) {
    QueueCounters* c = q.counters;
    if (!q.ring()) {  // its peak is end_alloc: no extra atomic on the hot path
        if (need <= q.capacity) return ROOM_YES;
        report_overflow(ctl, c, need);
        return ROOM_NO;
    }
    // A tiled ring's `start` never passes `end` <= base. A stamped ring's may pass a range whose
    // writer has not yet found room (claims take credits by count, and positions in order):
    // every item below `need` is then claimed, so the bound is 0. (Taken as a difference, it
    // wrapped around and that writer waited forever, with claimers waiting for its items: call
    // s1 of docs/results/2026-12-07c, colouring on thread workers.)
    const u64 started = ld_relaxed(&c->start.value);
    const u64 upper = need > started ? need - started : 0;
    if (upper > q.capacity) {
        // `avail` before `end` (a fence between): a publication seen by neither read is left
        // out, never counted twice, so this stays a lower bound.
        long long avail = (long long)ld_relaxed(&c->avail.value);
        fence_acq_rel<S>();
        const u64 counted = ld_relaxed(stamped(q) ? &c->end_count.value : &c->end.value);
        long long lower = (long long)(need - counted) + (avail > 0 ? avail : 0);
        if (lower > (long long)q.capacity) {
            report_overflow(ctl, c, (u64)lower);
            return ROOM_NO;
        }
        return ld_relaxed(&ctl->status.value) != STATUS_OK ? ROOM_NO : ROOM_WAIT;
    }
    if (upper > ld_relaxed(&c->peak.value)) ATOS_ATOMIC(atomicMax)(&c->peak.value, upper);
    const u64 slots = q.mask + 1;
    if (need <= slots || stamped(q)) return ROOM_YES;  // stamped: each slot waits for its copy-out
    const u64 floor = need - slots;  // items below it must be copied out; alive <= slots => start >= floor
    if (ld_relaxed(&c->read_end.value) < floor) {
        try_advance<S>(c->read_count, c->read_max, c->read_end, nullptr);
        if (ld_relaxed(&c->read_end.value) < floor) return ld_relaxed(&ctl->status.value) != STATUS_OK ? ROOM_NO : ROOM_WAIT;
    }
    fence_acq_rel<S>();  // acquire: the copy-outs of the earlier lap come before our overwrite
    return ROOM_YES;
}

// The first look of a push of `n` items reserved at `base`: look_for_room, except that a
// stamped ring reports a push of more than `capacity` items an overflow at once. A tiled ring's
// lower bound does the same (its `start` never passes the range, so the bound counts all of
// it); a stamped ring's claims may pass part of it, and its writer would then wait for room
// while the claimers of its items waited for it.
template <class T, bool S>
__device__ __forceinline__ int first_look(const QueueRef<T, S>& q, u64 base, u64 n, Control* ctl) {
    if (stamped(q) && n > q.capacity) {
        report_overflow(ctl, q.counters, n);
        return ROOM_NO;
    }
    return look_for_room(q, base + n, ctl);
}

// Called by the one thread that reserved items [base, base + n), alone (its other threads, if
// any, wait at a block barrier): looks for room until it has an answer. Returns whether they may
// be written.
template <class T, bool S>
__device__ bool make_room(const QueueRef<T, S>& q, u64 base, u64 n, Control* ctl) {
    uint32_t nap = 32;
    for (bool first = true;; first = false) {
        const int look = first ? first_look(q, base, n, ctl) : look_for_room(q, base + n, ctl);
        if (look != ROOM_WAIT) return look == ROOM_YES;
        __nanosleep(nap);
        if (nap < 1024) nap *= 2;
    }
}

// The lanes of `mask` as a group (converged_lanes): its lowest lane leads.
struct Lanes {
    uint32_t mask, leader, rank;
    __device__ bool is_leader() const { return rank == 0; }
    template <class V> __device__ V share(V v) const { return __shfl_sync(mask, v, leader); }
};

// make_room for a group whose leader reserved the items (the `Lanes` of a push, or the worker
// group of a mesh forward): the whole group waits for room, the leader looking and
// every thread getting the answer. `look` is the leader's first look (`look_for_room`, taken
// with the reservation, in the same branch), any value elsewhere. Returns whether the items
// may be written, on every thread.
//
// Taking the first look inside the reservation's branch keeps the common case (room at once)
// one divergent region: written as a loop around both, ptxas gave priority SSSP's CTA kernel
// 40 registers and 117 spill instructions, up to 27% slower than before the group wait on an
// H100 (docs/results/2026-11-24h-push-registers-h100.md).
template <class G, class T, bool S>
__device__ __forceinline__ bool wait_for_room_group(const G& g, const QueueRef<T, S>& q, u64 need, Control* ctl, int look) {
    look = g.share(look);
    uint32_t nap = 32;
    while (look == ROOM_WAIT) {
        __nanosleep(nap);
        if (nap < 1024) nap *= 2;
        if (g.is_leader()) look = look_for_room(q, need, ctl);
        look = g.share(look);
    }
    return look == ROOM_YES;
}

// The aggregated push that push_lanes and push_lanes_many share: the leader of `lanes` reserves
// `total` slots, the lanes wait for room together (the leader looks, every lane gets the answer
// and naps), each lane writes its `n` (at most MAXN) items `item(k)` at base + offset + k, fences
// them, and the leader publishes the total (stamped rings: each lane stamps its slots, the
// leader counts the range before and credits it after). A leader that waited alone while the
// others sat in a shuffle hung warp workers on an H100 (priority SSSP with rings nearly full,
// its lanes split over several rings: lanes left waiting in the shuffle after their leader was
// gone; docs/results/2026-11-24g-overflow-hang-h100.md).
template <uint32_t MAXN, class T, bool S, class F>
__device__ __forceinline__ void push_reserved(const QueueRef<T, S>& q, Control* ctl, const Lanes& lanes, uint32_t total, uint32_t offset, uint32_t n, const F& item) {
    u64 base = 0;
    int look = ROOM_WAIT;
    if (lanes.is_leader()) {
        base = ATOS_ATOMIC(atomicAdd)(&q.counters->end_alloc.value, (u64)total);
        look = first_look(q, base, (u64)total, ctl);
    }
    base = lanes.share(base);
    const bool ok = wait_for_room_group(lanes, q, base + total, ctl, look);
    __syncwarp(lanes.mask);  // the leader's acquire (room for an earlier lap) orders our stores too
    if (stamped(q)) {
        if (!ok) return;
        // Approved before the leader's fence, credited after it (the overflow bound's order).
        if (lanes.is_leader()) ATOS_ATOMIC(atomicAdd)(&q.counters->end_count.value, (u64)total);
        const u64 first = base + offset;
        bool wrapped = false, free = true;
#pragma unroll
        for (uint32_t k = 0; k < MAXN; ++k) {
            if (k < n) free = stamped_slot_free(q, first + k, ctl, wrapped) && free;
        }
        if (wrapped) fence_acq_rel<S>();  // the copy-outs of the lap before come before our stores
        if (free) {
#pragma unroll
            for (uint32_t k = 0; k < MAXN; ++k) {
                if (k < n) store_item(q.slot(first + k), item(k));
            }
        }
        if (n != 0 || lanes.is_leader()) fence_release<S>();
        if (free) {
#pragma unroll
            for (uint32_t k = 0; k < MAXN; ++k) {
                if (k < n) st_stamp(q.stamp(first + k), q.lap2(first + k) + 1);
            }
        }
        __syncwarp(lanes.mask);
        if (lanes.is_leader()) ATOS_ATOMIC(atomicAdd)(&q.counters->avail.value, (u64)total);
        return;
    }
    if (ok && n != 0) {
#pragma unroll
        for (uint32_t k = 0; k < MAXN; ++k) {
            if (k < n) store_item(q.slot(base + offset + k), item(k));
        }
        fence_release<S>();  // the slot stores come before the leader's publication
    }
    __syncwarp(lanes.mask);
    if (lanes.is_leader() && ok) publish(q, base, total);
}

// Aggregated push of the lanes in `mask` (all calling it with the same queue, `mask` from
// converged_lanes): one reservation for them all (push_reserved).
template <class T, bool S>
__device__ __forceinline__ void push_lanes(const QueueRef<T, S>& q, T item, Control* ctl, uint32_t mask) {
    const uint32_t leader = __ffs(mask) - 1;
    const uint32_t rank = __popc(mask & lanemask_lt());
    push_reserved<1>(q, ctl, Lanes{mask, leader, rank}, __popc(mask), rank, 1, [&](uint32_t) { return item; });
}

// push_lanes for lanes that each push their first `n` of `items` (n < 16; a lane may give 0):
// one reservation and one publication for them all, and one release fence per lane that
// stores, where a push_lanes per item took a reservation and a publication each. A lane's offset
// among the group's items comes from four ballots, one per bit of `n`. All of them count as
// alive at once (up to 32 x 15): a ring whose capacity is below the total reports an overflow
// even if consumers could have drained it between per-item rounds (docs/runtime.md, "What
// counts as alive at once"). A per-slot fallback for that case moved ptxas's register
// allocation of the colouring units and was not measured, so it is not here.
template <class T, bool S, uint32_t K>
__device__ __forceinline__ void push_lanes_many(const QueueRef<T, S>& q, const T (&items)[K], uint32_t n, Control* ctl, uint32_t mask) {
    static_assert(K < 16, "the offsets take four ballots: at most 15 items a lane");
    const uint32_t leader = __ffs(mask) - 1;
    const uint32_t below = mask & lanemask_lt();
    uint32_t offset = 0, total = 0;
#pragma unroll
    for (uint32_t b = 0; b < 4; ++b) {
        const uint32_t bit = __ballot_sync(mask, (n >> b) & 1u);
        offset += __popc(bit & below) << b;
        total += __popc(bit) << b;
    }
    if (total == 0) return;
    // `rank` only tells the leader (0) from the others here: push_reserved reads no more.
    push_reserved<K>(q, ctl, Lanes{mask, leader, below == 0 ? 0u : 1u}, total, offset, n, [&](uint32_t k) { return items[k]; });
}

// Warp-aggregated push: one reservation per group of converged lanes pushing to this queue.
template <class T, bool S>
__device__ __forceinline__ void push_warp(const QueueRef<T, S>& q, T item, Control* ctl) {
    push_lanes(q, item, ctl, converged_lanes((unsigned long long)q.counters));
}

// `end`, advanced if the writers below it have all finished: published_end_from with `e` and
// `alloc` the ring's `end` and `end_alloc`, read in that order; published_end reads them.
template <class T, bool S>
__device__ __forceinline__ u64 published_end_from(const QueueRef<T, S>& q, u64 e, u64 alloc) {
    if (alloc <= e) return e;
    QueueCounters* c = q.counters;
    try_advance<S>(c->end_count, c->end_max, c->end, q.ring() ? &c->avail : nullptr);
    return ld_relaxed(&c->end.value);
}
template <class T, bool S>
__device__ __forceinline__ u64 published_end(const QueueRef<T, S>& q) {
    QueueCounters* c = q.counters;
    const u64 e = ld_relaxed(&c->end.value);
    return published_end_from(q, e, ld_relaxed(&c->end_alloc.value));
}

// Takes up to `max_n` from a signed count of claimable items (a ring's `avail`, a priority
// queue's `open`) seen as `have`, with no retry loop: what a racing claim took first is given
// back. How many it took (cpu/queue.rs take_credit).
__device__ __forceinline__ long long take_credit(u64* credit, long long have, u64 max_n) {
    if (have <= 0) return 0;
    long long want = have < (long long)max_n ? have : (long long)max_n;
    long long had = (long long)ATOS_ATOMIC(atomicAdd)(credit, (u64)(-want));
    long long took = had <= 0 ? 0 : (had < want ? had : want);
    if (took < want) ATOS_ATOMIC(atomicAdd)(credit, (u64)(want - took));
    return took;
}

// Ring queues: claims up to `max_n` written items for one caller, with no retry loop however
// many workers poll. `avail` counts written, unclaimed items: a claim takes from it (and gives
// back what it could not take); only then does it move `start`, so the claimed items are all
// below `end` and can be copied out at once. Returns how many; `base` is the first.
template <class T, bool S>
__device__ uint32_t claim_for(const QueueRef<T, S>& q, u64 max_n, u64& base) {
    QueueCounters* c = q.counters;
    long long avail = (long long)ld_relaxed(&c->avail.value);
    if (stamped(q)) {
        // Writers credit `avail` themselves; the claimed positions' stamps order the items
        // (run_from waits for them), so no fence here.
        const long long took = take_credit(&c->avail.value, avail, max_n);
        if (took == 0) return 0;
        base = ATOS_ATOMIC(atomicAdd)(&c->start.value, (u64)took);
        return (uint32_t)took;
    }
    if (avail <= 0) {
        if (ld_relaxed(&c->end_alloc.value) <= ld_relaxed(&c->start.value)) return 0;
        published_end(q);
        avail = (long long)ld_relaxed(&c->avail.value);
    }
    const long long took = take_credit(&c->avail.value, avail, max_n);
    if (took == 0) return 0;
    // The items `start` hands out may have been credited to another claimer: acquire the credits
    // we took from and release them on `start`, then acquire what earlier claimers released on
    // it, so every credit that covers our items happens before our loads.
    fence_acq_rel<S>();
    base = ATOS_ATOMIC(atomicAdd)(&c->start.value, (u64)took);
    fence_acq_rel<S>();
    return (uint32_t)took;
}

// The items [b, b + got) that the lowest lane of `mask` claimed for the converged lanes, dealt
// out `per_lane` each in lane order (`rank`: this lane's place): this lane's count (0 when
// none are left for it), its first index in `base`. Used by `claim` and `take_pass`.
__device__ __forceinline__ uint32_t share_claim(uint32_t mask, uint32_t rank, u64 b, u64 got, uint32_t per_lane, u64& base) {
    const uint32_t leader = __ffs(mask) - 1;
    b = __shfl_sync(mask, b, leader);
    got = __shfl_sync(mask, got, leader);
    __syncwarp(mask);  // a shuffle orders no memory: the leader's acquire reaches the lanes here
    const u64 lo = (u64)rank * per_lane;
    if (lo >= got) return 0;
    base = b + lo;
    return (uint32_t)(got - lo < per_lane ? got - lo : per_lane);
}

// A priority queue's next ring: claims up to `max_n` of its open items (below `next_end`) for
// one caller, as claim_for claims written ones, from the `open` count the advances credit
// instead of the ring's `avail` (which its publications credit, open or not; it is debited
// too, so make_room's bound holds). The claimed items are a prefix of the open ones: `start`
// never passes `next_end`.
template <class T, bool S>
__device__ uint32_t claim_open_for(const QueueRef<T, S>& q, u64* open, u64 max_n, u64& base) {
    QueueCounters* c = q.counters;
    const long long took = take_credit(open, (long long)ld_relaxed(open), max_n);
    if (took == 0) return 0;
    ATOS_ATOMIC(atomicAdd)(&c->avail.value, (u64)(-took));
    fence_acq_rel<S>();  // as claim_for: the advance's credit (after its acquire of the items) first
    base = ATOS_ATOMIC(atomicAdd)(&c->start.value, (u64)took);
    fence_acq_rel<S>();
    return (uint32_t)took;
}

// claim_for, once for the converged lanes calling it (thread groups; a warp or CTA group claims
// from one lane): the first claims `max_n` per lane and the lanes take theirs in lane order.
// Only one lane per warp polls the counters: hundreds of thousands of one-thread groups polling
// them each made thread-worker runs 40-80x slower than CTA ones on a graph with few items alive
// (luxembourg_osm on an H100: BFS thread/1 135 ms, thread/8 272 ms, cta/8 3.2 ms;
// docs/results/2026-11-23-warp-claims-h100.md).
// `open` null: the ring's written items (claim_for); else a priority queue's next ring's open
// items (claim_open_for, from the `open` count).
template <class T, bool S>
__device__ uint32_t claim(const QueueRef<T, S>& q, uint32_t max_n, u64& base, u64* open = nullptr) {
    const uint32_t mask = converged_lanes((unsigned long long)q.counters);
    const uint32_t rank = __popc(mask & lanemask_lt());
    u64 b = 0, got = 0;
    if (rank == 0) {
        const u64 want = (u64)max_n * __popc(mask);
        got = open ? claim_open_for(q, open, want, b) : claim_for(q, want, b);
    }
    return share_claim(mask, rank, b, got, max_n, base);
}

// Windowed launches (one in flight per queue): hands out up to `want` items of the launch's
// window [.., hi) in order, from `window_next` (set to the window's start by the host), and
// accounts for them as claimed (`avail`, then `start`, as `claim` does). The handed-out items
// are a prefix of the queue, so an item a push waits for (below `start`) is always held by a
// claimer that copies it out without waiting. The host hands out windows of published items
// only.
template <class T, bool S>
__device__ __forceinline__ uint32_t take_window(const QueueRef<T, S>& q, uint32_t want, u64 hi, u64& base) {
    QueueCounters* c = q.counters;
    if (ld_relaxed(&c->window_next.value) >= hi) return 0;
    u64 b = ATOS_ATOMIC(atomicAdd)(&c->window_next.value, (u64)want);
    if (b >= hi) return 0;
    uint32_t n = (uint32_t)(hi - b < want ? hi - b : want);
    if (q.ring()) ATOS_ATOMIC(atomicAdd)(&c->avail.value, (u64)(-(long long)n));
    ATOS_ATOMIC(atomicAdd)(&c->start.value, (u64)n);
    // Acquire: a discrete window may have been published by a launch still running on another
    // queue's stream (no launch boundary between them); its writers released `end` after their
    // slot stores, and the host read `end` before this launch.
    fence_acq_rel<S>();
    base = b;
    return n;
}

// Linear queues (after Atos): a worker reserves `max_n` slots from `start` with one atomicAdd,
// ahead of `end`, and takes the part already written, round after round, until its reservation
// is used up. `cur`/`lim` are the worker's reservation, kept between calls.
template <class T, bool S>
__device__ uint32_t reserve(const QueueRef<T, S>& q, uint32_t max_n, u64& cur, u64& lim, u64& base) {
    QueueCounters* c = q.counters;
    if (cur == lim) {
        cur = ATOS_ATOMIC(atomicAdd)(&c->start.value, (u64)max_n);
        lim = cur + max_n;
    }
    u64 e = ld_relaxed(&c->end.value);
    if (e <= cur) e = published_end(q);
    u64 hi = e < lim ? e : lim;
    if (hi <= cur) return 0;
    fence_acq_rel<S>();  // acquire: the items below `end` are written
    base = cur;
    cur = hi;
    return (uint32_t)(hi - base);
}

// ---- priority queues (twins: atos-codegen keys.rs, cpu/queue.rs) ----
//
// A priority queue is three rings and a PriorityControl: pushes whose encoded key is below the
// threshold go to the near ring (the items only; its task pops them), those below the band end
// to the next ring (the items only: the band the next advance opens; persistent runs), the
// others to the far ring with their key. When the band is done and the far ring's open pass is
// all done, one group advances the threshold (advance_band), opens the next ring's items and a
// pass over the far items published so far: each is moved to the near ring if its key is now
// below the threshold, to the next ring if below the band end, else pushed back to the far ring
// (past the pass). Moves and push-backs are pushes, counted like any other, so termination
// (QueueSet::quiescent over all three rings) is unchanged.

__device__ __forceinline__ u64 encode_key(uint32_t k) { return k; }
__device__ __forceinline__ u64 encode_key(float k) {
    uint32_t b = __float_as_uint(k);
    return (b & 0x80000000u) ? (u64)(~b) : (u64)(b | 0x80000000u);
}
__device__ __forceinline__ float decode_f32_key(u64 e) {
    uint32_t b = (uint32_t)e;
    return __uint_as_float((b & 0x80000000u) ? (b & 0x7fffffffu) : ~b);
}

// keys.rs next_threshold: `delta` above the smaller of the pass's pushed-back minimum (when it
// is above t) and t, always above t, at most EVERY_KEY.
template <class K> __device__ u64 next_threshold(u64 t, u64 delta, u64 pass_min);
template <> __device__ u64 next_threshold<uint32_t>(u64 t, u64 delta, u64 pass_min) {
    if (t >= EVERY_KEY) return EVERY_KEY;
    u64 base = (pass_min < EVERY_KEY && pass_min > t) ? pass_min : t;
    u64 next = base + delta < EVERY_KEY ? base + delta : EVERY_KEY;
    if (next < base + 1) next = base + 1;
    return next < EVERY_KEY ? next : EVERY_KEY;
}
template <> __device__ u64 next_threshold<float>(u64 t, u64 delta, u64 pass_min) {
    if (t >= EVERY_KEY) return EVERY_KEY;
    u64 base = (pass_min < EVERY_KEY && pass_min > t) ? pass_min : t;
    float n = decode_f32_key(base) + __uint_as_float((uint32_t)delta);
    u64 next = (isnan(n) || isinf(n) && n > 0.0f) ? EVERY_KEY : encode_key(n);
    if (next < base + 1) next = base + 1;
    return next < EVERY_KEY ? next : EVERY_KEY;
}

// keys.rs advance_band: a persistent advance's new threshold and band end from the old ones.
// With items in the next ring its band becomes current (the threshold moves to the band end)
// and the band after it is one delta wide: never past keys the band's tasks, not run yet, may
// push. Without, nothing runs that could push below `pass_min` (slack 0): the threshold moves
// as next_threshold says from the old band end, and the band after it is one delta wide.
template <class K>
__device__ void advance_band(u64 t, u64 u, u64 delta, u64 pass_min, bool next_held, u64& t2, u64& u2) {
    if (next_held) {
        t2 = u > t ? u : t;
        u2 = next_threshold<K>(t2, delta, EVERY_KEY);
    } else {
        t2 = next_threshold<K>(u > t ? u : t, delta, pass_min);
        u2 = next_threshold<K>(t2, delta, EVERY_KEY);
    }
}

// The device half of a PriorityQueue field. KS (generated per queue) names the item, far item
// and key types and converts between them.
template <class KS>
struct PriorityRef {
    QueueRef<typename KS::Item> near;
    QueueRef<typename KS::Far> far;
    QueueRef<typename KS::Item> next;  // persistent: the band the next advance opens
    PriorityControl* pc;
};

// Persistent passes: hands out up to `want` far items of the open pass [.., pass_end), in order,
// accounting for them as claimed (`avail`, then `start`, as take_window does). A compare-and-swap
// never moves `window_next` past the pass, so the next pass starts where this one ended. The
// acquire after the hand-out pairs with the advance's release of `pass_end` (which came after
// its acquire of the far ring's `end`): the items are written before they are loaded.
//
// The converged lanes calling it (thread groups; a warp or CTA group calls it from one lane)
// take their items with one swap, `want` each in lane order: with one swap per thread, hundreds
// of thousands of thread groups would contend on `window_next` at every pass.
template <class T, bool S>
__device__ uint32_t take_pass(const QueueRef<T, S>& q, uint32_t want, const u64* pass_end, u64& base) {
    QueueCounters* c = q.counters;
    const uint32_t mask = converged_lanes((unsigned long long)c);
    const uint32_t rank = __popc(mask & lanemask_lt());
    u64 b = 0, got = 0;
    if (rank == 0) {
        const u64 hi = ld_relaxed(pass_end);
        const u64 most = (u64)want * __popc(mask);
        u64 cur = ld_relaxed(&c->window_next.value);
        while (cur < hi) {
            const u64 n = hi - cur < most ? hi - cur : most;
            const u64 seen = ATOS_ATOMIC(atomicCAS)(&c->window_next.value, cur, cur + n);
            if (seen == cur) {
                if (q.ring()) ATOS_ATOMIC(atomicAdd)(&c->avail.value, (u64)(-(long long)n));
                ATOS_ATOMIC(atomicAdd)(&c->start.value, n);
                fence_acq_rel<S>();
                b = cur;
                got = n;
                break;
            }
            cur = seen;
        }
    }
    return share_claim(mask, rank, b, got, want, base);
}

// Called by a group's leader that found nothing to run in the near ring, the open part of the
// next ring nor the open pass. Advances the threshold when the band is settled (at most `slack`
// of its items in flight: near items and open next items; 0: quiescent, every push to them
// done), every far item handed out so far is done, and items wait past the open parts (of the
// next ring, or of the far ring). The band the next ring holds, [threshold, band_end), becomes
// current: the advance opens the next ring up to its published end (its items run as tasks at
// once, no pass between: `claim` takes them from the `open` count the advance credits) and
// opens a pass over the far ring, which moves the band after it into the next ring while the
// current band runs. When the next ring holds nothing, the threshold moves from the smallest
// key sent far since the last advance (`pass_min`), as keys.rs `advance_band` says, and the pass
// moves that band near.
//
// With slack, tasks still running may push during the advance with the old threshold and band
// end: an item can land in the next ring past its open part while its key is now current, or
// far past the new pass while its key went into (or, by the pusher's relaxed pre-read, skipped)
// this advance's `pass_min`. The next advance opens it, or a later pass moves it (late, never
// lost); bands no longer drain in order, which programs such as k-core rely on (they keep slack
// 0). One group at a time (the lock); the exact checks are repeated under it, each counter pair
// read as QueueSet::quiescent reads its sums (done first, a fence, then the bound). "Handed
// out" is `window_next`, not `start`: take_pass moves `start` one atomic after its
// compare-and-swap on `window_next`, and a batch between the two (held, not yet split) must
// block the advance, or it is split under the next threshold with its push-backs missing from
// `pass_min`. Returns whether it advanced.
//
// `done` is read before the pushes: both only grow, so `pushed - done` over-counts the items in
// flight at any instant between the reads, never under-counts them. The open next items are
// those below `next_end` and the parked ones the advances opened (`open_parked`), both moved
// only by the lock's holder.
//
// Parked items (persistent CTA groups, worker.cuh `Park`): a group may hold up to a batch of its
// own next-ring pushes in shared memory instead of publishing them, counting them in the next
// ring's `kept` (termination) and in `parked` (epoch << PARK_EPOCH_SHIFT | count), one atomic
// that also tells it the epoch they belong to. An advance takes the epoch's count with the lock
// held (an exchange that starts the next epoch), opens those items as it opens the ring's
// (`open_parked`), and each group runs its parked items once it sees another epoch. A group that
// parks after the exchange counts in the next epoch: the next advance opens its items (late,
// never lost, as a next-ring push past `next_end`).
//
// The words each step reads are loaded together: relaxed loads, unordered with one another, so
// a group of them costs one trip to L2, where a load per check (short-circuited) made the path a
// chain of dependent loads. One order this drops: the next ring's ends and the parked word were
// read after the far ring's `published_end` (and the fence its try_advance may take); now they
// are read with the far ring's. A task still pushing during the advance (slack, or an idle
// hook) may then have its far item opened by this advance while its next-ring item waits for
// the following one: late, never lost, as above. Priority BFS (one advance per depth) ran
// 7-11% faster on an H100, about 1 us less per advance
// (docs/results/2026-12-06b-nvshmem-calls-h100.md, call 6).
__device__ __forceinline__ bool band_settled(u64 near_alloc, u64 near_kept, u64 near_done, u64 next_open, u64 next_done, u64 slack) {
    return near_alloc + near_kept - near_done + (next_open - next_done) <= slack;
}

__device__ __forceinline__ u64 parked_count(u64 word) { return word & ((1ull << PARK_EPOCH_SHIFT) - 1); }

template <class KS>
__device__ bool advance_priority(const PriorityRef<KS>& p) {
    PriorityControl* pc = p.pc;
    QueueCounters* n = p.near.counters;
    QueueCounters* x = p.next.counters;
    QueueCounters* f = p.far.counters;
    // Whether to try: the pass handed out, something waiting past the open parts, the lock
    // free (one load each, at once), then the band settled (its counters: `done` first).
    const u64 open_end = ld_relaxed(&pc->pass_end.value);
    const u64 next_open = ld_relaxed(&pc->next_end.value);
    const u64 handed = ld_relaxed(&f->window_next.value);
    const u64 far_waits = ld_relaxed(&f->end_alloc.value), next_waits = ld_relaxed(&x->end_alloc.value);
    const u64 parked_seen = ld_relaxed(&pc->parked.value);
    const u64 locked = ld_relaxed(&pc->lock.value);
    if (handed < open_end) return false;  // the pass is still handed out
    if (far_waits <= open_end && next_waits <= next_open && parked_count(parked_seen) == 0)
        return false;  // nothing waits past the open parts
    if (locked != 0) return false;
    const u64 slack = ld_relaxed(&pc->slack.value);
    {
        const u64 near_done = ld_relaxed(&n->done.value), next_done = ld_relaxed(&x->done.value);
        const u64 opened = ld_relaxed(&pc->open_parked.value);
        const u64 alloc = ld_relaxed(&n->end_alloc.value), kept = ld_relaxed(&n->kept.value);
        if (!band_settled(alloc, kept, near_done, next_open + opened, next_done, slack)) return false;
    }
    if (ATOS_ATOMIC(atomicCAS)(&pc->lock.value, 0ull, 1ull) != 0ull) return false;
    fence_acq_rel();
    bool advanced = false;
    const u64 near_done = ld_relaxed(&n->done.value), next_done = ld_relaxed(&x->done.value),
              far_done = ld_relaxed(&f->done.value);
    fence_acq_rel();
    // Under the lock: only its holders move these (and `parked`'s epoch). Every word the rest
    // reads, at once; the threshold's words are read even when it does not advance.
    const u64 open_parked = ld_relaxed(&pc->open_parked.value);
    const u64 near_alloc = ld_relaxed(&n->end_alloc.value), near_kept = ld_relaxed(&n->kept.value);
    const u64 handed_now = ld_relaxed(&f->window_next.value);
    const u64 pass_end = ld_relaxed(&pc->pass_end.value), next_end = ld_relaxed(&pc->next_end.value);
    const u64 far_end = ld_relaxed(&f->end.value), far_alloc = ld_relaxed(&f->end_alloc.value);
    const u64 next_pub = ld_relaxed(&x->end.value), next_alloc = ld_relaxed(&x->end_alloc.value);
    const u64 word = ld_relaxed(&pc->parked.value);
    const u64 t = ld_relaxed(&pc->threshold.value), u = ld_relaxed(&pc->band_end.value);
    const u64 delta = ld_relaxed(&pc->delta.value), advances = ld_relaxed(&pc->advances.value);
    const bool quiet = band_settled(near_alloc, near_kept, near_done, next_end + open_parked, next_done, slack) &&
                       far_done == handed_now && pass_end == open_end && next_end == next_open;
    if (quiet) {
        const u64 hi = published_end_from(p.far, far_end, far_alloc);
        const u64 next_hi = published_end_from(p.next, next_pub, next_alloc);
        const bool next_held = next_hi > next_open || parked_count(word) != 0;
        if (hi > open_end || next_held) {
            const u64 m = ATOS_ATOMIC(atomicExch)(&pc->pass_min.value, EVERY_KEY);
            u64 t2, u2;
            advance_band<typename KS::Key>(t, u, delta, m, next_held, t2, u2);
            store_volatile(&pc->band_end.value, u2);
            store_volatile(&pc->threshold.value, t2);
            store_volatile(&pc->advances.value, advances + 1);
            fence_acq_rel();  // acquire the items below both ends; release them and the threshold
            // The epoch's parked items open with the ring's, after the new threshold: their
            // groups' pushes see the new band. Only the lock's holder moves the epoch (mod 2^24:
            // the shift drops the carry); parkers only add to the count below it, so one that
            // parked after the load above is opened here too (with slack, or from an idle hook's
            // pushes, a group may still park during an advance).
            const u64 parked =
                parked_count(ATOS_ATOMIC(atomicExch)(&pc->parked.value, ((word >> PARK_EPOCH_SHIFT) + 1) << PARK_EPOCH_SHIFT));
            if (parked != 0) store_volatile(&pc->open_parked.value, open_parked + parked);
            st_release(&pc->next_end.value, next_hi);
            if (next_hi > next_open) ATOS_ATOMIC(atomicAdd)(&pc->open.value, next_hi - next_open);
            st_release(&pc->pass_end.value, hi);
            advanced = true;
        }
    }
    st_release(&pc->lock.value, 0ull);
    return advanced;
}

template <class Q> __device__ bool quiescent_sums(const Q& q, u64* pushed_out);

// An idle sweep cursor: (sweep << IDLE_SWEEP_SHIFT) | the next position of its share. Hands
// out a window of up to `want` of the share's `size` positions (its first in `pos`); 0 when
// the share is all handed out.
__device__ __forceinline__ u64 grab_from(u64* cursor, u64 size, u64 want, u64& pos) {
    const u64 pos_mask = (1ull << IDLE_SWEEP_SHIFT) - 1;
    if ((ld_relaxed(cursor) & pos_mask) >= size) return 0;
    u64 old = ATOS_ATOMIC(atomicAdd)(cursor, want);
    fence_acq_rel();
    const u64 at = old & pos_mask;
    if (at >= size) return 0;
    pos = at;
    return size - at < want ? size - at : want;
}

// Opens the next sweep on a cursor (position 0 of the next sweep number).
__device__ __forceinline__ void next_sweep(u64* cursor) {
    const u64 sweep = ld_relaxed(cursor) >> IDLE_SWEEP_SHIFT;
    ATOS_ATOMIC(atomicExch)(cursor, (sweep + 1) << IDLE_SWEEP_SHIFT);
}

// A window of an idle sweep, split by what its positions are: indices to run the idle hook on,
// `[lo, lo + n)`, and positions of the device's combine copies to deliver,
// `[deliver_lo, deliver_lo + deliver_n)` (spread programs that `accumulate`: MeshQueues in
// mesh.cuh; on one GPU a window is all indices).
struct SweepParts {
    u64 lo, n, deliver_lo, deliver_n;
};
// Positions [pos, pos + n) of a device's sweep: its `copies` combine-copy positions come first,
// then its share of the hook's indices from `first` on (MeshQueues::grab_window says why). A
// window holding both delivers first. A window of deliveries only has no indices (n 0, lo
// `first`). The CPU executor's twin is `SweepWindow::split` (cpu/mod.rs); `atos::gpu::twins`
// checks the two agree on a GPU.
__device__ __forceinline__ SweepParts split_sweep(u64 pos, u64 n, u64 copies, u64 first) {
    const u64 deliver = pos < copies ? (copies - pos < n ? copies - pos : n) : 0;
    const u64 past = pos + deliver > copies ? pos + deliver - copies : 0;
    return SweepParts{first + past, n - deliver, pos, deliver};
}

// The counters of every queue of the program.
template <uint32_t N>
struct QueueSet {
    QueueCounters* c[N];

    // Every push of the run, all queues: reserved in a queue, or kept by the CTA that pushed.
    __device__ u64 pushed() const {
        u64 alloc = 0;
        for (uint32_t i = 0; i < N; ++i) alloc += ld_relaxed(&c[i]->end_alloc.value) + ld_relaxed(&c[i]->kept.value);
        return alloc;
    }
    __device__ u64 done() const {
        u64 done = 0;
        for (uint32_t i = 0; i < N; ++i) done += ld_relaxed(&c[i]->done.value);
        return done;
    }
    __device__ bool quiescent(u64* pushed_out) const { return quiescent_sums(*this, pushed_out); }
    // The idle sweep (worker.cuh's IdleServer): one GPU deals the whole sweep from the control
    // block's cursor.
    __device__ u64 grab_window(Control* ctl, u64 range, u64 want, u64& lo) const {
        return grab_from(&ctl->idle_cursor.value, range, want, lo);
    }
    __device__ void open_sweep(Control* ctl) const { next_sweep(&ctl->idle_cursor.value); }
};

// True when, at one instant between the two passes, every item ever pushed had been fully
// processed: each done_q <= end_alloc_q + kept_q and both only grow, so equal sums read in this
// order (a fence between) force done_q == end_alloc_q + kept_q for every q at that instant. A first
// unfenced look answers "no" cheaply while work is still pending. `Q` sums some rings: one GPU's
// (QueueSet) or every device's (MeshQueues in mesh.cuh).
template <class Q>
__device__ bool quiescent_sums(const Q& q, u64* pushed_out) {
    if (!pushed_out && q.done() != q.pushed()) return false;
    u64 done_sum = q.done();
    fence_acq_rel();
    u64 alloc = q.pushed();
    if (pushed_out) *pushed_out = alloc;
    return done_sum == alloc;
}

// Adds each thread's count of items it ran inline (an inline task's items its pushes ran at
// once, never queued) to the queue's `inlined` word when the kernel ends: summed over the warp
// first (two 32-bit sums: 24 low bits and the rest), one atomic per warp. For the host's stats
// only; termination never reads it.
__device__ __forceinline__ void count_inlined(QueueCounters* c, u64 n) {
    const unsigned active = converged_lanes((unsigned long long)c);
    const u64 lo = __reduce_add_sync(active, (unsigned)(n & 0xFFFFFFull));
    const u64 hi = __reduce_add_sync(active, (unsigned)(n >> 24));
    const u64 total = lo + (hi << 24);
    if ((threadIdx.x & 31u) == (unsigned)(__ffs(active) - 1) && total != 0)
        ATOS_ATOMIC(atomicAdd)(&c->inlined.value, total);  // a ring's counters may be tagged (remote.cuh)
}

}  // namespace atos
