// The atos task queue (after Atos SC'22, Listing 6), with exact termination.
//
// One array of `capacity` slots, filled once each (the queue is linear: a run needs capacity
// for every task it will ever hold). Counters live on separate 128-byte lines:
//   start      next slot a worker grabs (workers reserve FETCH slots at a time)
//   end        slots below it are written and may be read
//   end_alloc  next slot a pusher reserves (= tasks ever enqueued, seeds included)
//   end_max    highest reserved end whose writer has started publishing
//   end_count  slots written so far
//   done       tasks fully processed (incremented after the task's own pushes are reserved)
//   status     0 while healthy; STATUS_OVERFLOW once a push found no room
//   needed     largest slot count a push asked for (what the capacity must be, at least)
// `end` advances only to a value where end_count == end_max, i.e. every slot below it has
// been written. A run is over exactly when done == end_alloc: every task ever reserved has
// been processed, so none is queued or in flight and none can be created any more.
#pragma once

namespace atos {

struct alignas(128) Counter {
    unsigned long long value;
};

struct QueueCounters {
    Counter start, end, end_alloc, end_max, end_count, done, status, needed;
};

enum : unsigned long long { STATUS_OK = 0, STATUS_OVERFLOW = 1 };

template <class T>
struct QueueRef {
    T* items;
    QueueCounters* counters;
    unsigned long long capacity;
};

__device__ __forceinline__ unsigned long long counter_load(const Counter& c) { return load_volatile(&c.value); }

// Publishes `end` if every reserved slot below the highest published reservation is written.
// Reading end_count before end_max makes an equal pair a consistent snapshot: end_max only
// grows, and every counted writer raised end_max before counting.
__device__ __forceinline__ void update_end(QueueCounters* c) {
    unsigned long long written = counter_load(c->end_count);
    __threadfence();
    unsigned long long reserved = counter_load(c->end_max);
    if (written == reserved && counter_load(c->end) < written) atomicMax(&c->end.value, written);
}

// Called once per reservation, after the writer's slots are stored and fenced.
__device__ __forceinline__ void publish(QueueCounters* c, unsigned long long base, unsigned long long n) {
    atomicMax(&c->end_max.value, base + n);
    __threadfence();
    unsigned long long written = atomicAdd(&c->end_count.value, n) + n;
    __threadfence();
    if (written == counter_load(c->end_max)) atomicMax(&c->end.value, written);
}

__device__ __forceinline__ void report_overflow(QueueCounters* c, unsigned long long needed) {
    atomicMax(&c->needed.value, needed);
    atomicExch(&c->status.value, (unsigned long long)STATUS_OVERFLOW);
}

// Warp-aggregated push: one reservation per group of converged lanes.
template <class T>
__device__ __forceinline__ void push_warp(const QueueRef<T>& q, T item) {
    uint32_t mask = __activemask();
    uint32_t leader = __ffs(mask) - 1;
    uint32_t rank = __popc(mask & lanemask_lt());
    uint32_t n = __popc(mask);
    unsigned long long base = 0;
    if (rank == 0) base = atomicAdd(&q.counters->end_alloc.value, (unsigned long long)n);
    base = __shfl_sync(mask, base, leader);
    bool fits = base + n <= q.capacity;
    if (fits) {
        store_volatile(&q.items[base + rank], item);
        __threadfence();
    }
    __syncwarp(mask);
    if (rank == 0) {
        if (fits) publish(q.counters, base, n);
        else report_overflow(q.counters, base + n);
    }
}

// Every task reserved has been processed: nothing is queued or in flight.
__device__ __forceinline__ bool terminated(QueueCounters* c) {
    unsigned long long done = counter_load(c->done);
    __threadfence();
    return done == counter_load(c->end_alloc);
}

}  // namespace atos
