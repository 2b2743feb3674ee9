// Workers (a thread, a warp or a CTA cooperating on one task) and the persistent loop.
//
// The loop is written once; a worker type supplies its group size, its leader, how the
// leader's decisions reach the group, and how pushes are aggregated.
#pragma once

namespace atos {

// What the leader decided for this round: process slots [lo, hi) or stop.
struct Grab {
    unsigned long long lo, hi;
    bool stop;
};

// Outside `lanes(..)` loops a task body is uniform across its worker: side effects on shared
// state (atomics, stores, pushes) run once, on the leader, and their results are broadcast,
// so a warp or CTA worker computes exactly what the CPU executor's single thread does.

__device__ __forceinline__ bool shfl0(bool v) { return __shfl_sync(0xffffffffu, (int)v, 0) != 0; }
template <class T> __device__ __forceinline__ T shfl0(T v) { return __shfl_sync(0xffffffffu, v, 0); }

struct ThreadWorker {
    static __device__ ThreadWorker make() { return ThreadWorker(); }
    template <class F> __device__ auto uniform(F f) const { return f(); }
    template <class F> __device__ void leader_only(F f) const { f(); }
    __device__ uint32_t rank() const { return 0; }
    __device__ uint32_t size() const { return 1; }
    __device__ bool is_leader() const { return true; }
    __device__ Grab broadcast(Grab g) const { return g; }
    __device__ void sync() const {}
    template <class T> __device__ void push(const QueueRef<T>& q, T item) const { push_warp(q, item); }
    template <class T> __device__ void flush(const QueueRef<T>&) const {}
};

struct WarpWorker {
    static __device__ WarpWorker make() { return WarpWorker(); }
    template <class F> __device__ auto uniform(F f) const {
        decltype(f()) r{};
        if (is_leader()) r = f();
        return shfl0(r);
    }
    template <class F> __device__ void leader_only(F f) const {
        if (is_leader()) f();
    }
    __device__ uint32_t rank() const { return threadIdx.x & 31u; }
    __device__ uint32_t size() const { return 32; }
    __device__ bool is_leader() const { return (threadIdx.x & 31u) == 0; }
    __device__ Grab broadcast(Grab g) const {
        g.lo = __shfl_sync(0xffffffffu, g.lo, 0);
        g.hi = __shfl_sync(0xffffffffu, g.hi, 0);
        g.stop = __shfl_sync(0xffffffffu, (int)g.stop, 0) != 0;
        return g;
    }
    __device__ void sync() const { __syncwarp(); }
    template <class T> __device__ void push(const QueueRef<T>& q, T item) const { push_warp(q, item); }
    template <class T> __device__ void flush(const QueueRef<T>&) const {}
};

// A CTA worker stages its pushes in shared memory and reserves queue space once per fetched
// batch (CTA aggregation); a full stage spills through warp-aggregated pushes.
template <class T, uint32_t STAGE>
struct CtaWorker {
    T* stage;
    uint32_t* staged;
    Grab* shared_grab;
    unsigned long long* shared_base;
    unsigned long long* shared_value;

    static __device__ CtaWorker make() {
        __shared__ T stage[STAGE];
        __shared__ uint32_t staged;
        __shared__ Grab grab;
        __shared__ unsigned long long base;
        __shared__ unsigned long long value;
        if (threadIdx.x == 0) staged = 0;
        __syncthreads();
        CtaWorker w;
        w.stage = stage;
        w.staged = &staged;
        w.shared_grab = &grab;
        w.shared_base = &base;
        w.shared_value = &value;
        return w;
    }
    template <class F> __device__ auto uniform(F f) const {
        typedef decltype(f()) R;
        static_assert(sizeof(R) <= sizeof(unsigned long long), "uniform values are scalars");
        if (is_leader()) *reinterpret_cast<R*>(shared_value) = f();
        __syncthreads();
        R r = *reinterpret_cast<const R*>(shared_value);
        __syncthreads();
        return r;
    }
    template <class F> __device__ void leader_only(F f) const {
        if (is_leader()) f();
    }
    __device__ uint32_t rank() const { return threadIdx.x; }
    __device__ uint32_t size() const { return blockDim.x; }
    __device__ bool is_leader() const { return threadIdx.x == 0; }
    __device__ Grab broadcast(Grab g) const {
        if (threadIdx.x == 0) *shared_grab = g;
        __syncthreads();
        Grab r = *shared_grab;
        __syncthreads();
        return r;
    }
    __device__ void sync() const { __syncthreads(); }
    __device__ void push(const QueueRef<T>& q, T item) const {
        uint32_t slot = atomicAdd(staged, 1u);
        if (slot < STAGE) stage[slot] = item;
        else push_warp(q, item);
    }
    // Called by every thread of the CTA.
    __device__ void flush(const QueueRef<T>& q) const {
        __syncthreads();
        uint32_t n = min(*staged, STAGE);
        if (n == 0) return;
        if (threadIdx.x == 0) *shared_base = atomicAdd(&q.counters->end_alloc.value, (unsigned long long)n);
        __syncthreads();
        unsigned long long base = *shared_base;
        bool fits = base + n <= q.capacity;
        if (fits) {
            for (uint32_t i = threadIdx.x; i < n; i += blockDim.x) store_volatile(&q.items[base + i], stage[i]);
            __threadfence();
        }
        __syncthreads();
        if (threadIdx.x == 0) {
            if (fits) publish(q.counters, base, n);
            else report_overflow(q.counters, base + n);
            *staged = 0;
        }
        __syncthreads();
    }
};

// The persistent driver: every worker loops grabbing FETCH slots at a time, processes the
// slots already published, and stops only when the run is over (or a push overflowed).
template <uint32_t FETCH, class W, class T, class Body>
__device__ void run_persistent(const QueueRef<T>& q, W& worker, Body body) {
    QueueCounters* c = q.counters;
    unsigned long long cur = 0, lim = 0;  // the leader's grabbed slots [cur, lim)
    uint32_t idle = 0;
    while (true) {
        Grab g = {0, 0, false};
        if (worker.is_leader()) {
            if (cur == lim) {
                cur = atomicAdd(&c->start.value, (unsigned long long)FETCH);
                lim = cur + FETCH;
            }
            unsigned long long end = counter_load(c->end);
            unsigned long long hi = end < lim ? end : lim;
            if (cur >= hi) {
                hi = cur;
                if (counter_load(c->status) != STATUS_OK) g.stop = true;
                else {
                    update_end(c);
                    g.stop = terminated(c);
                }
            }
            g.lo = cur;
            g.hi = hi;
        }
        g = worker.broadcast(g);
        if (g.stop) break;
        if (g.hi > g.lo) {
            for (unsigned long long i = g.lo; i < g.hi; ++i) body(load_volatile(&q.items[i]));
            worker.sync();
            worker.flush(q);
            if (worker.is_leader()) {
                __threadfence();
                atomicAdd(&c->done.value, g.hi - g.lo);
                cur = g.hi;
            }
            idle = 0;
        } else {
            if (idle < 8) ++idle;
            __nanosleep(32u << idle);
        }
    }
}

}  // namespace atos
