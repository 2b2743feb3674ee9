// A program spread over several GPUs of one node (peer-to-peer): the placement of indices on
// devices, `Atomics` arrays spread over the devices, pushes routed to the device that owns the
// item, and the termination sums over every device's rings. Included by units generated with
// ATOS_SYSTEM_SCOPE 1 (every atomic and ordering holds between GPUs; see prelude.cuh).
//
// The model: one address space. Every element of an `Atomics` array has one home (its owner's
// memory, or device 0's for an array that is not spread) and every device reaches it through
// peer mappings, so a task computes exactly what it computes on one GPU; placement decides only
// where the work and the memory traffic happen. A push goes to the local ring when this device
// owns the item (its first part, as an index) and to the owner's receive ring otherwise.
#pragma once

namespace atos {

// The run's placement and ring table, copied into shared memory by every block at entry.
__shared__ Mesh mesh_view;

__device__ __forceinline__ void set_mesh(const Mesh* m) {
    constexpr uint32_t words = sizeof(Mesh) / 8;
    for (uint32_t i = threadIdx.x; i < words; i += blockDim.x)
        reinterpret_cast<u64*>(&mesh_view)[i] = reinterpret_cast<const u64*>(m)[i];
    __syncthreads();
}

// The device that owns index i (device 0 for an index at or past the placed range).
__device__ __forceinline__ uint32_t owner_of(u64 i) {
    if (i >= mesh_view.len) return 0;
    if (mesh_view.kind == MESH_RANGES) {
        uint32_t o = 0;
        for (uint32_t d = 1; d < (uint32_t)mesh_view.devices; ++d) o += i >= mesh_view.bounds[d] ? 1u : 0u;
        return o;
    }
    return reinterpret_cast<const uint8_t*>(mesh_view.owner)[i];
}

// Index i's position on its owner o.
__device__ __forceinline__ u64 local_of(u64 i, uint32_t o) {
    if (mesh_view.kind == MESH_RANGES) return i - mesh_view.bounds[o];
    return reinterpret_cast<const uint32_t*>(mesh_view.local)[i];
}

// An `Atomics` field: `s.f[i]` is element i wherever it lives (indices are checked against the
// field's length before this is called).
template <class T>
struct Spread {
    const SpreadParts* t;
    __device__ __forceinline__ T& operator[](u64 i) const {
        if (!t->spread) return reinterpret_cast<T*>(t->part[0])[i];
        const uint32_t o = owner_of(i);
        return reinterpret_cast<T*>(t->part[o])[local_of(i, o)];
    }
};

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

// A queue field's push channel: items this device owns go to `local` (staged or warp-aggregated
// as on one GPU), the others straight into their owner's receive ring over the peer mapping,
// aggregated per destination among the warp's converged lanes.
template <class T, class Local>
struct RoutedPusher {
    Local local;
    const QueueRef<T>* peers;  // every device's receive ring of this queue (a table on this device)
    Control* ctl;

    __device__ void push(T item) const {
        const uint32_t o = owner_of(route_key(item));
        if (o == (uint32_t)mesh_view.device) {
            local.push(item);
            return;
        }
        const uint32_t same = __match_any_sync(__activemask(), o);
        push_lanes(peers[o], item, ctl, same);
        if ((threadIdx.x & 31u) == (uint32_t)(__ffs(same) - 1))
            atomicAdd(&reinterpret_cast<DeviceCounters*>(mesh_view.sent)->sent.value, (u64)__popc(same));
    }
    template <class G> __device__ void flush(const G& g) const { local.flush(g); }
    // Persistent CTA groups keep their own local pushes (QueueServer's keep).
    template <uint32_t FETCH, uint32_t K, class W>
    __device__ uint32_t keep(const W& worker, T (&held)[K], uint32_t most) const {
        return local.template keep<FETCH>(worker, held, most);
    }
};

// Every ring of every device, for the termination check (QueueSet's sums over the mesh).
struct MeshQueues {
    __device__ u64 pushed() const {
        QueueCounters* const* c = reinterpret_cast<QueueCounters* const*>(mesh_view.rings);
        u64 alloc = 0;
        for (uint32_t i = 0; i < (uint32_t)mesh_view.ring_count; ++i)
            alloc += ld_relaxed(&c[i]->end_alloc.value) + ld_relaxed(&c[i]->kept.value);
        return alloc;
    }
    __device__ u64 done() const {
        QueueCounters* const* c = reinterpret_cast<QueueCounters* const*>(mesh_view.rings);
        u64 done = 0;
        for (uint32_t i = 0; i < (uint32_t)mesh_view.ring_count; ++i) done += ld_relaxed(&c[i]->done.value);
        return done;
    }
    __device__ bool quiescent(u64* pushed_out) const { return quiescent_sums(*this, pushed_out); }
};

}  // namespace atos
