// ---- diag (zz_hang): a copy of PriorityPusher::put / push_lanes / make_room with counters ----
#define DIAG_ADD(p) atomicAdd((unsigned long long*)(p), 1ull)
template <class T>
__device__ bool diag_make_room(const atos::QueueRef<T>& q, atos::u64 base, atos::u64 n, atos::Control* ctl, atos::u64* waits) {
    using namespace atos;
    QueueCounters* c = q.counters;
    u64 need = base + n;
    uint32_t nap = 32;
    while (true) {
        u64 upper = need - ld_relaxed(&c->start.value);
        if (upper <= q.capacity) {
            if (upper > ld_relaxed(&c->peak.value)) atomicMax(&c->peak.value, upper);
            break;
        }
        long long avail = (long long)ld_relaxed(&c->avail.value);
        fence_acq_rel<false>();
        long long lower = (long long)(need - ld_relaxed(&c->end.value)) + (avail > 0 ? avail : 0);
        if (lower > (long long)q.capacity) {
            report_overflow(ctl, c, (u64)lower);
            return false;
        }
        if (ld_relaxed(&ctl->status.value) != STATUS_OK) return false;
        DIAG_ADD(waits);
        __nanosleep(nap);
        if (nap < 1024) nap *= 2;
    }
    u64 slots = q.mask + 1;
    if (need <= slots) return true;
    u64 floor = need - slots;
    nap = 32;
    while (ld_relaxed(&c->read_end.value) < floor) {
        try_advance<false>(c->read_count, c->read_max, c->read_end, nullptr);
        if (ld_relaxed(&ctl->status.value) != STATUS_OK) return false;
        DIAG_ADD(waits);
        __nanosleep(nap);
        if (nap < 1024) nap *= 2;
    }
    fence_acq_rel<false>();
    return true;
}
template <class T, class S>
__device__ void diag_push(const atos::QueueRef<T>& q, T item, atos::Control* ctl, const S& s) {
    using namespace atos;
    QueueCounters* X = s.work.next.counters;
    QueueCounters* F = s.work.far.counters;
    PriorityControl* P = s.work.pc;
    const uint32_t mask = converged_lanes((unsigned long long)q.counters);
    uint32_t leader = __ffs(mask) - 1;
    uint32_t rank = __popc(mask & lanemask_lt());
    uint32_t n = __popc(mask);
    u64 base = 0;
    int ok = 0;
#ifndef DIAG_FIX
    if (rank == 0) {
        base = atomicAdd(&q.counters->end_alloc.value, (u64)n);
        DIAG_ADD(&X->peak.value);
        ok = diag_make_room(q, base, n, ctl, &F->stamp.value);
        DIAG_ADD(&X->window_next.value);
    }
    base = __shfl_sync(mask, base, leader);
    ok = __shfl_sync(mask, ok, leader);
#else
    // The lanes of the mask wait together: the leader decides each round, all lanes loop.
    if (rank == 0) base = atomicAdd(&q.counters->end_alloc.value, (u64)n);
    base = __shfl_sync(mask, base, leader);
    uint32_t nap = 32;
    while (true) {
        int st = 0;  // 0 wait, 1 room, 2 no room
        if (rank == 0) {
            QueueCounters* c = q.counters;
            const u64 need = base + n;
            const u64 upper = need - ld_relaxed(&c->start.value);
            if (upper <= q.capacity) st = 1;
            else {
                long long avail = (long long)ld_relaxed(&c->avail.value);
                fence_acq_rel<false>();
                long long lower = (long long)(need - ld_relaxed(&c->end.value)) + (avail > 0 ? avail : 0);
                if (lower > (long long)q.capacity) { report_overflow(ctl, c, (u64)lower); st = 2; }
                else if (ld_relaxed(&ctl->status.value) != STATUS_OK) st = 2;
            }
            if (st == 1 && need > q.mask + 1) {
                if (ld_relaxed(&c->read_end.value) < need - (q.mask + 1)) {
                    try_advance<false>(c->read_count, c->read_max, c->read_end, nullptr);
                    st = ld_relaxed(&ctl->status.value) != STATUS_OK ? 2 : 0;
                } else fence_acq_rel<false>();
            }
        }
        st = __shfl_sync(mask, st, leader);
        if (st != 0) { ok = st == 1; break; }
        if (rank == 0) DIAG_ADD(&F->stamp.value);
        __nanosleep(nap);
        if (nap < 1024) nap *= 2;
    }
#endif
    DIAG_ADD(&F->inlined.value);
    __syncwarp(mask);
    DIAG_ADD(&P->moved.value);
    if (ok) {
        store_item(q.slot(base + rank), item);
        fence_release<false>();
    }
    __syncwarp(mask);
    DIAG_ADD(&P->advances.value);
    if (rank == 0 && ok) publish(q, base, n);
}
template <class Pu, class Item, class Key, class S>
__device__ void diag_put(const Pu& p, Item item, Key key, const S& s) {
    using namespace atos;
    DIAG_ADD(&fault_control->idle_clean.value);
    const u64 k = encode_key(key);
    const u64 t = ld_relaxed(&p.pc->threshold.value), u = ld_relaxed(&p.pc->band_end.value), m = ld_relaxed(&p.pc->pass_min.value);
    if (k < t) {
        DIAG_ADD(&s.work.next.counters->stamp.value);
        diag_push(p.near.q, item, p.near.ctl, s);
    } else if (k < u) {
        diag_push(p.next.q, item, p.next.ctl, s);
    } else {
        DIAG_ADD(&s.work.next.counters->inlined.value);
        if (k < m) atomicMin(&p.pc->pass_min.value, k);
        diag_push(p.far.q, atos_keys_work::keyed(item, key), p.far.ctl, s);
    }
    DIAG_ADD(&fault_control->idle_base.value);
}
