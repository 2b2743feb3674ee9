// A program spread over several GPUs of one node (peer-to-peer): the placement of indices on
// devices, `Atomics` arrays spread over the devices, pushes routed to the device that owns the
// item, and the termination sums over every device's rings. Included by units generated with
// ATOS_SYSTEM_SCOPE 1: atomics on shared state and on the counters termination reads hold
// between GPUs (see prelude.cuh); orderings take each ring's scope (QueueRef in queue.cuh): a
// device's local rings order at device scope, the receive rings peers push to at system scope.
//
// The model: one address space. Every element of an `Atomics` array has one home (its owner's
// memory, or device 0's for an array that is not spread) and every device reaches it through
// peer mappings, so a task computes exactly what it computes on one GPU; placement decides only
// where the work and the memory traffic happen. A push goes to the local ring when this device
// owns the item (its first part, as an index) and to the owner's receive ring otherwise.
#pragma once

// The run's placement and ring table: this device's `Mesh`, which its host copies into this
// module's constant memory before each launch (MeshProgram::launch_all; each device loads its
// own module, so each reads its own). A word read at a fixed place is then an operand of the
// instruction that uses it (the constant bank), not a load; an indexed one (`bounds[d]`,
// `sweeps[d]`) is a constant-cache load. So the own-range test of every element access and push
// is a subtraction and a comparison, where the copy in shared memory this replaces was read
// again after every atomic (an asm memory clobber; seen as LDS in the spread BFS unit's SASS)
// and took 232 bytes of shared memory per block. The host finds it by this name
// (`layout::mesh::CUDA_CONSTANT`, checked by tests/nvrtc_compile.rs).
extern "C" {
__constant__ atos::Mesh atos_mesh;
}

namespace atos {

// This block's accesses to `Atomics` elements in another device's memory (the device's
// `remote_ops` stat): one shared-memory add per access, which costs little next to the access.
__shared__ u64 remote_ops_block;

// Called by every thread at kernel entry.
__device__ __forceinline__ void start_mesh() {
    if (threadIdx.x == 0) remote_ops_block = 0;
    __syncthreads();
}

// This device's counters (DeviceCounters), in its global memory: said so, the compiler emits
// global atomics on them rather than generic ones that test for a shared address first (the
// address is a word of `atos_mesh`, in constant memory).
__device__ __forceinline__ DeviceCounters* own_counters() {
    DeviceCounters* const c = reinterpret_cast<DeviceCounters*>(atos_mesh.counters);
#if !ATOS_REMOTE_CALLS
    __builtin_assume(__isGlobal(c));
#endif
    return c;
}

// Whether index i is in this device's own range [own_lo, own_lo + own_span) of a ranges
// placement (a grid's every index but its edges, most of a kron part's): recognized with one
// subtraction and one comparison, and placed with the subtraction alone. Span 0 (an owner map,
// or an empty range): every index takes the general path.
__device__ __forceinline__ bool in_own_range(u64 i) { return i - atos_mesh.own_lo < atos_mesh.own_span; }

// Counts an access to an element whose home is device o.
__device__ __forceinline__ void count_access(uint32_t o) {
    if (o != (uint32_t)atos_mesh.device) atomicAdd(&remote_ops_block, 1ull);
}

// Called by every thread of the block when the kernel ends: adds the block's count to the
// device's `remote_ops`.
__device__ __forceinline__ void count_remote_ops() {
    __syncthreads();
    if (threadIdx.x == 0 && remote_ops_block != 0)
        atomicAdd(&own_counters()->remote_ops.value, remote_ops_block);
}

// The device that owns index i (device 0 for an index at or past the placed range).
__device__ __forceinline__ uint32_t owner_of(u64 i) {
    if (in_own_range(i)) return (uint32_t)atos_mesh.device;
    if (i >= atos_mesh.len) return 0;
    if (atos_mesh.kind == MESH_RANGES) {
        uint32_t o = 0;
#pragma unroll 1
        for (uint32_t d = 1; d < (uint32_t)atos_mesh.devices; ++d) o += i >= atos_mesh.bounds[d] ? 1u : 0u;
        return o;
    }
    return reinterpret_cast<const uint8_t*>(atos_mesh.owner)[i];
}

// Index i's position on its owner o.
__device__ __forceinline__ u64 local_of(u64 i, uint32_t o) {
    if (o == (uint32_t)atos_mesh.device && atos_mesh.own_span != 0) return i - atos_mesh.own_lo;
    if (atos_mesh.kind == MESH_RANGES) return i - atos_mesh.bounds[o];
    return reinterpret_cast<const uint32_t*>(atos_mesh.local)[i];
}

// An `Atomics` field: `s.f[i]` is element i wherever it lives (indices are checked against the
// field's length before this is called). Its parts table is held by value in the state, the
// kernel's parameter: its words are constant-bank operands, where a table in global memory was
// loaded again after every atomic (an asm memory clobber). The host fills each device's
// filter and combine words at each launch, for the running program.
template <class T>
struct Spread {
    SpreadParts t;
    // The device element i lives on (this device's own range first: `owner_of`).
    __device__ __forceinline__ uint32_t home_of(u64 i) const { return t.spread ? owner_of(i) : 0u; }
    // Element i's address on its home o (`home_of`).
    __device__ __forceinline__ T* at(u64 i, uint32_t o) const {
        return t.spread ? &reinterpret_cast<T*>(t.part[o])[local_of(i, o)] : &reinterpret_cast<T*>(t.part[0])[i];
    }
    // Element i's address, and in `o` the device it lives on: this device's own range first
    // (`in_own_range`: one subtraction places it), then the placement's general answer. Used
    // by element reads and `lower`/`raise`, a task's per-edge accesses (2 H200s, grid:4096²
    // BFS: 27.3 ms against 28.1 with `home_of` + `at` here, docs/results/2026-11-28c-x2-h200.md);
    // `deliver_combined` takes `home_of` and `at` instead.
    __device__ __forceinline__ T* locate(u64 i, uint32_t& o) const {
        if (!t.spread) {
            o = 0;
            return &reinterpret_cast<T*>(t.part[0])[i];
        }
        if (in_own_range(i)) {
            o = (uint32_t)atos_mesh.device;
            return &reinterpret_cast<T*>(t.part[o])[i - atos_mesh.own_lo];
        }
        o = owner_of(i);
        return &reinterpret_cast<T*>(t.part[o])[local_of(i, o)];
    }
    // The element, counted as a remote access when it lives on another device.
    __device__ __forceinline__ T& operator[](u64 i) const {
        uint32_t o;
        T* const p = locate(i, o);
        count_access(o);
        return *p;
    }
};

// Filter copies (docs/runtime.md, "Filter copies"). A field the plan gives one moves only one
// way (only `lower` and `fetch_min` write it, or only `raise` and `fetch_max`), and each device
// holds a copy of every element that is never past the element itself: below it, for `raise`;
// above it, for `lower`. `lower(i, v)` on an element of another device first reads the copy:
// at or below `v`, the element is too, and the answer (it did not move) is exact at that read.
// Otherwise the atomic goes to the element's owner, and its result (the element is now at most
// min(old, v)) lowers the copy. Copies are written with release and read with acquire at device
// scope: a device that answers from its copy also sees the owner's element at least that low.
// A copy written by two threads at once may keep the larger value: it only filters less.
// A scalar's bits as the unsigned integer of its width (B), and back.
template <class B, class T> __device__ __forceinline__ B bits_as(T v) {
    static_assert(sizeof(B) == sizeof(T), "same width");
    union { T t; B b; } u;
    u.t = v;
    return u.b;
}
template <class T> __device__ __forceinline__ T filter_load(const T* p) {
    if constexpr (sizeof(T) == 8) {
        unsigned long long b;
        asm volatile("ld.acquire.gpu.global.b64 %0, [%1];" : "=l"(b) : "l"(p) : "memory");
        return bits_as<T>(b);
    } else if constexpr (sizeof(T) == 4) {
        unsigned int b;
        asm volatile("ld.acquire.gpu.global.b32 %0, [%1];" : "=r"(b) : "l"(p) : "memory");
        return bits_as<T>(b);
    } else if constexpr (sizeof(T) == 2) {
        unsigned short b;
        asm volatile("ld.acquire.gpu.global.b16 %0, [%1];" : "=h"(b) : "l"(p) : "memory");
        return bits_as<T>(b);
    } else {
        static_assert(sizeof(T) == 1, "a scalar");
        unsigned short b;
        asm volatile("ld.acquire.gpu.global.b8 %0, [%1];" : "=h"(b) : "l"(p) : "memory");
        return bits_as<T>((uint8_t)b);
    }
}
template <class T> __device__ __forceinline__ void filter_store(T* p, T v) {
    if constexpr (sizeof(T) == 8) {
        asm volatile("st.release.gpu.global.b64 [%0], %1;" ::"l"(p), "l"(bits_as<unsigned long long>(v)) : "memory");
    } else if constexpr (sizeof(T) == 4) {
        asm volatile("st.release.gpu.global.b32 [%0], %1;" ::"l"(p), "r"(bits_as<unsigned int>(v)) : "memory");
    } else if constexpr (sizeof(T) == 2) {
        asm volatile("st.release.gpu.global.b16 [%0], %1;" ::"l"(p), "h"(bits_as<unsigned short>(v)) : "memory");
    } else {
        asm volatile("st.release.gpu.global.b8 [%0], %1;" ::"l"(p), "h"((unsigned short)bits_as<uint8_t>(v)) : "memory");
    }
}

template <class T> __device__ bool atomic_lower(const Spread<T>& a, u64 i, T v) {
    uint32_t o;
    T* const home = a.locate(i, o);
    // An element of this device's first (no filter to read), then the filter copy's address.
    T* const copy = o == (uint32_t)atos_mesh.device ? nullptr : reinterpret_cast<T*>(a.t.filter);
    if (copy == nullptr) {
        count_access(o);
        return atomic_lower(home, 0, v);
    }
    const T seen = filter_load(copy + i);
    if (seen <= v) return false;
    count_access(o);
    const T old = atomic_fetch_min(home, v);
    const T now = atos::min(old, v);
    if (!(seen <= now)) filter_store(copy + i, now);
    return old > v;
}
template <class T> __device__ bool atomic_raise(const Spread<T>& a, u64 i, T v) {
    uint32_t o;
    T* const home = a.locate(i, o);
    // An element of this device's first (no filter to read), then the filter copy's address.
    T* const copy = o == (uint32_t)atos_mesh.device ? nullptr : reinterpret_cast<T*>(a.t.filter);
    if (copy == nullptr) {
        count_access(o);
        return atomic_raise(home, 0, v);
    }
    const T seen = filter_load(copy + i);
    if (seen >= v) return false;
    count_access(o);
    const T old = atomic_fetch_max(home, v);
    const T now = atos::max(old, v);
    if (!(seen >= now)) filter_store(copy + i, now);
    return old < v;
}

// Combined adds (docs/runtime.md, "Combined adds"). `accumulate(i, v)` on an element of another
// device adds `v` into this device's combine copy of the field (one word per element, in its
// own memory, zero at each run start) instead of crossing the link; `deliver_combined` later
// moves a copy's element to its home in one add, and zeroes it. Groups drain the copies after
// their batches (`drain_combined`, below); the idle sweep delivers every device's copies before
// its share of the hook's indices (IdleServer), and a sweep's delivery marks it as not clean,
// so the run ends only after a sweep that found nothing to deliver: then nothing was in a copy
// when it opened, and no task ran since (an idle hook may not accumulate: plan.rs refuses it).
// Whatever is left when the kernel ends is delivered then (`deliver_rest`): after termination
// no task reads the field any more.
template <class T> __device__ __forceinline__ void atomic_accumulate(const Spread<T>& a, u64 i, T v) {
    const uint32_t o = a.home_of(i);
    // The combine copy's address only for another device's element.
    T* const copy = o == (uint32_t)atos_mesh.device ? nullptr : reinterpret_cast<T*>(a.t.combine);
    // One add either way (one call site keeps the task's registers down); the element's
    // address only when the add goes to it (an owner map's position is a load).
    const bool combined = copy != nullptr;
    if (!combined) count_access(o);
    atomic_reduce_add(combined ? copy + i : a.at(i, o), v);
}
// Moves element i of this device's combine copy to its home; whether it held anything. A copy
// starts at +0 and only takes adds, so it never holds -0: "nothing" is == 0 (a NaN is moved).
template <class T> __device__ bool deliver_combined(const Spread<T>& a, u64 i) {
    T* const copy = reinterpret_cast<T*>(a.t.combine);
    if (load_volatile(copy + i) == T(0)) return false;
    const T v = atomic_swap(copy + i, T(0));
    if (v == T(0)) return false;
    // Through home_of and at, the address before the count: `locate` here, or the count
    // first, and ptxas gave PageRank's spread unit 4-5x the spill loads (kernel_resources.rs).
    const uint32_t o = a.home_of(i);
    T* const home = a.at(i, o);
    count_access(o);
    atomic_reduce_add(home, v);
    return true;
}
// Draining the copies while tasks run (docs/runtime.md, "Combined adds"). A share waiting in a
// copy reaches its vertex only when delivered, and a vertex run before its shares arrive runs
// again after: sweeps alone left spread PageRank 12-20% more tasks than one device. So after
// each batch, after its pushes are published and before it counts done, a group delivers
// `drain` positions of this device's copies per item it ran, from a cursor that goes round them.
// Inside a batch a delivery is ordered like the batch's pushes: a sweep that can prove the end
// (a clean one) opens only once every batch is done, so a delivery during it would belong to a
// batch whose items were pushed during it, which the sweep's push count sees (close_sweep); and
// deliveries before it opened come before its reads.
template <class G, class D> __device__ void drain_combined(const G& g, uint32_t items, const D& deliver) {
    DeviceCounters* own = own_counters();
    u64 lo = 0, n = 0, len = 0;
    if (g.is_leader()) {
        len = ld_relaxed(&own->deliver_len.value);
        const u64 per = ld_relaxed(&own->drain.value);
        if (len != 0 && per != 0) {
            n = (u64)items * per < len ? (u64)items * per : len;
            lo = atomicAdd(&own->drain_cursor.value, n) % len;
        }
    }
    n = g.share(n);
    if (n == 0) return;
    lo = g.share(lo);
    len = g.share(len);
    const uint32_t moved = deliver_span(g, lo, n, len, deliver);
    if (g.is_leader() && moved != 0) atomicAdd(&own->delivered.value, (u64)moved);
}

// At the kernel's end (every group of the device has left the loop, and the run is over on
// every device): delivers whatever the device's copies still hold, by every thread of the grid.
template <class D> __device__ void deliver_rest(const D& deliver) {
    DeviceCounters* own = own_counters();
    const u64 total = own->deliver_len.value;
    const u64 stride = (u64)gridDim.x * blockDim.x;
    u64 moved = 0;
    for (u64 p = (u64)blockIdx.x * blockDim.x + threadIdx.x; p < total; p += stride) moved += deliver(p) ? 1u : 0u;
    if (moved != 0) atomicAdd(&own->delivered.value, moved);
}

// The index an item is routed by: the item itself, or a tuple's first part (atos-codegen
// rejects items whose first part is not an integer).
__device__ __forceinline__ u64 route_key(uint8_t v) { return v; }
__device__ __forceinline__ u64 route_key(uint16_t v) { return v; }
__device__ __forceinline__ u64 route_key(uint32_t v) { return v; }
__device__ __forceinline__ u64 route_key(uint64_t v) { return v; }
// A negative index is past every placed range: device 0 (as on the CPU).
__device__ __forceinline__ u64 route_key(int32_t v) { return v < 0 ? ~0ull : (u64)v; }
__device__ __forceinline__ u64 route_key(int64_t v) { return v < 0 ? ~0ull : (u64)v; }
template <class T> __device__ __forceinline__ u64 route_key(const T& t) { return route_key(t.f0); }

// Offers (docs/runtime.md, "Offers"; `Plan::offers`): a push of item (i, v) to another device
// for an inline task whose whole body is `if f.lower(i, v) { .. }`, where nothing else asks
// `f` with `lower`. Sent only if this device's copy of f[i] is above `v` (a NaN on either side
// sends), and the copy then takes `v`: a later offer of `v` or more to i from this device
// would find f[i] at or below it once the first is applied, so it is dropped here without a
// link crossing. The copy here may be below the element while an offer travels, so no
// `atomic_lower` may read it: the plan gives offers only to fields nothing else lowers (the
// guards run on the owner, whose own elements never read the copy). An index past the field
// is sent: the owner's guard reports it.
template <class T, class I> __device__ bool offer_lower(const Spread<T>& a, u64 len, I i, T v) {
    const u64 k = route_key(i);
    T* const copy = reinterpret_cast<T*>(a.t.filter);
    if (copy == nullptr || !a.t.spread || k >= len) return true;
    const T seen = filter_load(copy + k);
    if (seen <= v) return false;
    filter_store(copy + k, v);
    return true;
}
template <class T, class I> __device__ bool offer_raise(const Spread<T>& a, u64 len, I i, T v) {
    const u64 k = route_key(i);
    T* const copy = reinterpret_cast<T*>(a.t.filter);
    if (copy == nullptr || !a.t.spread || k >= len) return true;
    const T seen = filter_load(copy + k);
    if (seen >= v) return false;
    filter_store(copy + k, v);
    return true;
}

// Per-warp remote pushes (thread and warp groups): no stage.
struct NoRemoteStage {
    static constexpr bool on = false;
};

// CTA groups stage their remote pushes in shared memory, as their local ones (StagedPusher):
// an item and the device it goes to. At the end of a batch, `flush` makes one reservation per
// destination for the whole CTA (in the owner's receive ring, eager; in this device's outbox,
// aggregated) instead of one per warp and push, each of them five or six atomics on the same
// few counter lines, and over the link when eager. A full stage spills through the per-warp
// path. ID keeps two queues' shared arrays apart.
template <class T, uint32_t STAGE, uint32_t ID>
struct RemoteStage {
    static constexpr bool on = true;
    T* items;
    uint32_t* tags;  // the destination; during a flush, also the item's rank among its destination's
    uint32_t* staged;

    static __device__ RemoteStage make() {
        __shared__ T items[STAGE];
        __shared__ uint32_t tags[STAGE];
        __shared__ uint32_t staged;
        if (threadIdx.x == 0) staged = 0;
        __syncthreads();
        return RemoteStage{items, tags, &staged};
    }
    // Whether the item was staged (false: the stage is full).
    __device__ bool put(T item, uint32_t to) const {
        const uint32_t slot = atomicAdd(staged, 1u);
        if (slot >= STAGE) return false;
        items[slot] = item;
        tags[slot] = to;
        return true;
    }
    // Called by every thread of the CTA, before the batch counts `done`: the reservations in
    // the target rings come first, so termination's sums never miss a staged item.
    template <class Q>
    __device__ void flush(const Q* rings, Control* ctl) const {
        __syncthreads();
        const uint32_t n = min(*staged, STAGE);
        if (n == 0) return;
        __shared__ uint32_t count[MAX_DEVICES];
        __shared__ u64 base[MAX_DEVICES];
        __shared__ int ok[MAX_DEVICES];
        if (threadIdx.x < MAX_DEVICES) count[threadIdx.x] = 0;
        __syncthreads();
        for (uint32_t i = threadIdx.x; i < n; i += blockDim.x) {
            const uint32_t to = tags[i];
            tags[i] = atomicAdd(&count[to], 1u) * MAX_DEVICES + to;
        }
        __syncthreads();
        const uint32_t d = threadIdx.x;
        if (d < (uint32_t)atos_mesh.devices && count[d] != 0) {
            base[d] = ATOS_ATOMIC(atomicAdd)(&rings[d].counters->end_alloc.value, (u64)count[d]);
            ok[d] = make_room(rings[d], base[d], count[d], ctl);
        }
        __syncthreads();
        bool stored = false;
        for (uint32_t i = threadIdx.x; i < n; i += blockDim.x) {
            const uint32_t to = tags[i] % MAX_DEVICES;
            if (ok[to]) {
                store_item(rings[to].slot(base[to] + tags[i] / MAX_DEVICES), items[i]);
                stored = true;
            }
        }
        if (stored) fence_release<Q::sys>();  // the slot stores come before the publications
        __syncthreads();
        if (d < (uint32_t)atos_mesh.devices && count[d] != 0 && ok[d]) publish(rings[d], base[d], count[d]);
        if (threadIdx.x == 0) {
            atomicAdd(&own_counters()->sent.value, (u64)n);
            *staged = 0;
        }
        __syncthreads();
    }
};

// A queue field's push channel: items this device owns go to `local` (staged or warp-aggregated
// as on one GPU), the others to their owner: staged per CTA (Stage, above) or aggregated per
// destination among the warp's converged lanes. Eager (atos_mesh.batch == 0), they go straight
// into the owner's receive ring over the peer mapping; aggregated, into this device's outbox
// for the owner (a local ring), which a ForwardServer moves to the owner in batches.
template <class T, class Local, class Stage = NoRemoteStage>
struct RoutedPusher {
    Local local;
    const QueueRef<T, true>* peers;  // every device's receive ring of this queue (a table on this device)
    const QueueRef<T>* outbox;       // aggregated runs: this device's outbox to each device (own entry unused)
    Control* ctl;
    Stage stage;

    __device__ void push(T item) const { put<false>(item); }
    __device__ void push_fenced(T item) const { put<true>(item); }
    template <bool FENCED> __device__ void put(T item) const {
        const uint32_t o = owner_of(route_key(item));
        if (o == (uint32_t)atos_mesh.device) {
            if (FENCED) local.push_fenced(item);
            else local.push(item);
            return;
        }
        if constexpr (Stage::on) {
            if (stage.put(item, o)) return;
        }
        if (FENCED && !ATOS_REMOTE_CALLS) fence_seq_cst();  // with calls, `owe` fenced already
        // Keyed by the target ring (as push_warp): lanes of two routed queues never share a
        // reservation, even where the compiler shares this code between them.
        const bool eager = atos_mesh.batch == 0;
        const uint32_t same = converged_lanes(eager ? (unsigned long long)peers[o].counters : (unsigned long long)outbox[o].counters);
        if (eager) push_lanes(peers[o], item, ctl, same);
        else push_lanes(outbox[o], item, ctl, same);
        if ((threadIdx.x & 31u) == (uint32_t)(__ffs(same) - 1))
            atomicAdd(&own_counters()->sent.value, (u64)__popc(same));
    }
    // Whether this device owns `item` (an inline task's push runs it here at once).
    __device__ bool owns(T item) const { return owner_of(route_key(item)) == (uint32_t)atos_mesh.device; }
    template <class G> __device__ void flush(const G& g) const {
        local.flush(g);
        if constexpr (Stage::on) {
            if (atos_mesh.batch == 0) stage.flush(peers, ctl);
            else stage.flush(outbox, ctl);
        }
    }
    // Persistent CTA groups keep their own local pushes (QueueServer's keep).
    template <uint32_t FETCH, uint32_t K, class W>
    __device__ uint32_t keep(const W& worker, T (&held)[K], uint32_t most) const {
        return local.template keep<FETCH>(worker, held, most);
    }
};

// Aggregated runs: moves batches of this device's outboxes of one queue to their owners'
// receive rings. An outbox is forwarded once it holds `batch` items (at most the queue's
// capacity: the host refuses more), or once `wait_ns` have passed since its last forward (so
// the last items of a run always leave; an outbox never forwarded counts as waited), or, when
// the run forwards when idle (`forward_idle`), at once if the group's pass over the queues
// found nothing else to do: at a run's end most groups are idle, and a chain of corrections
// crossing devices would otherwise wait out `wait_ns` at every hop. A
// forward is one claim from the outbox (up to K items per thread of the group), one
// reservation and one publication in the peer's ring, with the items written over the link by
// the whole group;
// the outbox counts them done after the peer's reservation, so the termination sums (which
// include every outbox) never miss an item between devices.
template <uint32_t K, class T>
struct ForwardServer {
    const QueueRef<T>* outbox;
    const QueueRef<T, true>* peers;
    Control* ctl;

    // `others`: whether an earlier server of the group's pass found work (run_persistent gives
    // every server this flag; this one alone reads it).
    template <class G, class Out>
    __device__ bool serve(const G& g, Out&, bool others) const {
        if (atos_mesh.batch == 0) return false;
        const bool now = !others && atos_mesh.forward_idle != 0;
        bool worked = false;
        for (uint32_t p = 0; p < (uint32_t)atos_mesh.devices; ++p)
            if (p != (uint32_t)atos_mesh.device && forward(g, outbox[p], peers[p], now)) worked = true;
        return worked;
    }

    template <class G>
    __device__ bool forward(const G& g, const QueueRef<T>& from, const QueueRef<T, true>& to, bool at_once) const {
        QueueCounters* c = from.counters;
        u64 base = 0;
        uint32_t n = 0;
        if (g.is_leader()) {
            const long long avail = (long long)ld_relaxed(&c->avail.value);
            if (avail > 0) {
                const u64 now = clock_ns();
                // A stamp at or after `now` (another group's forward since our clock read) has
                // not waited; an outbox never forwarded (stamp 0) has.
                const u64 stamp = ld_relaxed(&c->stamp.value);
                const bool waited = now > stamp && now - stamp >= (u64)atos_mesh.wait_ns;
                if (at_once || (u64)avail >= (u64)atos_mesh.batch || waited) {
                    n = claim(from, K * g.size(), base);
                    if (n) store_volatile(&c->stamp.value, now);
                }
            }
        }
        n = g.share(n);
        if (n == 0) return false;
        base = g.share(base);
        g.sync();  // the leader's acquire (claim) reaches the group through the barrier
        T held[K];
        for (uint32_t k = 0; k < K; ++k) {
            const uint32_t t = g.rank() + k * g.size();
            if (t < n) held[k] = load_item(from.slot(base + t));
        }
        g.sync();
        if (g.rank() == g.size() - 1) complete_range<false>(c->read_count, c->read_max, c->read_end, nullptr, base, n);
        u64 at = 0;
        int look = ROOM_WAIT;
        if (g.is_leader()) {
            at = ATOS_ATOMIC(atomicAdd)(&to.counters->end_alloc.value, (u64)n);
            look = look_for_room(to, at + n, ctl);
        }
        at = g.share(at);
        const bool ok = wait_for_room_group(g, to, at + n, ctl, look);
        if (ok) {
            for (uint32_t k = 0; k < K; ++k) {
                const uint32_t t = g.rank() + k * g.size();
                if (t < n) store_item(to.slot(at + t), held[k]);
            }
            fence_release<true>();  // the stores over the link come before the publication
        }
        g.sync();
        if (g.is_leader()) {
            if (ok) publish(to, at, n);
            add_release(&c->done.value, (u64)n);  // after the peer's reservation
        }
        return true;
    }
};

template <uint32_t K, class T>
__device__ ForwardServer<K, T> forward_server(const QueueRef<T>* outbox, const QueueRef<T, true>* peers, Control* ctl) {
    return ForwardServer<K, T>{outbox, peers, ctl};
}

// Every ring of every device, for the termination check (QueueSet's sums over the mesh). The
// table is device-major, `ring_count / devices` rings each.
struct MeshQueues {
    __device__ static u64 pushed(uint32_t lo, uint32_t hi) {
        QueueCounters* const* c = reinterpret_cast<QueueCounters* const*>(atos_mesh.rings);
        u64 alloc = 0;
        for (uint32_t i = lo; i < hi; ++i) alloc += ld_relaxed(&c[i]->end_alloc.value) + ld_relaxed(&c[i]->kept.value);
        return alloc;
    }
    __device__ static u64 done(uint32_t lo, uint32_t hi) {
        QueueCounters* const* c = reinterpret_cast<QueueCounters* const*>(atos_mesh.rings);
        u64 done = 0;
        for (uint32_t i = lo; i < hi; ++i) done += ld_relaxed(&c[i]->done.value);
        return done;
    }
    // The idle sweep (worker.cuh's IdleServer), spread: each device sweeps its own share of the
    // sweep's positions, from its own cursor, so an idle hook over the placed indices (a
    // re-scan of every vertex) reads the elements this device owns instead of reaching across
    // the links for half of them. The host writes the share into the device's counters at
    // each run start (`Placement::sweep_share`, which the CPU executor's simulated devices use
    // too): the device's placed range when the sweep is over exactly the placed indices, else
    // an even split. The sweep ends, as on one GPU, when `idle_finished` (one word, device 0's
    // control block) counts every position; the worker that ends it opens the next on every
    // device's cursor (its record first), so each window is still grabbed after the sweep's
    // record, which is all close_sweep's proof needs.
    // A device's positions of a sweep are its combine copies' elements (`deliver_len`, the same
    // on every device; 0 when nothing accumulates), then its share of the hook's indices. A
    // device's copies hold its adds to the other devices' elements, so delivering them at the
    // start of its sweep lets the other devices' hooks, later in their own sweeps, usually read
    // them in this sweep rather than the next (nothing between devices orders it; measured
    // neutral on PageRank, docs/results/2026-11-24c-h100-call1.md).
    __device__ static const DeviceCounters* own() { return reinterpret_cast<const DeviceCounters*>(atos_mesh.counters); }
    // The window's first position comes back as the share's first index plus the position
    // (the index itself when nothing accumulates), which `sweep_parts` splits.
    __device__ u64 grab_window(Control*, u64, u64 want, u64& lo) const {
        const u64 first = own()->sweep_lo.value;
        const u64 size = own()->sweep_hi.value - first + own()->deliver_len.value;
        u64 pos = 0;
        const u64 got = grab_from(reinterpret_cast<u64*>(atos_mesh.sweeps[atos_mesh.device]), size, want, pos);
        lo = first + pos;
        return got;
    }
    __device__ u64 sweep_total(u64 range) const { return range + (u64)atos_mesh.devices * own()->deliver_len.value; }
    // The `delivered` stat: elements a window of this device's sweep delivered.
    __device__ void count_delivered(uint32_t n) const {
        atomicAdd(&own_counters()->delivered.value, (u64)n);
    }
    __device__ SweepParts sweep_parts(u64 lo, u64 n) const {
        const u64 first = own()->sweep_lo.value;
        return split_sweep(lo - first, n, own()->deliver_len.value, first);
    }
    __device__ void open_sweep(Control*) const {
        for (uint32_t d = 0; d < (uint32_t)atos_mesh.devices; ++d) next_sweep(reinterpret_cast<u64*>(atos_mesh.sweeps[d]));
    }
    __device__ u64 pushed() const { return pushed(0, (uint32_t)atos_mesh.ring_count); }
    __device__ u64 done() const { return done(0, (uint32_t)atos_mesh.ring_count); }
    // A cheap first look at this device's own rings (in its own memory): work left here means
    // the run is not over, without reading the peers' counters over the links. "Not over" is
    // always a safe answer; only the full two-pass check can end the run. One group per device
    // (block 0's first) runs that check, so idle groups do not poll the peers' counters (lines
    // their workers are updating) over the links; it records the end in this device's `over`
    // word, which the other groups read locally. Quiescence is stable (nothing is pushed once
    // every ring is done), so the poller's answer holds for them too.
    __device__ bool quiescent(u64* pushed_out) const {
        if (pushed_out) return quiescent_sums(*this, pushed_out);
        const uint32_t per = (uint32_t)(atos_mesh.ring_count / atos_mesh.devices);
        const uint32_t lo = (uint32_t)atos_mesh.device * per;
        if (done(lo, lo + per) != pushed(lo, lo + per)) return false;
        u64* over = &own_counters()->over.value;
        if (blockIdx.x != 0 || threadIdx.x != 0) return ld_relaxed(over) != 0;
        if (!quiescent_sums(*this, nullptr)) return false;
        st_release(over, 1ull);
        return true;
    }
};

}  // namespace atos
