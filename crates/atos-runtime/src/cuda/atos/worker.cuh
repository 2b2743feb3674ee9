// Workers, push channels, the servers that feed workers from queues and from the idle hook, and
// the persistent loop: written once, composed by the generated kernel.
//
// A program's kernel runs *groups* of the largest worker kind among its tasks (a thread, a warp
// or a CTA). A group claims a batch for one queue at a time and splits it among sub-workers of
// that queue's task: a CTA group serving a warp task runs blockDim/32 warps on it at once.
#pragma once

// Idle back-off of the persistent loop: a group that found nothing naps ATOS_IDLE_NAP_NS << k ns
// (k grows to 8 while it stays idle); ATOS_IDLE_FENCE adds a fence per idle round, which slows
// the polling of very many small groups. Defaults; a unit may define them before the include.
#ifndef ATOS_IDLE_NAP_NS
#define ATOS_IDLE_NAP_NS 32u
#endif
// The largest k. Programs with a priority queue use 3 (naps of at most 256 ns at the default)
// so that napping groups wake soon after a threshold advance to share the pass and the band it
// moves near (at one band on luxembourg_osm no measured difference: 35.4 vs 34.0 ms).
#ifndef ATOS_IDLE_NAP_MAX_SHIFT
#define ATOS_IDLE_NAP_MAX_SHIFT 8u
#endif
#ifndef ATOS_IDLE_FENCE
#define ATOS_IDLE_FENCE 0
#endif
// Phase trace of a persistent run (`KernelSpec::trace_phases`): the control block's trace
// words get the clock (clock_ns) at the first group's start, the last batch's end, the first
// group's sight of the end and the last block's exit. Off: no code.
#ifndef ATOS_TRACE_PHASES
#define ATOS_TRACE_PHASES 0
#endif
#ifndef ATOS_EACH_CHUNK_BYTES
#define ATOS_EACH_CHUNK_BYTES 0u  // a unit with a CTA task defines it (CtaWorker::each)
#endif

namespace atos {

// Outside `lanes(..)` loops a task body is uniform across its worker: side effects on shared
// state (atomics, stores, pushes) run once, on the leader, and their results are broadcast,
// so a warp or CTA worker computes exactly what the CPU executor's single thread does.
// Every `lanes(..)` loop ends with a barrier of the worker with the memory ordering that makes
// each lane's effects visible to the uniform code after the loop: lanes_end(), or after a loop
// that reduces, the reduction's own (lanes_end_after_reduce() adds none on a CTA).

// The run's control block, for faults raised anywhere in generated code (prelude.cuh,
// atos-codegen faults.rs): one pointer per block, set by the kernel entry.
__shared__ Control* fault_control;
__device__ __forceinline__ void set_fault_control(Control* ctl) {
    if (threadIdx.x == 0) fault_control = ctl;
    __syncthreads();
}
// The first fault of the run keeps its site and fails the run: every group stops within 64 of
// its batches (QueueServer::serve), as after an overflow; the faulting thread finishes its item.
__device__ void fault(Site site) {
    Control* c = fault_control;
    ATOS_ATOMIC(atomicCAS)(&c->fault.value, 0ull, site);
    ATOS_ATOMIC(atomicCAS)(&c->status.value, STATUS_OK, STATUS_FAULT);
}

__device__ __forceinline__ bool shfl0(bool v) { return __shfl_sync(0xffffffffu, (int)v, 0) != 0; }
template <class V> __device__ __forceinline__ V shfl0(V v) { return __shfl_sync(0xffffffffu, v, 0); }

struct ThreadWorker {
    // Whether every batch this worker runs opens with a barrier of the whole block.
    static constexpr bool BLOCK_BARRIER = false;
    static __device__ ThreadWorker make() { return ThreadWorker(); }
    __device__ uint32_t size() const { return 1; }
    __device__ uint32_t rank() const { return 0; }
    __device__ bool is_leader() const { return true; }
    template <class V> __device__ V share(V v) const { return v; }
    template <class F> __device__ auto uniform(F f) const { return f(); }
    template <class F> __device__ void leader_only(F f) const { f(); }
    __device__ void sync() const {}
    __device__ void lanes_end() const {}
    __device__ void lanes_end_after_reduce() const {}
    template <class Op, class V> __device__ V reduce(V v) const { return v; }
    __device__ bool all(bool v) const { return v; }
    // Runs `f` on each item of the batch in turn (item t of a batch is held by lane t % size()
    // in slot t / size(): here all in this thread).
    template <class T, uint32_t K, class F> __device__ void each(const T (&held)[K], uint32_t count, const F& f) const {
        for (uint32_t t = 0; t < count; ++t) f(held[t]);
    }
};

struct WarpWorker {
    static constexpr bool BLOCK_BARRIER = false;
    static __device__ WarpWorker make() { return WarpWorker(); }
    __device__ uint32_t size() const { return 32; }
    __device__ uint32_t rank() const { return threadIdx.x & 31u; }
    __device__ bool is_leader() const { return (threadIdx.x & 31u) == 0; }
    template <class V> __device__ V share(V v) const { return shfl0(v); }
    template <class F> __device__ auto uniform(F f) const {
        decltype(f()) r{};
        if (is_leader()) r = f();
        return shfl0(r);
    }
    template <class F> __device__ void leader_only(F f) const {
        if (is_leader()) f();
    }
    __device__ void sync() const { __syncwarp(); }
    template <class Op, class V> __device__ V reduce(V v) const { return warp_reduce<Op>(v); }
    __device__ bool all(bool v) const { return __all_sync(0xffffffffu, v) != 0; }
    // __syncwarp orders memory among the warp's threads.
    __device__ void lanes_end() const { __syncwarp(); }
    // The reduction's shuffles order no memory: the loop still ends with __syncwarp.
    __device__ void lanes_end_after_reduce() const { __syncwarp(); }
    // Runs `f` on each item of the batch in turn, the whole warp on each, shuffled from the
    // lane that holds it.
    template <class T, uint32_t K, class F> __device__ void each(const T (&held)[K], uint32_t count, const F& f) const {
        for (uint32_t t = 0; t < count; ++t) f(shfl_item(0xffffffffu, held[t / 32u], t & 31u));
    }
};

struct CtaWorker {
    unsigned long long* slot;  // shared broadcast slot: a scalar
    // Its batches open with one before any push: a chunk's in `each`, or a balanced batch's scan
    // (a balanced batch whose statements before the scan may push opens with `worker.sync()`:
    // balance.rs, emit_batch_fn).
    static constexpr bool BLOCK_BARRIER = true;

    static __device__ CtaWorker make() {
        __shared__ unsigned long long slot[1];
        CtaWorker w;
        w.slot = slot;
        return w;
    }
    __device__ uint32_t size() const { return blockDim.x; }
    __device__ uint32_t rank() const { return threadIdx.x; }
    __device__ bool is_leader() const { return threadIdx.x == 0; }
    template <class V> __device__ V share(V v) const {
        static_assert(sizeof(V) <= sizeof(unsigned long long), "shared values are scalars");
        if (is_leader()) *reinterpret_cast<V*>(slot) = v;
        __syncthreads();
        V r = *reinterpret_cast<const V*>(slot);
        __syncthreads();
        return r;
    }
    template <class F> __device__ auto uniform(F f) const {
        typedef decltype(f()) R;
        R r{};
        if (is_leader()) r = f();
        return share(r);
    }
    template <class F> __device__ void leader_only(F f) const {
        if (is_leader()) f();
    }
    __device__ void sync() const { __syncthreads(); }
    __device__ bool all(bool v) const { return __syncthreads_and(v) != 0; }
    // Warp butterflies, then every thread combines the warps' results in warp order, so all
    // threads hold identical bits.
    template <class Op, class V> __device__ V reduce(V v) const {
        __shared__ unsigned long long parts[32];
        v = warp_reduce<Op>(v);
        if ((threadIdx.x & 31u) == 0) *reinterpret_cast<V*>(&parts[threadIdx.x >> 5]) = v;
        __syncthreads();
        V r = *reinterpret_cast<const V*>(&parts[0]);
        for (uint32_t w = 1; w < (blockDim.x + 31u) / 32u; ++w) r = Op::apply(r, *reinterpret_cast<const V*>(&parts[w]));
        __syncthreads();
        return r;
    }
    // __syncthreads orders global and shared memory among the block's threads.
    __device__ void lanes_end() const { __syncthreads(); }
    // After a `lanes` loop that reduced: `reduce` ended with a barrier of the block after every
    // thread's iterations, which orders their memory as lanes_end would.
    __device__ void lanes_end_after_reduce() const {}
    // Runs `f` on each item of the batch in turn, the whole block on each: the items go to
    // shared memory a chunk at a time (ATOS_EACH_CHUNK_BYTES, which the generator writes into
    // every unit with a CTA task and counts in its static shared memory: atos_codegen's
    // unit::EACH_CHUNK_BYTES), one barrier before a chunk runs and one after (before the next
    // chunk, of this batch or a later one, overwrites it), where broadcasting each item would
    // take two barriers per item. One chunk serves every task of the unit: a group runs one
    // batch at a time.
    template <class T, uint32_t K, class F> __device__ void each(const T (&held)[K], uint32_t count, const F& f) const {
        static_assert(ATOS_EACH_CHUNK_BYTES >= 16, "a unit with a CTA task defines ATOS_EACH_CHUNK_BYTES");
        static_assert(sizeof(T) <= 16 && alignof(T) <= 8, "items are at most 16 bytes");
        constexpr uint32_t CHUNK = ATOS_EACH_CHUNK_BYTES / sizeof(T);
        T* chunk = reinterpret_cast<T*>(each_chunk<0>());
        for (uint32_t c = 0; c < count; c += CHUNK) {
            const uint32_t n = count - c < CHUNK ? count - c : CHUNK;
#pragma unroll
            for (uint32_t k = 0; k < K; ++k) {
                const uint32_t t = threadIdx.x + k * blockDim.x;
                if (t >= c && t < c + n) chunk[t - c] = held[k];
            }
            __syncthreads();
            for (uint32_t t = 0; t < n; ++t) f(chunk[t]);
            __syncthreads();
        }
    }

  private:
    // One chunk per kernel (a template, so that a unit with no CTA task needs no size).
    template <int N> static __device__ unsigned long long* each_chunk() {
        __shared__ unsigned long long words[ATOS_EACH_CHUNK_BYTES / sizeof(unsigned long long) + (ATOS_EACH_CHUNK_BYTES == 0)];
        return words;
    }
};

// ---- push channels: one per queue field, what `s.queue.push(x)` calls ----
//
// `push_fenced` is the push of a task whose `atos::fence()` its group left to the batch end
// (codegen: `deferred_fence`, unit.rs `defers_group`: CTA groups, and persistent thread groups;
// only pushes follow such a fence): an item that waits in a CTA's stage or a thread's hold is
// kept or published after the group's `FenceDebt::settle` (a thread's `ThreadFenceDebt`); one
// that goes out at once (a full stage or hold, an unstaged remote push) fences first.

// Warp groups, and thread groups that hold nothing (below), push at once (warp-aggregated).
template <class T>
struct DirectPusher {
    QueueRef<T> q;
    Control* ctl;
    __device__ void push(T item) const { push_warp(q, item, ctl); }
    __device__ void push_fenced(T item) const {
        fence_seq_cst();
        push_warp(q, item, ctl);
    }
    template <class G> __device__ void flush(const G&) const {}
};

// Persistent thread groups of a unit whose tasks defer their fence (codegen: `deferred_fence`,
// unit.rs `defers_group`; discrete ones fence per task, which measured faster at fetch 8, their
// best fetch on small meshes; bulk-synchronous ones emit no such fence, `TrailingFence::Elided`):
// each thread holds up to HOLD of its batch's fenced pushes in its own memory, and publishes
// them when its batch ends, after the one fence its `ThreadFenceDebt` owes (`atos_Out::flush`
// settles first): the converged lanes' held items go out in one reservation and one publication
// (push_lanes_many), where a push per held item took one each. That took persistent colouring
// on thread workers 1.4x faster on luxembourg_osm and delaunay_n16 at fetch 64 on an H100
// (docs/results/2026-12-06e-thread-grids-h100.md). A full hold fences, publishes what it holds
// and starts again: one fence per HOLD pushes at worst, where each task fenced before. The held items are
// not in the queue yet, but the batch counts `done` only after the flush, so the run cannot end
// (nor a band settle) while they wait.
template <class T, uint32_t HOLD>
struct HeldPusher {
    QueueRef<T> q;
    Control* ctl;
    mutable T held[HOLD];
    mutable uint32_t count;
    // `held` is left uninitialized: as an aggregate's value-initialized rest it was zeroed by
    // every thread at every launch. (That was not what made the windowed forms slower: without
    // the zeroing they were as slow, docs/results/2026-12-06d-gather-loops-h100.md, calls 3-4.)
    __device__ HeldPusher(const QueueRef<T>& q, Control* ctl) : q(q), ctl(ctl), count(0) {}
    __device__ void push(T item) const { push_warp(q, item, ctl); }
    __device__ void push_fenced(T item) const {
        if (count == HOLD) {
            if (!ATOS_REMOTE_CALLS) fence_seq_cst();  // with calls, `owe` fenced already
            publish();
        }
        held[count++] = item;
    }
    template <class G> __device__ void flush(const G&) const { publish(); }

  private:
    // The converged lanes' held items in one reservation (push_lanes_many).
    __device__ void publish() const {
        push_lanes_many(q, held, count, ctl, converged_lanes((unsigned long long)q.counters));
        count = 0;
    }
};

// Persistent thread groups on one device: the items of an inline task's queue pushed after a
// deferred fence (codegen: `InlineCalls::held`). Each thread holds up to HOLD of them in its own
// memory; `atos_Out`'s generated `atos_run_<queue>` runs their task once the thread has settled
// the fence its batch owes (in `flush`, before the batch counts `done`), or fences first when
// the hold is full. Running a pushed item later than its push is a schedule every program
// allows; the fence still comes before the task's reads, as at an inline push that fenced first.
// Items are not in a ring, so termination never counted them; the batch they belong to counts
// `done` only after they ran. No task they run pushes to an inline queue (the plan refuses it),
// so `run` is never re-entered.
template <class T, uint32_t HOLD>
struct InlineHold {
    T held[HOLD];
    uint32_t count;
    // `held` left uninitialized, as HeldPusher's.
    __device__ InlineHold() : count(0) {}
    __device__ bool full() const { return count == HOLD; }
    __device__ void add(T item) { held[count++] = item; }
    template <class F> __device__ void run(const F& f) {
        const uint32_t n = count;
        count = 0;
        for (uint32_t i = 0; i < n; ++i) f(held[i]);
    }
};

// A thread group's `FenceDebt`: each thread is its own group, so the debt is the thread's own.
struct ThreadFenceDebt {
    mutable uint32_t owed;
    static __device__ ThreadFenceDebt make() { return ThreadFenceDebt{0}; }
    __device__ void owe() const {
#if ATOS_REMOTE_CALLS
        fence_seq_cst();
#else
        owed = 1;
#endif
    }
    template <class G> __device__ void settle(const G&) const {
        if (owed) {
            fence_seq_cst();
            owed = 0;
        }
    }
};

// The fence that deferring tasks of a CTA group owe: `owe` (a task's leader, where its fence
// was) marks it, and `settle` (the group, after the batch's barrier, before `keep` and every
// `flush`) has the group's leader fence once for the whole batch. The barrier before `settle`
// orders every owing task's stores before that fence, as the barrier after a `lanes` loop does
// for a worker's leader fence. Ranks whose remote operations are NVSHMEM calls fence at once:
// there the fence also completes the calling thread's own calls (`nvshmem_quiet`).
struct FenceDebt {
    uint32_t* owed;
    static __device__ FenceDebt make() {
        __shared__ uint32_t owed;
        if (threadIdx.x == 0) owed = 0;
        __syncthreads();
        return FenceDebt{&owed};
    }
    __device__ void owe() const {
#if ATOS_REMOTE_CALLS
        fence_seq_cst();
#else
        *owed = 1;
#endif
    }
    // The leader's reset needs no barrier of its own: the next batch's `owe`s come after the
    // barriers of `keep` and of every stage `flush` (a deferring unit's channels are stages).
    template <class G> __device__ void settle(const G& g) const {
        if (g.is_leader() && *owed) {
            fence_seq_cst();
            *owed = 0;
        }
    }
};

// CTA groups stage pushes in shared memory and reserve queue space once per batch (CTA
// aggregation); a full stage spills through warp-aggregated pushes. ID keeps the shared arrays
// of two queues with the same item type apart.
template <class T, uint32_t STAGE, uint32_t ID>
struct StagedPusher {
    static constexpr uint32_t CAPACITY = STAGE;
    QueueRef<T> q;
    Control* ctl;
    T* stage;
    uint32_t* staged;

    static __device__ StagedPusher make(const QueueRef<T>& q, Control* ctl) {
        __shared__ T stage[STAGE];
        __shared__ uint32_t staged;
        if (threadIdx.x == 0) staged = 0;
        __syncthreads();
        StagedPusher p;
        p.q = q;
        p.ctl = ctl;
        p.stage = stage;
        p.staged = &staged;
        return p;
    }
    __device__ void push(T item) const { put<false>(item); }
    __device__ void push_fenced(T item) const { put<true>(item); }
    template <bool FENCED> __device__ void put(T item) const {
        uint32_t slot = atomicAdd(staged, 1u);
        if (slot < STAGE) {
            stage[slot] = item;
            return;
        }
        if (FENCED && !ATOS_REMOTE_CALLS) fence_seq_cst();  // with calls, `owe` fenced already
        push_warp(q, item, ctl);
    }
    // Keeping (persistent CTA groups): called by every thread after a batch, before `flush`.
    // Moves up to `most` of the staged items into the threads' `held` slots as the group's
    // next batch (item i to sub-worker i / FETCH, as a claim would deal them) and leaves the
    // rest for `flush` to publish. Returns how many were kept.
    template <uint32_t FETCH, uint32_t K, class W>
    __device__ uint32_t keep(const W& worker, T (&held)[K], uint32_t most) const {
        __syncthreads();
        const uint32_t have = min(*staged, STAGE);
        const uint32_t k = min(have, most);
        const uint32_t first = have - k;
        const uint32_t lo = (threadIdx.x / worker.size()) * FETCH;
        const uint32_t count = lo < k ? min(FETCH, k - lo) : 0u;
        for (uint32_t j = 0; j < K; ++j) {
            uint32_t t = worker.rank() + j * worker.size();
            if (t < count) held[j] = stage[first + lo + t];
        }
        __syncthreads();
        if (threadIdx.x == 0) *staged = first;  // spilled pushes (past STAGE) are already out
        return k;
    }

    // Called by every thread of the CTA.
    template <class G> __device__ void flush(const G&) const {
        __syncthreads();
        uint32_t n = min(*staged, STAGE);
        if (n == 0) return;
        __shared__ u64 base_shared;
        __shared__ int ok_shared;
        if (threadIdx.x == 0) {
            base_shared = ATOS_ATOMIC(atomicAdd)(&q.counters->end_alloc.value, (u64)n);
            ok_shared = make_room(q, base_shared, n, ctl);
            // Stamped rings: approved before thread 0's fence, credited after (queue.cuh).
            if (ok_shared && stamped(q)) ATOS_ATOMIC(atomicAdd)(&q.counters->end_count.value, (u64)n);
        }
        __syncthreads();
        u64 base = base_shared;
        if (ok_shared && stamped(q)) {
            bool wrapped = false, free = true;
            for (uint32_t i = threadIdx.x; i < n; i += blockDim.x) free = stamped_slot_free(q, base + i, ctl, wrapped) && free;
            if (wrapped) fence_acq_rel<false>();  // the copy-outs of the lap before come before our stores
            if (free) {
                for (uint32_t i = threadIdx.x; i < n; i += blockDim.x) store_item(q.slot(base + i), stage[i]);
            }
            fence_release<false>();  // the slot stores (and thread 0's count) come before the stamps
            if (free) {
                for (uint32_t i = threadIdx.x; i < n; i += blockDim.x) st_stamp(q.stamp(base + i), q.lap2(base + i) + 1);
            }
        } else if (ok_shared) {
            for (uint32_t i = threadIdx.x; i < n; i += blockDim.x) store_item(q.slot(base + i), stage[i]);
            fence_release<QueueRef<T>::sys>();  // the slot stores come before the leader's publication
        }
        __syncthreads();
        if (threadIdx.x == 0) {
            if (ok_shared) {
                if (stamped(q)) ATOS_ATOMIC(atomicAdd)(&q.counters->avail.value, (u64)n);
                else publish(q, base, n);
            }
            *staged = 0;
        }
        __syncthreads();
    }
};

// Parking (persistent CTA groups serving a priority queue; queue.cuh, above `advance_priority`,
// gives the protocol): after a batch the group holds the items it pushed to the next ring in
// shared memory instead of publishing them, when they all fit in one batch of its server (`N`)
// and it holds none already, and runs them itself once an advance has opened their band
// (`QueueServer::serve_parked`). A parked item skips the ring's round trip (reserve, publish,
// claim, copy-out) on the way from one band to the next, the path a threshold advance waits on.
// ID keeps two queues' shared arrays apart.
struct NoPark {
    static constexpr bool on = false;
    template <class G, class Stage> __device__ void take(const G&, const Stage&, PriorityControl*) const {}
};

template <class T, uint32_t N, uint32_t ID>
struct Park {
    static constexpr bool on = true;
    T* items;
    uint32_t* count;  // items parked; 0: none
    u64* epoch;       // the epoch they were counted in: the advance that ends it opens them

    static __device__ Park make() {
        __shared__ T parked[N];
        __shared__ uint32_t parked_count;
        __shared__ u64 parked_epoch;
        if (threadIdx.x == 0) parked_count = 0;
        __syncthreads();
        Park p;
        p.items = parked;
        p.count = &parked_count;
        p.epoch = &parked_epoch;
        return p;
    }
    // Called by every thread of the CTA after the batch's barrier, before the next ring's stage
    // is flushed: parks the staged items when they all fit (at most N, none spilled past the
    // stage), else leaves them all to the flush: a park that leaves a flush behind saves no
    // round trip (on an H100, parking part of a batch made priority BFS at cta/8 up to 18%
    // slower). The leader counts them in the ring's `kept` and the epoch's `parked` before the
    // batch counts done (its release), so neither termination nor an advance misses them.
    template <class G, class Stage>
    __device__ void take(const G& g, const Stage& next, PriorityControl* pc) const {
        __syncthreads();
        const uint32_t k = *next.staged;
        if (*count != 0 || k == 0 || k > N || k > Stage::CAPACITY) return;
        for (uint32_t i = threadIdx.x; i < k; i += blockDim.x) items[i] = next.stage[i];
        __syncthreads();
        if (g.is_leader()) {
            *next.staged = 0;
            *count = k;
            ATOS_ATOMIC(atomicAdd)(&next.q.counters->kept.value, (u64)k);
            *epoch = ATOS_ATOMIC(atomicAdd)(&pc->parked.value, (u64)k) >> PARK_EPOCH_SHIFT;
        }
        // The stage's flush opens with a barrier.
    }
};

// A priority queue's channel: a push below the threshold goes to the near ring's channel, one
// below the band end to the next ring's (the band the next advance opens), any other to the far
// ring's with its key, lowering `pass_min` (the smallest key sent far since the last advance,
// which the next advance starts from: a key it missed would be skipped). The three words are
// read relaxed. The two bounds only grow, so a stale read sends an item next or far that could
// have gone near (or next), and the next advance opens it (or a pass moves it). `pass_min` only
// falls between advances, so most far pushes need no atomic.
template <class KS, class NearP, class FarP, class NextP, class PK = NoPark>
struct PriorityPusher {
    NearP near;
    FarP far;
    NextP next;
    PriorityControl* pc;
    PK park;
    __device__ void push(typename KS::Item item, typename KS::Key key) const { put<false>(item, key); }
    __device__ void push_fenced(typename KS::Item item, typename KS::Key key) const { put<true>(item, key); }
    template <bool FENCED> __device__ void put(typename KS::Item item, typename KS::Key key) const {
        const u64 k = encode_key(key);
        // Three independent loads in flight at once, not one after another's branch.
        const u64 t = ld_relaxed(&pc->threshold.value), u = ld_relaxed(&pc->band_end.value),
                  m = ld_relaxed(&pc->pass_min.value);
        if (k < t) {
            if (FENCED) near.push_fenced(item);
            else near.push(item);
            return;
        }
        if (k < u) {
            if (FENCED) next.push_fenced(item);
            else next.push(item);
            return;
        }
        if (k < m) ATOS_ATOMIC(atomicMin)(&pc->pass_min.value, k);
        if (FENCED) far.push_fenced(KS::keyed(item, key));
        else far.push(KS::keyed(item, key));
    }
    template <class G> __device__ void flush(const G& g) const {
        near.flush(g);
        far.flush(g);
        park.take(g, next, pc);
        next.flush(g);
    }
};

// A pass over far items (per thread: each runs its own held items): an item whose key is below
// the threshold moves to the near ring, one below the band end to the next ring, any other goes
// back to the far ring. The smallest key sent back and the count moved are added to the
// PriorityControl once per converged group of lanes.
template <class KS, class P>
struct SplitBatch {
    const PriorityRef<KS>& q;
    const P& out;
    template <uint32_t K>
    __device__ void operator()(const typename KS::Far (&held)[K], uint32_t count) const {
        const u64 t = ld_relaxed(&q.pc->threshold.value), u = ld_relaxed(&q.pc->band_end.value);
        uint32_t back_min = 0xffffffffu, moved = 0;
        bool back = false;
        for (uint32_t i = 0; i < count; ++i) {
            const u64 k = encode_key(KS::key(held[i]));
            if (k < t) {
                out.near.push(KS::item(held[i]));
                ++moved;
            } else if (k < u) {
                out.next.push(KS::item(held[i]));
                ++moved;
            } else {
                out.far.push(held[i]);
                back_min = min(back_min, (uint32_t)k);
                back = true;
            }
        }
        const uint32_t mask = converged_lanes((unsigned long long)q.pc);
        const bool leader = (threadIdx.x & 31u) == (uint32_t)(__ffs(mask) - 1);
        const uint32_t warp_min = __reduce_min_sync(mask, back_min);
        const bool any_back = __any_sync(mask, back);
        const uint32_t warp_moved = __reduce_add_sync(mask, moved);
        if (leader) {
            if (any_back) ATOS_ATOMIC(atomicMin)(&q.pc->pass_min.value, (u64)warp_min);
            if (warp_moved) ATOS_ATOMIC(atomicAdd)(&q.pc->moved.value, (u64)warp_moved);
        }
    }
};
template <class KS, class P>
__device__ SplitBatch<KS, P> split_batch(const PriorityRef<KS>& q, const P& out) {
    return SplitBatch<KS, P>{q, out};
}

// ---- batches: how a worker runs the items it holds ----

// Item t of a worker's batch is held by lane t % size() in slot t / size(). The plain way runs
// the items one after another, each by the whole worker: the worker's `each` (a CTA through
// shared memory, a chunk of items per two barriers).
template <class W, class F>
struct EachItem {
    const W& worker;
    F f;
    template <class T, uint32_t K>
    __device__ void operator()(const T (&held)[K], uint32_t count) const {
        worker.each(held, count, f);
    }
};
template <class W, class F>
__device__ EachItem<W, F> each_item(const W& worker, F f) {
    return EachItem<W, F>{worker, f};
}

// The load-balanced way (the papers' persist-CTA): the generated `<task>_batch` functions run a
// chunk of up to size() items at once. Each lane computes its item's values before the `lanes`
// loop (a Frame) and its range length; an exclusive scan of the lengths gives each item its
// first index in the chunk's combined range; the lanes then stride over that combined range,
// each finding its item by binary search. One Frame and one start per thread of the block, in
// shared memory: a warp uses its own 32 entries.
template <class F, uint32_t BLOCK>
struct BalanceSlots {
    F frame[BLOCK];
    u64 start[BLOCK];
    u64 warp_sum[32];
};

__device__ __forceinline__ u64 warp_inclusive_scan(u64 x) {
    const uint32_t lane = threadIdx.x & 31u;
    for (uint32_t d = 1; d < 32; d <<= 1) {
        u64 y = __shfl_up_sync(0xffffffffu, x, d);
        if (lane >= d) x += y;
    }
    return x;
}

// Stores the frame and first index of each item of the chunk; returns the chunk's total length.
// `n` is the chunk's item count, the same on every thread of the worker: ranks below it hold an
// item, the rest hold none (length 0); `balance_find` reads only the first n entries, so the
// small path below leaves warps 1 and up unwritten. A CTA chunk of at most 32 items lies in
// warp 0, whose scan alone makes the starts, with one barrier for the other warps to read them;
// a larger one scans per warp, then warp 0 scans the warp totals (three barriers). Before
// 2026-11-25 every chunk took the three barriers and a binary search over the whole block: on
// one H100 a path graph's step, one item a chunk, cost 2.33 µs at CTA fetch 8 and 64 against
// 1.67 at fetch 1 (docs/results/2026-11-25b-balanced-chunks-h100.md). Summing the warp totals
// on every thread instead of the warp-0 scan, to save a barrier on large chunks, made PageRank
// at CTA fetch 256 on grid:4096x4096 3.7% slower there.
template <class F, uint32_t BLOCK>
__device__ u64 balance_scan(const WarpWorker&, BalanceSlots<F, BLOCK>& s, const F& f, u64 len, uint32_t /* n: a warp scans its 32 entries whatever n is */) {
    u64 x = warp_inclusive_scan(len);
    s.frame[threadIdx.x] = f;
    s.start[threadIdx.x] = x - len;
    u64 total = __shfl_sync(0xffffffffu, x, 31);
    __syncwarp();
    return total;
}
template <class F, uint32_t BLOCK>
__device__ u64 balance_scan(const CtaWorker&, BalanceSlots<F, BLOCK>& s, const F& f, u64 len, uint32_t n) {
    const uint32_t lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    if (n <= 32u) {
        if (warp == 0) {
            const u64 x = warp_inclusive_scan(len);
            s.frame[lane] = f;
            s.start[lane] = x - len;
            if (lane == 31) s.warp_sum[0] = x;
        }
        __syncthreads();
        return s.warp_sum[0];
    }
    const uint32_t warps = blockDim.x >> 5;
    u64 x = warp_inclusive_scan(len);
    if (lane == 31) s.warp_sum[warp] = x;
    __syncthreads();
    if (warp == 0) {
        u64 w = lane < warps ? s.warp_sum[lane] : 0ull;
        w = warp_inclusive_scan(w);
        if (lane < warps) s.warp_sum[lane] = w;
    }
    __syncthreads();
    s.frame[threadIdx.x] = f;
    s.start[threadIdx.x] = (warp > 0 ? s.warp_sum[warp - 1] : 0ull) + x - len;
    u64 total = s.warp_sum[warps - 1];
    __syncthreads();
    return total;
}

// The item whose part of the combined range holds index j (< total): the last of the worker's
// first `n` entries (the chunk's items) starting at or before j (items of length 0 share their
// successor's start). `at` receives that item's first index. A binary search over the n entries:
// none for a chunk of one item.
// `balance_item` gives that item's position in the chunk, `balance_find` its frame.
template <class W, class F, uint32_t BLOCK>
__device__ __forceinline__ uint32_t balance_item(const W& worker, const BalanceSlots<F, BLOCK>& s, u64 j, u64& at, uint32_t n) {
    const uint32_t base = threadIdx.x - worker.rank();
    uint32_t lo = 0, hi = n;  // s.start[base + lo] <= j, and j < s.start[base + hi] (the total at hi == n)
    while (hi - lo > 1) {
        uint32_t mid = (lo + hi) >> 1;
        if (s.start[base + mid] <= j) lo = mid;
        else hi = mid;
    }
    at = s.start[base + lo];
    return lo;
}
template <class W, class F, uint32_t BLOCK>
__device__ __forceinline__ const F& balance_find(const W& worker, const BalanceSlots<F, BLOCK>& s, u64 j, u64& at, uint32_t n) {
    return s.frame[threadIdx.x - worker.rank() + balance_item(worker, s, j, at, n)];
}

// A balanced batch's reductions (balance.rs, "Reductions and a tail"): a lane folds the indices
// it runs of one item into a register, and combines that share into the item's slot in shared
// memory with the operation's atomic when it moves on to another item (or ends). The slot
// started at the item's value before the loop, and the operations are associative and
// commutative on these types, so the slot ends at what the item's own lanes loop gives. bool
// travels as uint32_t (0 or 1). Floats are not here: their sums would depend on the order.
#define ATOS_SHARED_COMBINE(OP, T, ATOMIC, U) \
    __device__ __forceinline__ void shared_combine(OP, T* p, T v) { ATOMIC((U*)p, (U)v); }
#define ATOS_SHARED_COMBINE_TYPES(OP, ATOMIC, I64) \
    ATOS_SHARED_COMBINE(OP, uint32_t, ATOMIC, unsigned int) \
    ATOS_SHARED_COMBINE(OP, int32_t, ATOMIC, int) \
    ATOS_SHARED_COMBINE(OP, uint64_t, ATOMIC, unsigned long long) \
    ATOS_SHARED_COMBINE(OP, int64_t, ATOMIC, I64)
// Min and max compare signed 64-bit values as signed; the rest act on bits alike.
ATOS_SHARED_COMBINE_TYPES(ReduceMin, atomicMin, long long)
ATOS_SHARED_COMBINE_TYPES(ReduceMax, atomicMax, long long)
ATOS_SHARED_COMBINE_TYPES(ReduceAdd, atomicAdd, unsigned long long)
ATOS_SHARED_COMBINE_TYPES(ReduceAnd, atomicAnd, unsigned long long)
ATOS_SHARED_COMBINE_TYPES(ReduceOr, atomicOr, unsigned long long)
ATOS_SHARED_COMBINE_TYPES(ReduceXor, atomicXor, unsigned long long)
#undef ATOS_SHARED_COMBINE_TYPES
#undef ATOS_SHARED_COMBINE

// ---- shared ranges: a large balanced chunk run by idle groups too ----
//
// docs/runtime.md, "Shared ranges". A persistent CTA group whose balanced chunk spans at least
// ATOS_SHARE_MIN_STRIDES strides of its threads (a hub's edge list: 162,552 on kron:22) posts
// the chunk (its frames and starts) on its task's board, a module global of ATOS_SHARE_SLOTS
// slots on each device, and takes the chunk's combined range in grabs, as idle groups do
// (a QueueServer whose claim found nothing: `run_from` with no items). A grab runs the
// same lanes body over part of the range, so every index runs once, as in the plain loop; only
// which group's threads run it changes, as a lanes loop allows. The owner counts its batch
// done only after every index is run and every helper has flushed its pushes (reserved them)
// and counted them in `finished`: quiescence still means nothing is left.
//
// A slot's `head` and `next` carry the posting's generation in their top 24 bits: a grab
// counts only if its generation is the head's and its position is below the total. The owner
// writes the frames, `finished` and `head` before it opens `next` (an exchange after a
// fence), so a helper that takes a valid grab (an atomic add, then a fence) reads that
// posting's frames; they stay until the owner frees the slot, which waits for `finished` to
// cover every index taken, including that grab. A grab of an older generation adds to a
// cursor the next opening overwrites. Generations wrap after 2^24 postings of one slot.
#ifndef ATOS_SHARE_SLOTS
#define ATOS_SHARE_SLOTS 8u
#endif
// The posting threshold comes from the generated unit (atos_codegen::unit::SHARE_MIN_STRIDES,
// which the host also reads to tell whether a graph can post at all, so it is not a knob to
// set with -D); 0 here: a unit that shares and does not set it fails to compile
// (share_begin's static_assert).
#ifndef ATOS_SHARE_MIN_STRIDES
#define ATOS_SHARE_MIN_STRIDES 0u
#endif
#ifndef ATOS_SHARE_HELP_STRIDES
#define ATOS_SHARE_HELP_STRIDES 4u
#endif
#ifndef ATOS_SHARE_OWN_STRIDES
#define ATOS_SHARE_OWN_STRIDES 4u
#endif
constexpr u64 SHARE_POS = (1ull << 40) - 1;
// A closed cursor's position: far above any total, and far enough below 2^40 that grabs after
// the close never carry into the generation (a carry once made a late grab look like one of
// the slot's next posting: 3-6 vertices of kron:22 with wrong depths on 2 H200s).
constexpr u64 SHARE_CLOSED = 1ull << 39;

// The reductions of a task whose loop reduces nothing (`Red` of a board): the generator writes
// a struct of the same form for a task whose loop does, one member per reduction (its slot
// type), with `count` and `identity()`.
struct NoReductions {
    static constexpr uint32_t count = 0;
    static __device__ __forceinline__ NoReductions identity() { return NoReductions{}; }
};

template <class F, uint32_t BLOCK, class Red>
struct ShareSlot {
    u64 busy;      // 1 while an owner holds the slot
    u64 head;      // generation << 40 | the posted chunk's total (0: nothing posted)
    u64 next;      // generation << 40 | the first index not yet taken
    u64 finished;  // indices helpers ran, their pushes flushed, in this generation
    u64 n;         // the chunk's items
    F frame[BLOCK];
    u64 start[BLOCK];
    // Per item, the helpers' parts of its loop's reductions, combined with global atomics
    // before they count their grabs finished (the identities while nothing is combined).
    Red red[Red::count > 0 ? BLOCK : 1];
};
template <class F, uint32_t BLOCK, uint32_t SLOTS, class Red>
struct ShareBoard {
    u64 posted;  // slots posted now: idle groups look at the slots only when it is not 0
    ShareSlot<F, BLOCK, Red> slot[SLOTS];
};

// A value of a board's `red` another group combined into: a volatile load, which no stale L1
// line of an earlier posting of the slot answers.
template <class T>
__device__ __forceinline__ T share_read(const T* p) { return *(const volatile T*)p; }

// Whether the run has stopped (a fault, a timeout, an overflow): groups leave their loops.
__device__ __forceinline__ bool run_failed() { return ld_relaxed(&fault_control->status.value) != STATUS_OK; }

// A group's walk over a chunk's combined range, in grabs: the owner's or an idle helper's
// (`share_begin`). The generated batch function runs the task's lanes over each grab
// `share_next` gives, at one call site (the body inlined a second time, or called not inlined,
// took BFS's CTA kernel from 32 registers to 40 or 48: tests/kernel_resources.rs). The walk's
// state is the group's, in shared memory, so only a grab's bounds live in registers across
// the body.
struct ShareCursor {
    int k;        // the slot
    int helper;   // a helper's walk (else the owner's)
    u64 total;    // the chunk's indices (a helper learns it with its first grab)
    u64 ran;      // indices this group ran
    u64 gen;      // the posting's generation (the owner's)
};
__shared__ ShareCursor share_cursor;

// Whether the group walks a chunk in grabs (`share_next`, then `share_end`); false: the owner
// runs [0, total) at once, with no barrier added. An idle helper (`help`) walks when the board
// has a posted slot with indices left. An owner (n items in `s`, `total` indices) walks when its
// chunk spans at least ATOS_SHARE_MIN_STRIDES strides and a slot is free: it posts the chunk
// there. `total` is the same on every thread (balance_scan), so the common case decides alone.
template <class W, class F, uint32_t BLOCK, uint32_t SLOTS, class Red>
__device__ __forceinline__ bool share_begin(const W& w, ShareBoard<F, BLOCK, SLOTS, Red>* board, const BalanceSlots<F, BLOCK>& s, uint32_t n, u64 total, bool help) {
    static_assert(ATOS_SHARE_MIN_STRIDES > 0 && sizeof(F) > 0, "a unit that shares defines ATOS_SHARE_MIN_STRIDES");
    // A total at or past SHARE_CLOSED could not be closed (a u64 lanes range may be that long):
    // such a chunk runs unshared.
    if (board == nullptr || (!help && (total < (u64)ATOS_SHARE_MIN_STRIDES * w.size() || total >= SHARE_CLOSED))) return false;
    int k = -1;
    if (w.is_leader()) {
        if (help) {
            if (ld_relaxed<false>(&board->posted) != 0) {
                for (uint32_t j = 0; j < SLOTS; ++j) {
                    const uint32_t i = (blockIdx.x + j) % SLOTS;
                    const u64 h = ld_relaxed<false>(&board->slot[i].head), c = ld_relaxed<false>(&board->slot[i].next);
                    if ((h & SHARE_POS) != 0 && (c >> 40) == (h >> 40) && (c & SHARE_POS) < (h & SHARE_POS)) {
                        k = (int)i;
                        break;
                    }
                }
            }
        } else if (!run_failed()) {
            for (uint32_t i = 0; i < SLOTS; ++i) {
                if (ld_relaxed<false>(&board->slot[i].busy) == 0 && atomicCAS(&board->slot[i].busy, 0ull, 1ull) == 0ull) {
                    k = (int)i;
                    // Acquire the slot as its last owner freed it: our frame stores come after
                    // the last generation's helpers read theirs.
                    fence_acq_rel<false>();
                    break;
                }
            }
        }
        share_cursor = ShareCursor{k, help ? 1 : 0, help ? 0ull : total, 0, 0};
    }
    k = w.share(k);
    if (k < 0 || help) return k >= 0;
    ShareSlot<F, BLOCK, Red>* const sl = &board->slot[k];
    for (uint32_t i = w.rank(); i < n; i += w.size()) {
        sl->frame[i] = s.frame[i];
        sl->start[i] = s.start[i];
        if constexpr (Red::count > 0) sl->red[i] = Red::identity();
    }
    w.sync();
    if (w.is_leader()) {
        const u64 gen = ((sl->head >> 40) + 1) & 0xffffffull;
        share_cursor.gen = gen;
        sl->n = n;
        sl->finished = 0;
        st_relaxed<false>(&sl->head, gen << 40 | total);
        fence_acq_rel<false>();  // frames, n, finished and head before the cursor opens
        atomicExch(&sl->next, gen << 40);
        atomicAdd(&board->posted, 1ull);
    }
    return true;
}

// The next grab [b, e) of a walk (`share_begin`), if any. A
// helper's first grab loads the chunk's frames into `s` (and `n`); its later grabs are of the
// same posting, which the owner cannot free before this group counts its grabs finished
// (`share_end`).
template <class W, class F, uint32_t BLOCK, uint32_t SLOTS, class Red>
__device__ __forceinline__ bool share_next(const W& w, ShareBoard<F, BLOCK, SLOTS, Red>* board, BalanceSlots<F, BLOCK>& s, uint32_t& n, u64& b, u64& e) {
    u64 got = ~0ull;
    u64 want = 0;
    if (w.is_leader()) {
        ShareCursor& c = share_cursor;
        if (!run_failed()) {
            ShareSlot<F, BLOCK, Red>* const sl = &board->slot[c.k];
            want = c.helper ? (u64)ATOS_SHARE_HELP_STRIDES * w.size()
                            : max((u64)ATOS_SHARE_OWN_STRIDES * w.size(), (c.total - min(c.ran, c.total)) / 64);
            const u64 r = atomicAdd(&sl->next, want);
            if (c.helper) {
                fence_acq_rel<false>();  // acquire the posting whose cursor the grab took
                const u64 h = ld_relaxed<false>(&sl->head);
                if ((r >> 40) == (h >> 40) && (r & SHARE_POS) < (h & SHARE_POS)) {
                    got = r & SHARE_POS;
                    c.total = h & SHARE_POS;
                }
            } else if ((r & SHARE_POS) < c.total) {
                got = r & SHARE_POS;
            }
        }
        if (got != ~0ull) {
            // A helper's first grab: the group loads the chunk below.
            if (c.helper && c.ran == 0) want |= 1ull << 63;
            c.ran += min(got + (want & ~(1ull << 63)), c.total) - got;
        }
    }
    b = w.share(got);
    if (b == ~0ull) return false;
    want = w.share(want);
    if (want >> 63) {
        const ShareSlot<F, BLOCK, Red>* const sl = &board->slot[share_cursor.k];
        n = (uint32_t)sl->n;
        for (uint32_t i = w.rank(); i < n; i += w.size()) {
            s.frame[i] = sl->frame[i];
            s.start[i] = sl->start[i];
        }
        w.sync();
    }
    e = min(b + (want & ~(1ull << 63)), share_cursor.total);
    return true;
}

// After the walk. The owner closes the cursor (what was taken by then is all that runs), waits
// for the helpers' part of it (every grab taken, failed run or not: below) and frees the slot. A
// helper flushes its grabs' pushes (`flush`: reserved before they count) and counts them
// finished. Whether the walk ran anything (the owner's: always; a helper's that found its slot
// taken up: nothing).
//
// A loop that reduces (`Red::count > 0`): every thread calls `merge(red, helper)` with the
// slot's reductions per item. A helper's adds its parts to them (global atomics) before it
// flushes and counts its grabs finished, with a release; the owner's, after its wait has
// acquired every grab's `finished`, takes them into its own slots, between two barriers, before
// it frees the slot. Each index was run by one group, so the owner ends with the loop's value.
template <class W, class F, uint32_t BLOCK, uint32_t SLOTS, class Red, class Flush, class Merge>
__device__ __forceinline__ bool share_end(const W& w, ShareBoard<F, BLOCK, SLOTS, Red>* board, const Flush& flush, const Merge& merge) {
    const ShareCursor c = share_cursor;
    if (!c.helper) {
        if (w.is_leader()) {
            ShareSlot<F, BLOCK, Red>* const sl = &board->slot[c.k];
            const u64 taken = min(atomicExch(&sl->next, c.gen << 40 | SHARE_CLOSED) & SHARE_POS, c.total);
            // Every taken grab finishes, failed run or not (a helper stops at its next grab,
            // and a push in a failed run reports instead of waiting for room): only then may
            // the slot take another chunk, whose frames a helper still reading would mix in.
            while (ld_acquire<false>(&sl->finished) + c.ran < taken) __nanosleep(64);
        }
        if constexpr (Red::count > 0) {
            w.sync();
            merge(board->slot[c.k].red, false);
            w.sync();
        }
        if (w.is_leader()) {
            ShareSlot<F, BLOCK, Red>* const sl = &board->slot[c.k];
            st_relaxed<false>(&sl->head, c.gen << 40);
            atomicAdd(&board->posted, ~0ull);
            fence_acq_rel<false>();
            atomicExch(&sl->busy, 0ull);
        }
        return true;
    }
    if (c.ran == 0) return false;
    if constexpr (Red::count > 0) {
        merge(board->slot[c.k].red, true);
        w.sync();
    }
    flush();
    if (w.is_leader()) {
        fence_acq_rel();  // the flush's reservations (at the unit's scope) and the reductions' parts before `finished`
        atomicAdd(&board->slot[c.k].finished, c.ran);
    }
    return true;
}

// ---- servers: where a group finds work ----

// Serves one queue with one task. The group's leader takes up to FETCH items per sub-worker
// (a ring: claims written items; linear: uses its reservation; a windowed launch: its share of
// the window); every thread copies its share out of the queue (each holds at most K), a ring's
// slots are released, then each sub-worker runs its items. `done` is counted after the batch's
// pushes are flushed and reserved.
//
// Keep (persistent CTA groups, `Keep` = the queue's own StagedPusher): after a batch the group
// keeps up to a batch of the items it pushed to this queue and runs them next itself, without
// a round trip through the queue; they are counted in `kept` before the batch that pushed them
// is counted done, so quiescence (done == end_alloc + kept) still means nothing is left.
struct NoKeep {};
template <class A, class B> struct same_type { static constexpr bool value = false; };
template <class A> struct same_type<A, A> { static constexpr bool value = true; };

// A batch function that may push before its first barrier (a balanced batch whose prefix or
// loop bounds push: atos-codegen's `batch_pushes_first`). Its server opens each kept batch
// with a barrier (run_from), as it does for workers without one of their own; batches taken
// from a queue start after the take's barrier anyway.
template <class F> struct PushesFirst {
    F f;
    template <class... A> __device__ __forceinline__ auto operator()(A&&... a) const -> decltype(f(a...)) { return f(a...); }
};
template <class F> __device__ PushesFirst<F> pushes_first(F f) { return PushesFirst<F>{f}; }
template <class F> struct pushes_first_t { static constexpr bool value = false; };
template <class F> struct pushes_first_t<PushesFirst<F>> { static constexpr bool value = true; };
template <class A> __device__ A&& declval_of();

template <uint32_t FETCH, uint32_t K, class W, class T, class Batch, class Keep = NoKeep, bool S = false>
struct QueueServer {
    const QueueRef<T, S>& q;  // the kernel parameter's (a local copy hides that it points to global memory)
    W& worker;
    Batch batch;
    const Keep* keeper;
    u64 cur = 0, lim = 0;  // linear queues: the leader's reservation
    uint32_t batches = 0;  // the leader's: batches taken, to poll the run's status now and then
    // The leader's items run but not yet counted in `done`: counted once per ATOS_DONE_BATCHES
    // batches (the generated unit sets it for spread units without an idle hook; codegen
    // `SPREAD_DONE_BATCHES`) and always before its group looks for the end (a server that finds
    // nothing first counts what it holds). Termination only needs done <= end_alloc + kept and
    // every item counted before quiescence is judged: `done` only lags more. This relies on
    // `run_persistent` calling every server on every pass before it looks for the end; a loop
    // that stopped at the first server with work would leave the others' counts unreported.
    // Spread units refuse priority queues; were they allowed, `advance_priority` should count
    // first (held-back counts look like near items in flight).
    u64 pending = 0;
    uint32_t unreported = 0;
    static constexpr uint32_t DONE_BATCHES = ATOS_DONE_BATCHES;
    // After the batch's pushes, at the unit's scope: termination reads `done` from every
    // device, and a batch may have pushed to a peer.
    __device__ void count_done(u64 n) {
        if constexpr (DONE_BATCHES == 1) {
            add_release(&q.counters->done.value, n);
        } else {
            pending += n;
            if (++unreported >= DONE_BATCHES) report_done();
        }
    }
    __device__ void report_done() {
        if constexpr (DONE_BATCHES > 1) {
            if (pending != 0) add_release(&q.counters->done.value, pending);
            pending = 0;
            unreported = 0;
        }
    }

    // Runs items [base, base + n) of the queue, taken by the group's leader, then whatever the
    // group keeps of its own pushes.
    template <class G, class Out>
    __device__ void run(const G& g, Out& out, u64 base, uint32_t n) {
        run_from(q, g, out, base, n);
    }

    // Whether the batch function shares large chunks (`share_begin`): it returns whether it ran
    // anything, and called with no items it helps with a chunk another group posted.
    static constexpr bool HELPS = same_type<decltype(declval_of<Batch>()(declval_of<const T (&)[K]>(), 0u)), bool>::value;

    // `run` of items [base, base + n) of ring `from`, holding the queue's item type (a priority
    // queue's next ring, run by its near ring's server). They count done on `from`; the pushes
    // the group keeps after them are the queue's. On one H100 this beat a server of the next
    // ring's own (priority SSSP up to 1.2x) and, at cta/64, one that keeps nothing after
    // next-ring batches (0.83-0.95x of this on SSSP, though 4-9% faster at cta/8 on kron:22 and
    // the grid): docs/results/2026-11-24f-next-ring-h100.md.
    //
    // `parked` (non-null): the n items are a batch the group parked in shared memory (`Park`),
    // counted done on `from` (the next ring) as its open items are.
    //
    // n = 0 (batch functions that share, `HELPS`): one walk of an idle group over a chunk another
    // group posted, if any; whether it ran anything. The walk is this function's one call of
    // `batch`, so the task body is inlined once.
    template <class G, class Out>
    __device__ bool run_from(const QueueRef<T, S>& from, const G& g, Out& out, u64 base, uint32_t n, const T* parked = nullptr) {
        const uint32_t size = worker.size();
        const uint32_t lo = (g.rank() / size) * FETCH;  // this sub-worker's first batch index
        uint32_t count = lo < n ? min(FETCH, n - lo) : 0u;
        T held[K];
        if (!parked && n != 0 && stamped(from)) {
            // Stamped rings: each thread waits for its items' stamps, copies them out and frees
            // their slots before the batch runs (queue.cuh). A group whose items a failed run
            // never wrote drops its whole batch.
            bool ok = true, any = false;
            for (uint32_t k = 0; k < K; ++k) {
                const uint32_t t = worker.rank() + k * size;
                if (t < count) {
                    any = true;
                    ok = wait_stamp(from.stamp(base + lo + t), from.lap2(base + lo + t) + 1, fault_control) && ok;
                }
            }
            if (!g.all(ok)) {
                n = 0;
                count = 0;
            } else if (any) {
                fence_acq_rel<false>();  // acquire: the written stamps' items
                for (uint32_t k = 0; k < K; ++k) {
                    const uint32_t t = worker.rank() + k * size;
                    if (t < count) held[k] = load_item(from.slot(base + lo + t));
                }
                fence_release<false>();  // the copies come before the slots are freed
                for (uint32_t k = 0; k < K; ++k) {
                    const uint32_t t = worker.rank() + k * size;
                    if (t < count) st_stamp(from.stamp(base + lo + t), from.lap2(base + lo + t) + 2);
                }
            }
        } else {
            for (uint32_t k = 0; k < K; ++k) {
                uint32_t t = worker.rank() + k * size;
                if (t < count) held[k] = parked ? parked[lo + t] : load_item(from.slot(base + lo + t));
            }
        }
        g.sync();
        // The group's last thread releases the slots (its atomics overlap the first items'
        // loads on the other threads; with a small fetch it often holds no item).
        if (!parked && n != 0 && g.rank() == g.size() - 1 && from.ring() && !stamped(from)) complete_range<S>(from.counters->read_count, from.counters->read_max, from.counters->read_end, nullptr, base, n);
        bool own = &from == &q;  // whether this batch counts done on the queue
        // The leader's: items of the queue's batches that ran while the group kept items, not yet
        // counted in `done`. While a group keeps items they are in flight (counted in `kept`, not
        // done), so neither quiescence nor a settled band can be seen before its chain ends
        // whatever the earlier batches' counts: the chain counts `done` once, at its end, one
        // release instead of one per batch (each step of a long chain paid it). Priority units
        // count every batch (ATOS_KEPT_DONE_DEFER 0): an advance with slack reads `done` as it
        // comes, and held-back counts would look like items in flight.
        uint32_t held_back = 0;  // (32 bits: a u64 took colouring's CTA kernel from 32 to 40 registers)
        while (true) {
            if constexpr (HELPS) {
                if (!batch(held, count)) return false;  // (only a help walk runs nothing)
            } else {
                batch(held, count);
            }
            g.sync();
            out.settle(g);  // before the batch's pushes are kept or published
            uint32_t kept = 0;
            if constexpr (!same_type<Keep, NoKeep>::value) {
                kept = keeper->template keep<FETCH>(worker, held, FETCH * (g.size() / size));
            }
            out.flush(g);
            out.drain(g, n);  // spread units that combine: copies drained before `done` (mesh.cuh)
            if (g.is_leader()) {
                if (kept) ATOS_ATOMIC(atomicAdd)(&q.counters->kept.value, (u64)kept);
                if (n == 0) {
                    // A help walk: its grabs count done in the owner's batch; the indices it
                    // ran are counted here (statistics: `helped`).
                    if constexpr (HELPS) ATOS_ATOMIC(atomicAdd)(&q.counters->helped.value, share_cursor.ran);
                } else if (!own) {
                    add_release(&from.counters->done.value, n);
                } else if (ATOS_KEPT_DONE_DEFER && kept && held_back < (1u << 31)) {
                    held_back += n;
                } else {
                    count_done((u64)held_back + n);
                    held_back = 0;
                }
            }
            if (kept == 0) return true;
            own = true;
            // Every thread is past the flush (whose empty-stage return reads the stage's count)
            // before any pushes again from the kept items. A CTA worker's batch opens with a
            // barrier of its own before its first push (the first chunk's in `each`, or the
            // balanced batch's scan), unless its prefix may push first (`PushesFirst`); thread
            // and warp workers of a CTA group have none.
            if constexpr (!W::BLOCK_BARRIER || pushes_first_t<Batch>::value) g.sync();
            n = kept;
            count = lo < n ? min(FETCH, n - lo) : 0u;
        }
    }

    // Persistent priority queues with parking, the near ring's server: the items the group
    // parked (`Park`), once an advance has opened their band (another epoch than theirs). They
    // count done on the next ring, as its open items do.
    template <class G, class Out, class PK>
    __device__ bool serve_parked(const G& g, Out& out, const QueueRef<T, S>& next, PriorityControl* pc, const PK& park) {
        uint32_t n = 0;
        if (g.is_leader()) {
            const uint32_t have = *park.count;
            // Another epoch than theirs: the advance that ended theirs has opened them. (Not
            // "later": the 24-bit epoch wraps after 2^24 advances, and a run may make more.)
            if (have != 0 && (ld_relaxed(&pc->parked.value) >> PARK_EPOCH_SHIFT) != *park.epoch) {
                fence_acq_rel();  // acquire: the band before theirs is done, as a claim of open items acquires
                n = have;
            }
        }
        n = g.share(n);
        if (n == 0) return false;
        g.sync();  // the leader's acquire reaches the group
        if (g.is_leader()) *park.count = 0;  // read by the batch's flush (after its barrier) when it parks again
        run_from(next, g, out, 0, n, park.items);
        return true;
    }

    // Persistent: one batch, if the queue has any items (or, `HELPS`, a help walk). Inlined:
    // called out of line, as nvJitLink's LTO left it in spread units under NVSHMEM calls, it
    // was compiled at 255 registers for a kernel bound to 48 (a link error). `others` (whether
    // a server before this one found work in the pass, run_persistent) is not needed here.
    template <class G, class Out>
    __device__ __forceinline__ bool serve(const G& g, Out& out, bool /* others */) {
        const uint32_t subs = g.size() / worker.size();
        u64 base = 0;
        uint32_t n = 0;
        // A failed run (overflow, fault) stops within 64 batches of each group even while work
        // is left: a faulted task may keep pushing. One relaxed load per 64 batches.
        if (g.is_leader() && !((++batches & 63u) == 0 && run_failed()))
            n = q.ring() ? claim(q, FETCH * subs, base) : reserve(q, FETCH * subs, cur, lim, base);
        n = g.share(n);
        if (n == 0) {
            if (g.is_leader()) report_done();
            if constexpr (HELPS) return run_from(q, g, out, 0, 0);
            return false;
        }
        base = g.share(base);
        g.sync();  // a shuffle orders no memory: the leader's acquire reaches the lanes through a barrier
        run(g, out, base, n);
        return true;
    }

    // Persistent priority queues, the near ring's server: one batch of the next ring's open
    // items (`open`: the count the advances credit), if any is left.
    template <class G, class Out>
    __device__ bool serve_open(const G& g, Out& out, const QueueRef<T, S>& next, u64* open) {
        const uint32_t subs = g.size() / worker.size();
        u64 base = 0;
        uint32_t n = 0;
        // As `serve`: a failed run stops within 64 batches even while the band has items.
        if (g.is_leader() && !((++batches & 63u) == 0 && run_failed()))
            n = claim(next, FETCH * subs, base, open);
        n = g.share(n);
        if (n == 0) return false;
        base = g.share(base);
        g.sync();
        run_from(next, g, out, base, n);
        return true;
    }

    // Persistent priority queues: one batch of the open pass (the far ring), if any is left.
    template <class G, class Out>
    __device__ bool serve_pass(const G& g, Out& out, const u64* pass_end) {
        const uint32_t subs = g.size() / worker.size();
        u64 base = 0;
        uint32_t n = 0;
        if (g.is_leader()) n = take_pass(q, FETCH * subs, pass_end, base);
        n = g.share(n);
        if (n == 0) {
            if (g.is_leader()) report_done();
            return false;
        }
        base = g.share(base);
        g.sync();
        run(g, out, base, n);
        return true;
    }

    // Windowed launches (discrete, bulk-synchronous): batches of the launch's window [.., hi),
    // all written before the launch, handed out in order until none is left.
    template <class G, class Out>
    __device__ void serve_window(const G& g, Out& out, u64 hi) {
        const uint32_t subs = g.size() / worker.size();
        while (true) {
            u64 base = 0;
            uint32_t n = 0;
            if (g.is_leader()) n = take_window(q, FETCH * subs, hi, base);
            n = g.share(n);
            if (n == 0) {
                if (g.is_leader()) report_done();
                return;
            }
            base = g.share(base);
            run(g, out, base, n);
        }
    }
};

template <uint32_t FETCH, uint32_t K, class W, class T, class Batch, bool S>
__device__ QueueServer<FETCH, K, W, T, Batch, NoKeep, S> queue_server(const QueueRef<T, S>& q, W& worker, Batch batch) {
    return QueueServer<FETCH, K, W, T, Batch, NoKeep, S>{q, worker, batch, nullptr, 0, 0};
}

// A server whose group keeps its own pushes to `q` (the pusher `keep` stages them).
template <uint32_t FETCH, uint32_t K, class W, class T, class Batch, class Keep>
__device__ QueueServer<FETCH, K, W, T, Batch, Keep> queue_server_keeping(const QueueRef<T>& q, W& worker, Batch batch, const Keep& keep) {
    return QueueServer<FETCH, K, W, T, Batch, Keep>{q, worker, batch, &keep, 0, 0};
}

// Serves a priority queue (persistent): the group's parked items once their band is open (CTA
// groups that park), its near ring, then the open items of its next ring (the current band's,
// run as tasks by the near ring's server), then the open pass over its far ring, and when none
// has anything, tries to advance the threshold (which counts as work: the group looks again at
// once).
template <class KS, class Near, class Far, class PK>
struct PriorityServer {
    const PriorityRef<KS>& q;
    Near& near;
    Far& far;
    // The channel's (`PriorityPusher::park`); null without parking. A pointer: a copy held by
    // value came out of NVRTC 13.0 as null pointers (the first CTA run faulted on an H100,
    // compute-sanitizer: local reads at address 0 in `serve_parked`; 2026-11-25).
    const PK* park;
    template <class G, class Out>
    __device__ bool serve(const G& g, Out& out, bool others) {
        if constexpr (PK::on) {
            if (near.serve_parked(g, out, q.next, q.pc, *park)) return true;
        }
        if (near.serve(g, out, others)) return true;
        if (near.serve_open(g, out, q.next, &q.pc->open.value)) return true;
        if (far.serve_pass(g, out, &q.pc->pass_end.value)) return true;
        bool advanced = false;
        // A failed run advances no more: an advance counts as work, and a group that always
        // finds work never looks at the status in run_persistent.
        if (g.is_leader()) advanced = ld_relaxed(&fault_control->status.value) == STATUS_OK && advance_priority(q);
        return g.share(advanced);
    }
};
template <class KS, class Near, class Far, class PK>
__device__ PriorityServer<KS, Near, Far, PK> priority_server(const PriorityRef<KS>& q, Near& near, Far& far, const PK* park) {
    return PriorityServer<KS, Near, Far, PK>{q, near, far, park};
}

// The server of a queue no task of the program pops (windowed launches pick servers by queue
// index; nothing is ever launched for it).
struct NoServer {
    template <class G, class Out> __device__ bool serve(const G&, Out&, bool) { return false; }
    template <class G, class Out> __device__ void serve_window(const G&, Out&, u64) {}
};

struct NoIdle {
    __device__ bool active() const { return false; }
    template <class G, class Out, class Q> __device__ bool serve(const G&, Out&, Control*, const Q&) { return false; }
    template <class G, class Out> __device__ void serve_window(const G&, Out&, u64, u64, u64, u64) {}
};

// Opens the next sweep, or stops the run, after the last window of a sweep completed. Runs on
// that one worker while no other hook runs (the next sweep is not open yet). The sweep proved
// the run finished if nothing was queued or in flight when it opened and no push happened
// since: then no task existed during the sweep, every index was checked, and none pushed.
template <class Q>
__device__ void close_sweep(Control* ctl, const Q& queues) {
    if (ld_relaxed(&ctl->idle_clean.value) != 0 && queues.pushed() == ld_relaxed(&ctl->idle_base.value)) {
        st_release(&ctl->stop.value, 1ull);
        return;
    }
    u64 pushed = 0;
    bool quiet = queues.quiescent(&pushed);
    store_volatile(&ctl->idle_clean.value, quiet ? 1ull : 0ull);
    store_volatile(&ctl->idle_base.value, pushed);
    store_volatile(&ctl->idle_finished.value, 0ull);
    store_volatile(&ctl->idle_sweeps.value, ld_relaxed(&ctl->idle_sweeps.value) + 1);
    fence_acq_rel();  // release: the new sweep's record comes before the cursor(s) that open it
    queues.open_sweep(ctl);
}

// No combine copies to deliver (IdleServer's `Deliver` in units that do not `accumulate`, or
// run on one GPU).
struct NoDeliver {
    __device__ bool operator()(u64) const { return false; }
};
template <class D> struct Delivers { static constexpr bool value = true; };
template <> struct Delivers<NoDeliver> { static constexpr bool value = false; };

// Every thread of the group delivers its share of the n positions from lo, going round at
// `len` (a span that does not wrap passes any len past its end). Returns how many moved a
// value, on every thread; the barrier orders every delivery before what the group does next
// (the hook's reads, the leader's release of `done` or of its window).
template <class G, class D>
__device__ __forceinline__ uint32_t deliver_span(const G& g, u64 lo, u64 n, u64 len, const D& deliver) {
    uint32_t moved = 0;
    for (u64 i = g.rank(); i < n; i += g.size()) {
        const u64 p = lo + i < len ? lo + i : lo + i - len;
        moved += deliver(p) ? 1u : 0u;
    }
    moved = g.template reduce<ReduceAdd>(moved);
    g.sync();
    return moved;
}

// The idle hook: run by groups whose pops found nothing, over windows of the sweep's indices
// (persistent), or over a whole sweep dealt out to a launch (windowed strategies). Spread over
// several devices, a device's sweep also delivers its combine copies (`Deliver`, a function of
// a position that says whether it delivered something; mesh.cuh, `deliver_combined`).
template <uint32_t FETCH, class W, class I, class Body, class Deliver = NoDeliver>
struct IdleServer {
    W& worker;
    Body body;
    u64 range;
    Deliver deliver;

    __device__ bool active() const { return range > 0; }

    // Runs the hook on indices [lo, lo + n), each sub-worker on FETCH of them, interleaved:
    // sub-worker k of S takes lo + k, lo + k + S, ..., so the thread sub-workers of a warp read
    // consecutive indices (coalesced) at every step.
    template <class G, class Out>
    __device__ void run(const G& g, Out& out, u64 lo, u64 n) {
        const u64 subs = g.size() / worker.size();
        for (u64 i = g.rank() / worker.size(); i < n; i += subs) body((I)(lo + i));
        g.sync();
        out.flush(g);
    }

    template <class G, class Out, class Q>
    __device__ bool serve(const G& g, Out& out, Control* ctl, const Q& queues) {
        const uint32_t subs = g.size() / worker.size();
        u64 lo = 0, n = 0;
        // A window of the open sweep (`Q`: one GPU's cursor, or this device's share when spread).
        if (g.is_leader()) n = queues.grab_window(ctl, range, (u64)FETCH * subs, lo);
        n = g.share(n);
        if (n == 0) return false;
        lo = g.share(lo);
        u64 total = range;
        if constexpr (!Delivers<Deliver>::value) {
            run(g, out, lo, n);
        } else {
            // The device's combine copies' positions come first in its sweep, then its share of
            // the hook's indices (MeshQueues::grab_window, which says why): a window may hold
            // both, deliveries first.
            const SweepParts part = queues.sweep_parts(lo, n);
            total = queues.sweep_total(range);
            const uint32_t delivered = deliver_span(g, part.deliver_lo, part.deliver_n, ~0ull, deliver);
            if (part.n != 0) run(g, out, part.lo, part.n);
            // A delivery during the sweep means something was in flight when it opened: the
            // sweep cannot prove the end (close_sweep), and the next one rechecks what it moved.
            if (g.is_leader() && delivered != 0) {
                store_volatile(&ctl->idle_clean.value, 0ull);
                queues.count_delivered(delivered);
            }
        }
        if (g.is_leader()) {
            // Release: this window's pushes are reserved first (and its mark stored).
            if (add_release(&ctl->idle_finished.value, n) + n == total) {
                fence_acq_rel();  // acquire: every window's pushes are visible to the closer
                close_sweep(ctl, queues);
            }
        }
        return true;
    }

    template <class G, class Out>
    __device__ void serve_window(const G& g, Out& out, u64 lo, u64 hi, u64 group, u64 groups) {
        const u64 chunk = (u64)FETCH * (g.size() / worker.size());
        for (u64 b = lo + group * chunk; b < hi; b += groups * chunk) run(g, out, b, hi - b < chunk ? hi - b : chunk);
    }
};

template <uint32_t FETCH, class I, class W, class Body>
__device__ IdleServer<FETCH, W, I, Body> idle_server(u64 range, W& worker, Body body) {
    return IdleServer<FETCH, W, I, Body>{worker, body, range, NoDeliver{}};
}
template <uint32_t FETCH, class I, class W, class Body, class Deliver>
__device__ IdleServer<FETCH, W, I, Body, Deliver> idle_server(u64 range, W& worker, Body body, Deliver deliver) {
    return IdleServer<FETCH, W, I, Body, Deliver>{worker, body, range, deliver};
}

// The persistent driver: every group loops serving each queue in turn; when none had work it
// checks for the end of the run (quiescence, or the idle hook's proof) and otherwise runs a
// window of the idle hook, or naps. Each server's `serve(g, out, others)` is told whether a
// server before it found work in this pass (mesh.cuh's ForwardServer forwards at once when
// none did and the run forwards when idle; the others ignore it).
//
// With ATOS_TRACE_PHASES each group's leader keeps the clock after its last batch (or idle
// window) in a register; at the end the block takes their maximum in shared memory (every
// thread of the block has left the loop at its barrier) and its thread 0 raises the trace
// words: one global atomic per block, none per batch, so the trace costs the run a clock read
// per batch.
struct PhaseTrace {
    u64 last_work = 0;
    __device__ static void first(u64* word) {
        if (ld_relaxed(word) == 0) ATOS_ATOMIC(atomicCAS)(word, 0ull, (u64)clock_ns());
    }
    __device__ void start(Control* ctl, u64* block_last) {
        if (threadIdx.x == 0) {
            *block_last = 0;
            first(&ctl->trace_start.value);
        }
        __syncthreads();
    }
    __device__ void worked() { last_work = clock_ns(); }
    __device__ void stopped(Control* ctl) { first(&ctl->trace_stop.value); }
    __device__ void exit(Control* ctl, u64* block_last) {
        if (last_work != 0) atomicMax(block_last, last_work);
        __syncthreads();
        if (threadIdx.x == 0) {
            if (*block_last != 0) ATOS_ATOMIC(atomicMax)(&ctl->trace_work.value, *block_last);
            ATOS_ATOMIC(atomicMax)(&ctl->trace_exit.value, (u64)clock_ns());
        }
    }
};

template <class G, class Out, class Q, class Idle, class... Servers>
__device__ void run_persistent(const G& g, Control* ctl, Out& out, const Q& queues, Idle& idle, Servers&... servers) {
    uint32_t nap = 0;
#if ATOS_TRACE_PHASES
    __shared__ u64 trace_block_last;
    PhaseTrace trace;
    trace.start(ctl, &trace_block_last);
#endif
    while (true) {
        bool worked = false;
        ((worked = servers.serve(g, out, worked) || worked), ...);
        if (worked) {
#if ATOS_TRACE_PHASES
            if (g.is_leader()) trace.worked();
#endif
            nap = 0;
            continue;
        }
        bool stop = false;
        if (g.is_leader()) {
            if (ld_relaxed(&ctl->status.value) != STATUS_OK) stop = true;
            else if (idle.active()) stop = ld_relaxed(&ctl->stop.value) != 0;
            else stop = queues.quiescent(nullptr);
#if ATOS_TRACE_PHASES
            if (stop) trace.stopped(ctl);
#endif
        }
        if (g.share(stop)) break;
        if (idle.serve(g, out, ctl, queues)) {
#if ATOS_TRACE_PHASES
            if (g.is_leader()) trace.worked();
#endif
            nap = 0;
            continue;
        }
        if (ATOS_IDLE_FENCE) fence_acq_rel();
        if (nap < ATOS_IDLE_NAP_MAX_SHIFT) ++nap;
        __nanosleep((uint32_t)ATOS_IDLE_NAP_NS << nap);
    }
#if ATOS_TRACE_PHASES
    trace.exit(ctl, &trace_block_last);
#endif
}

// The windowed driver (discrete and bulk-synchronous strategies): one launch serves one window
// of one queue, its groups taking batches in order (or, when `w.queue` is the number of queues,
// one sweep of the idle hook, dealt out in chunks), and returns. The host decides what to launch
// next.
template <class G, class Out, class Idle, class... Servers>
__device__ void run_window(const G& g, Out& out, const Window& w, Idle& idle, Servers&... servers) {
    const u64 per_block = blockDim.x / g.size();
    const u64 group = (u64)blockIdx.x * per_block + threadIdx.x / g.size();
    const u64 groups = (u64)gridDim.x * per_block;
    uint32_t i = 0;
    ((i++ == w.queue ? servers.serve_window(g, out, w.hi) : void()), ...);
    if (w.queue == sizeof...(Servers)) idle.serve_window(g, out, w.lo, w.hi, group, groups);
}

}  // namespace atos
