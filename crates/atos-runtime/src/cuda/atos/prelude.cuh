// atos device prelude: fixed-width types and Rust-semantics scalar helpers.
// NVRTC ships no C++ standard library, so the few pieces needed are defined here.
#pragma once

// The unit's memory scope: of every atomic and counter access in atos's device code, and of
// every ordering that is not a ring's own (queue.cuh's QueueRef carries a ring's scope). A unit
// for a program spread over several GPUs (ATOS_SYSTEM_SCOPE 1, set by the generated unit) works
// on peers' memory through peer-to-peer mappings: its atomics and those orderings must hold
// between GPUs, so they take the system scope (`atomicAdd_system`, `fence.acq_rel.sys`, ...).
// One GPU keeps the cheaper device scope.
#ifndef ATOS_SYSTEM_SCOPE
#define ATOS_SYSTEM_SCOPE 0
#endif
// A spread unit for ranks whose memory this rank cannot map (other nodes, or NVSHMEM told to
// use its calls: ATOS_REMOTE_CALLS 1, prepended by the runtime (gpu/nvshmem.rs,
// remote_calls_source) to a spread unit (ATOS_SYSTEM_SCOPE 1), with
// NVSHMEM's device headers). Addresses in its tables carry the owning rank in their top byte
// (remote.cuh; this rank's own symmetric memory too), and every memory primitive below (loads,
// stores, atomics, fences) sends an access to a tagged address as an NVSHMEM call; memory no
// other rank reaches (this device's arena) is accessed as before.
#ifndef ATOS_REMOTE_CALLS
#define ATOS_REMOTE_CALLS 0
#endif
#if ATOS_REMOTE_CALLS && !ATOS_SYSTEM_SCOPE
#error "ATOS_REMOTE_CALLS is for spread units (ATOS_SYSTEM_SCOPE 1)"
#endif
#if ATOS_SYSTEM_SCOPE
#define ATOS_SCOPE "sys"
#if ATOS_REMOTE_CALLS
#define ATOS_ATOMIC(op) ::atos::remote::op
#else
#define ATOS_ATOMIC(op) ::atos::global_sys::op
#endif
#else
#define ATOS_SCOPE "gpu"
#define ATOS_ATOMIC(op) op
#endif

typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef int int32_t;
typedef unsigned long long uint64_t;
typedef long long int64_t;

namespace atos {

// The GPU's global clock in nanoseconds (%globaltimer: one clock for every SM of the device).
__device__ __forceinline__ unsigned long long clock_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

template <class T> struct Unsigned;
template <> struct Unsigned<uint8_t> { typedef uint8_t type; };
template <> struct Unsigned<uint16_t> { typedef uint16_t type; };
template <> struct Unsigned<int32_t> { typedef uint32_t type; };
template <> struct Unsigned<uint32_t> { typedef uint32_t type; };
template <> struct Unsigned<int64_t> { typedef uint64_t type; };
template <> struct Unsigned<uint64_t> { typedef uint64_t type; };

template <class T> struct Limits;
template <> struct Limits<uint8_t> { static __device__ constexpr uint8_t min() { return 0; } static __device__ constexpr uint8_t max() { return 255; } };
template <> struct Limits<uint16_t> { static __device__ constexpr uint16_t min() { return 0; } static __device__ constexpr uint16_t max() { return 65535; } };
template <> struct Limits<int32_t> { static __device__ constexpr int32_t min() { return -2147483647 - 1; } static __device__ constexpr int32_t max() { return 2147483647; } };
template <> struct Limits<uint32_t> { static __device__ constexpr uint32_t min() { return 0u; } static __device__ constexpr uint32_t max() { return 4294967295u; } };
template <> struct Limits<int64_t> { static __device__ constexpr int64_t min() { return -9223372036854775807ll - 1; } static __device__ constexpr int64_t max() { return 9223372036854775807ll; } };
template <> struct Limits<uint64_t> { static __device__ constexpr uint64_t min() { return 0ull; } static __device__ constexpr uint64_t max() { return 18446744073709551615ull; } };

// Signed arithmetic wraps like Rust's release build instead of being undefined in C++.
template <class T> __device__ __forceinline__ T wadd(T a, T b) { typedef typename Unsigned<T>::type U; return (T)((U)a + (U)b); }
template <class T> __device__ __forceinline__ T wsub(T a, T b) { typedef typename Unsigned<T>::type U; return (T)((U)a - (U)b); }
template <class T> __device__ __forceinline__ T wmul(T a, T b) { typedef typename Unsigned<T>::type U; return (T)((U)a * (U)b); }
template <class T> __device__ __forceinline__ T wneg(T a) { typedef typename Unsigned<T>::type U; return (T)((U)0 - (U)a); }

// Shift amounts are masked to the width, as `wrapping_shl` does, instead of being undefined.
template <class T, class S> __device__ __forceinline__ T shl(T a, S s) {
    typedef typename Unsigned<T>::type U;
    return (T)((U)a << ((uint32_t)s & (sizeof(T) * 8 - 1)));
}
template <class T, class S> __device__ __forceinline__ T shr(T a, S s) {
    return (T)(a >> ((uint32_t)s & (sizeof(T) * 8 - 1)));
}

// ---- faults (atos-codegen faults.rs): what Rust panics on, reported with its site (function,
// line, fault) in the control block; the run stops. Defined in worker.cuh, after Control.
typedef unsigned long long Site;
__device__ void fault(Site site);

// Division and remainder by zero, and MIN / -1, always fault (Rust always panics); the result
// is then 0 and the run stops.
template <class T> __device__ __forceinline__ bool div_faults(T a, T b, Site zero, Site overflow) {
    if (b == (T)0) { fault(zero); return true; }
    if (Limits<T>::min() != (T)0 && a == Limits<T>::min() && b == (T)-1) { fault(overflow); return true; }
    return false;
}
template <class T> __device__ __forceinline__ T div(T a, T b, Site zero, Site overflow) {
    return div_faults(a, b, zero, overflow) ? (T)0 : (T)(a / b);
}
template <class T> __device__ __forceinline__ T rem(T a, T b, Site zero, Site overflow) {
    return div_faults(a, b, zero, overflow) ? (T)0 : (T)(a % b);
}

// A checked index (every build, as Rust checks indices): one past the length faults and reads
// or writes element 0 instead (every device array holds at least 8 bytes), so the task
// finishes its item without touching memory outside the array; the run has failed.
template <class I> __device__ __forceinline__ uint64_t index(I i, uint64_t len, Site site) {
    if ((uint64_t)i < len) return (uint64_t)i;
    fault(site);
    return 0;
}

// A checked index in a `lanes` loop that only reads (atos-codegen emit.rs, `reads_only`): past
// the length it reads element 0, as `index` does, and keeps the first such site in `pending`,
// which the loop reports after its last iteration. No branch, so the unrolled loop keeps its
// iterations' loads in flight together; the loop has no effects, so the later report changes
// nothing but when the run learns of the fault.
template <class I> __device__ __forceinline__ uint64_t index_quiet(I i, uint64_t len, Site site, Site& pending) {
    const bool ok = (uint64_t)i < len;
    pending = ok || pending != 0 ? pending : site;
    return ok ? (uint64_t)i : 0;
}

// A lanes loop's leading `let x = s.f[e];` over `lo..hi`, checked once (emit.rs,
// hoist_index_checks): past the length it faults as the first index past it would, and the
// loop ends at the length, so no lane reads outside the array.
template <class I> __device__ __forceinline__ I index_range(I lo, I hi, uint64_t len, Site site) {
    if (hi > lo && (uint64_t)hi > len) {
        fault(site);
        return (uint64_t)lo >= len ? lo : (I)len;
    }
    return hi;
}

// Checked arithmetic (KernelSpec::checked, on in debug builds): the wrapped result, and a fault
// where Rust's debug build panics.
template <class T> __device__ __forceinline__ T checked_add(T a, T b, Site site) {
    bool bad = Limits<T>::min() == (T)0 ? a > (T)(Limits<T>::max() - b)
                                        : (b > (T)0 ? a > (T)(Limits<T>::max() - b) : a < (T)(Limits<T>::min() - b));
    if (bad) fault(site);
    return wadd(a, b);
}
template <class T> __device__ __forceinline__ T checked_sub(T a, T b, Site site) {
    bool bad = Limits<T>::min() == (T)0 ? a < b
                                        : (b < (T)0 ? a > (T)(Limits<T>::max() + b) : a < (T)(Limits<T>::min() + b));
    if (bad) fault(site);
    return wsub(a, b);
}
template <class T> __device__ __forceinline__ bool mul_overflows(T a, T b) {
    if (sizeof(T) < 8) {  // the exact product fits 64 bits
        if (Limits<T>::min() == (T)0) return (uint64_t)a * (uint64_t)b > (uint64_t)Limits<T>::max();
        long long p = (long long)a * (long long)b;
        return p < (long long)Limits<T>::min() || p > (long long)Limits<T>::max();
    }
    if (Limits<T>::min() == (T)0) return __umul64hi((uint64_t)a, (uint64_t)b) != 0ull;
    long long lo = (long long)((uint64_t)a * (uint64_t)b);
    return __mul64hi((long long)a, (long long)b) != (lo < 0 ? -1ll : 0ll);
}
template <class T> __device__ __forceinline__ T checked_mul(T a, T b, Site site) {
    if (mul_overflows(a, b)) fault(site);
    return wmul(a, b);
}
template <class T> __device__ __forceinline__ T checked_neg(T a, Site site) {
    if (a == Limits<T>::min()) fault(site);
    return wneg(a);
}
// A shift amount of the type's width or more (or negative) overflows.
template <class T, class S> __device__ __forceinline__ T checked_shl(T a, S s, Site site) {
    if ((uint64_t)s >= sizeof(T) * 8) fault(site);
    return shl(a, s);
}
template <class T, class S> __device__ __forceinline__ T checked_shr(T a, S s, Site site) {
    if ((uint64_t)s >= sizeof(T) * 8) fault(site);
    return shr(a, s);
}
__device__ __forceinline__ float frem(float a, float b) { return fmodf(a, b); }
__device__ __forceinline__ double frem(double a, double b) { return fmod(a, b); }

template <class T> __device__ __forceinline__ T min(T a, T b) { return b < a ? b : a; }
template <class T> __device__ __forceinline__ T max(T a, T b) { return a < b ? b : a; }
// Rust's f32::min/max ignore a NaN operand, as fminf/fmaxf do.
__device__ __forceinline__ float min(float a, float b) { return fminf(a, b); }
__device__ __forceinline__ float max(float a, float b) { return fmaxf(a, b); }
__device__ __forceinline__ double min(double a, double b) { return fmin(a, b); }
__device__ __forceinline__ double max(double a, double b) { return fmax(a, b); }

// Bit counts (Rust's `count_ones`, `leading_zeros`, `trailing_zeros`: u32 results; all
// zeros gives the type's width).
template <class T> __device__ __forceinline__ uint32_t count_ones(T x) {
    typedef typename Unsigned<T>::type U;
    return sizeof(T) == 8 ? (uint32_t)__popcll((unsigned long long)(U)x) : (uint32_t)__popc((unsigned)(U)x);
}
template <class T> __device__ __forceinline__ uint32_t leading_zeros(T x) {
    typedef typename Unsigned<T>::type U;
    // Narrow types count within their own width: a u8 holding 1 has 7 leading zeros.
    return sizeof(T) == 8 ? (uint32_t)__clzll((long long)(U)x) : (uint32_t)__clz((int)(U)x) - (uint32_t)(32 - sizeof(T) * 8);
}
template <class T> __device__ __forceinline__ uint32_t trailing_zeros(T x) {
    typedef typename Unsigned<T>::type U;
    if ((U)x == 0) return (uint32_t)(sizeof(T) * 8);
    return sizeof(T) == 8 ? (uint32_t)(__ffsll((long long)(U)x) - 1) : (uint32_t)(__ffs((int)(U)x) - 1);
}

// Float methods, as Rust computes them: `abs` clears the sign, `sqrt` is correctly rounded,
// `mul_add` is one fused rounding.
__device__ __forceinline__ float fabs_of(float x) { return fabsf(x); }
__device__ __forceinline__ double fabs_of(double x) { return fabs(x); }
__device__ __forceinline__ float sqrt_of(float x) { return __fsqrt_rn(x); }
__device__ __forceinline__ double sqrt_of(double x) { return __dsqrt_rn(x); }
__device__ __forceinline__ float mul_add(float a, float b, float c) { return __fmaf_rn(a, b, c); }
__device__ __forceinline__ double mul_add(double a, double b, double c) { return __fma_rn(a, b, c); }

// `(lo..hi).step_by(k)`: Rust panics on k == 0 (a fault; the loop then runs once); the index
// after `i` is `hi` once the step would reach or pass it, so it never overflows.
__device__ __forceinline__ uint64_t check_step(uint64_t k, Site site) {
    if (k == 0) {
        fault(site);
        return ~0ull;
    }
    return k;
}
template <class T> __device__ __forceinline__ T step_next(T i, T end, uint64_t k) {
    typedef typename Unsigned<T>::type U;
    U gap = (U)((U)end - (U)i);
    return (uint64_t)gap <= k ? end : (T)((U)i + (U)k);
}

// `x as i32` from a float saturates and maps NaN to 0 in Rust.
template <class T, class F> __device__ __forceinline__ T cast_sat(F x) {
    if (x != x) return (T)0;
    if (x <= (F)Limits<T>::min()) return Limits<T>::min();
    if (x >= (F)Limits<T>::max()) return Limits<T>::max();
    return (T)x;
}

__device__ __forceinline__ uint32_t bits_of(float x) { return __float_as_uint(x); }
__device__ __forceinline__ unsigned long long bits_of(double x) { return (unsigned long long)__double_as_longlong(x); }

// ---- reductions across a worker's lanes (ops::REDUCTIONS): an identity and a combine each ----
template <class T> struct Extremes {
    static __device__ T top() { return Limits<T>::max(); }
    static __device__ T bottom() { return Limits<T>::min(); }
};
template <> struct Extremes<float> {
    static __device__ float top() { return __uint_as_float(0x7f800000u); }
    static __device__ float bottom() { return __uint_as_float(0xff800000u); }
};
template <> struct Extremes<double> {
    static __device__ double top() { return __longlong_as_double(0x7ff0000000000000ll); }
    static __device__ double bottom() { return __longlong_as_double((long long)0xfff0000000000000ull); }
};
template <class T> __device__ __forceinline__ T radd(T a, T b) { return wadd(a, b); }
__device__ __forceinline__ float radd(float a, float b) { return a + b; }
__device__ __forceinline__ double radd(double a, double b) { return a + b; }
template <class T> __device__ __forceinline__ T zero_of() { return (T)0; }
// -0.0 is the float sum's identity: -0.0 + x == x for every x, +0.0 included.
template <> __device__ __forceinline__ float zero_of<float>() { return -0.0f; }
template <> __device__ __forceinline__ double zero_of<double>() { return -0.0; }

struct ReduceMin {
    template <class T> static __device__ __forceinline__ T identity() { return Extremes<T>::top(); }
    template <class T> static __device__ __forceinline__ T apply(T a, T b) { return min(a, b); }
};
struct ReduceMax {
    template <class T> static __device__ __forceinline__ T identity() { return Extremes<T>::bottom(); }
    template <class T> static __device__ __forceinline__ T apply(T a, T b) { return max(a, b); }
};
struct ReduceAdd {
    template <class T> static __device__ __forceinline__ T identity() { return zero_of<T>(); }
    template <class T> static __device__ __forceinline__ T apply(T a, T b) { return radd(a, b); }
};
struct ReduceAnd {
    template <class T> static __device__ __forceinline__ T identity() { return (T)~(T)0; }
    template <class T> static __device__ __forceinline__ T apply(T a, T b) { return (T)(a & b); }
};
template <> __device__ __forceinline__ bool ReduceAnd::identity<bool>() { return true; }
struct ReduceOr {
    template <class T> static __device__ __forceinline__ T identity() { return (T)0; }
    template <class T> static __device__ __forceinline__ T apply(T a, T b) { return (T)(a | b); }
};
struct ReduceXor {
    template <class T> static __device__ __forceinline__ T identity() { return (T)0; }
    template <class T> static __device__ __forceinline__ T apply(T a, T b) { return (T)(a ^ b); }
};

// Shuffles of any scalar (bool and narrow types travel as int).
template <class V> __device__ __forceinline__ V shfl_xor(V v, int lane_mask) { return (V)__shfl_xor_sync(0xffffffffu, v, lane_mask); }
__device__ __forceinline__ bool shfl_xor(bool v, int lane_mask) { return __shfl_xor_sync(0xffffffffu, (int)v, lane_mask) != 0; }
// Every lane of a full warp gets op over the 32 values (a butterfly: each lane combines the
// same pairs, and the operations commute, so all lanes hold identical bits).
template <class Op, class V> __device__ __forceinline__ V warp_reduce(V v) {
    for (int o = 16; o > 0; o >>= 1) v = Op::apply(v, shfl_xor(v, o));
    return v;
}

#if ATOS_REMOTE_CALLS
}  // namespace atos
#include <atos/remote.cuh>
namespace atos {
template <class T> __device__ __forceinline__ T load_volatile(const T* p) {
    const int pe = remote::pe_of(p);
    if (pe >= 0) return remote::get(p, pe);
    return *(const volatile T*)p;
}
template <class T> __device__ __forceinline__ void store_volatile(T* p, T v) {
    const int pe = remote::pe_of(p);
    if (pe >= 0) remote::put(p, v, pe);
    else *(volatile T*)p = v;
}
#else
template <class T> __device__ __forceinline__ T load_volatile(const T* p) { return *(const volatile T*)p; }
template <class T> __device__ __forceinline__ void store_volatile(T* p, T v) { *(volatile T*)p = v; }
#endif

// ---- task items: a scalar, or a generated tuple struct (aligned to 4 or 8 bytes, at most 16;
// see atos-codegen's item.rs). They are copied in words of their alignment: C++ has no
// volatile struct copy and no struct shuffle. A u32 or u64 item is one word, as a scalar is.
template <bool WIDE> struct ItemWord { typedef uint32_t type; };
template <> struct ItemWord<true> { typedef unsigned long long type; };
template <class T> struct ItemWords {
    typedef typename ItemWord<(alignof(T) >= 8)>::type W;
    static constexpr uint32_t N = sizeof(T) / sizeof(W);
    static_assert(sizeof(T) % sizeof(W) == 0 && sizeof(T) <= 16, "task items are at most 16 bytes, in whole words");
};
template <class T> __device__ __forceinline__ void store_item(T* p, const T& v) {
    typedef typename ItemWords<T>::W W;
    W w[ItemWords<T>::N];
    memcpy(w, &v, sizeof(T));
#if ATOS_REMOTE_CALLS
    if (remote::pe_of(p) >= 0) {
#pragma unroll
        for (uint32_t i = 0; i < ItemWords<T>::N; ++i) store_volatile(reinterpret_cast<W*>(p) + i, w[i]);
        return;
    }
#endif
    volatile W* dst = reinterpret_cast<volatile W*>(p);
#pragma unroll
    for (uint32_t i = 0; i < ItemWords<T>::N; ++i) dst[i] = w[i];
}
template <class T> __device__ __forceinline__ T load_item(const T* p) {
    typedef typename ItemWords<T>::W W;
    W w[ItemWords<T>::N];
    const volatile W* src = reinterpret_cast<const volatile W*>(p);
#if ATOS_REMOTE_CALLS
    if (remote::pe_of(p) >= 0) {
#pragma unroll
        for (uint32_t i = 0; i < ItemWords<T>::N; ++i) w[i] = load_volatile(reinterpret_cast<const W*>(p) + i);
        T r;
        memcpy(&r, w, sizeof(T));
        return r;
    }
#endif
#pragma unroll
    for (uint32_t i = 0; i < ItemWords<T>::N; ++i) w[i] = src[i];
    T r;
    memcpy(&r, w, sizeof(T));
    return r;
}
template <class T> __device__ __forceinline__ T shfl_item(uint32_t mask, const T& v, int lane) {
    typedef typename ItemWords<T>::W W;
    W w[ItemWords<T>::N];
    memcpy(w, &v, sizeof(T));
#pragma unroll
    for (uint32_t i = 0; i < ItemWords<T>::N; ++i) w[i] = __shfl_sync(mask, w[i], lane);
    T r;
    memcpy(&r, w, sizeof(T));
    return r;
}

// ---- Atomics<T> operations: each returns the previous value, like Rust's fetch_* ----
template <class T> __device__ __forceinline__ T atomic_load(T* p) { return load_volatile(p); }
template <class T> __device__ __forceinline__ void atomic_store(T* p, T v) { store_volatile(p, v); }

// `atos::fence()`: sequentially consistent at GPU scope. Two threads that each store, fence and
// then read the other's location cannot both miss the other's store (release/acquire allows it).
__device__ __forceinline__ void fence_seq_cst() {
    asm volatile("fence.sc." ATOS_SCOPE ";" ::: "memory");
#if ATOS_REMOTE_CALLS
    remote::quiet();  // this thread's calls to other ranks complete before what follows
#endif
}

#if ATOS_SYSTEM_SCOPE && !ATOS_REMOTE_CALLS
// System-scope atomics on memory that is global: every ATOS_ATOMIC site acts on the program's
// state, a ring's counters or a control block, in this device's memory or a peer's (mapped
// into the global space), never on shared or local memory. Told so, the compiler emits the
// global forms (ATOMG, REDG) where a pointer it read from a table (a peer's ring, a spread
// field's part) left it a generic atomic plus, at every site, a test for a shared address and
// a compare-and-swap loop on shared memory: 61 such fallbacks in BFS's spread unit.
namespace global_sys {
#define ATOS_GLOBAL_SYS(op)                                                                   \
    template <class P, class... A>                                                         \
    __device__ __forceinline__ auto op(P* p, A... a) -> decltype(::op##_system(p, a...)) { \
        __builtin_assume(__isGlobal(p));                                                   \
        return ::op##_system(p, a...);                                                     \
    }
ATOS_GLOBAL_SYS(atomicAdd)
ATOS_GLOBAL_SYS(atomicSub)
ATOS_GLOBAL_SYS(atomicMin)
ATOS_GLOBAL_SYS(atomicMax)
ATOS_GLOBAL_SYS(atomicAnd)
ATOS_GLOBAL_SYS(atomicOr)
ATOS_GLOBAL_SYS(atomicXor)
ATOS_GLOBAL_SYS(atomicExch)
ATOS_GLOBAL_SYS(atomicCAS)
#undef ATOS_GLOBAL_SYS
}  // namespace global_sys
#endif

#define ATOS_U64(p) ((unsigned long long*)(p))
__device__ __forceinline__ uint32_t atomic_fetch_add(uint32_t* p, uint32_t v) { return ATOS_ATOMIC(atomicAdd)(p, v); }
__device__ __forceinline__ int32_t atomic_fetch_add(int32_t* p, int32_t v) { return ATOS_ATOMIC(atomicAdd)(p, v); }
__device__ __forceinline__ uint64_t atomic_fetch_add(uint64_t* p, uint64_t v) { return ATOS_ATOMIC(atomicAdd)(ATOS_U64(p), v); }
__device__ __forceinline__ int64_t atomic_fetch_add(int64_t* p, int64_t v) { return (int64_t)ATOS_ATOMIC(atomicAdd)(ATOS_U64(p), (uint64_t)v); }
__device__ __forceinline__ float atomic_fetch_add(float* p, float v) { return ATOS_ATOMIC(atomicAdd)(p, v); }
__device__ __forceinline__ double atomic_fetch_add(double* p, double v) { return ATOS_ATOMIC(atomicAdd)(p, v); }

__device__ __forceinline__ uint32_t atomic_fetch_sub(uint32_t* p, uint32_t v) { return ATOS_ATOMIC(atomicSub)(p, v); }
__device__ __forceinline__ int32_t atomic_fetch_sub(int32_t* p, int32_t v) { return ATOS_ATOMIC(atomicSub)(p, v); }
__device__ __forceinline__ uint64_t atomic_fetch_sub(uint64_t* p, uint64_t v) { return ATOS_ATOMIC(atomicAdd)(ATOS_U64(p), 0ull - v); }
__device__ __forceinline__ int64_t atomic_fetch_sub(int64_t* p, int64_t v) { return (int64_t)ATOS_ATOMIC(atomicAdd)(ATOS_U64(p), 0ull - (uint64_t)v); }
__device__ __forceinline__ float atomic_fetch_sub(float* p, float v) { return ATOS_ATOMIC(atomicAdd)(p, -v); }
__device__ __forceinline__ double atomic_fetch_sub(double* p, double v) { return ATOS_ATOMIC(atomicAdd)(p, -v); }

__device__ __forceinline__ uint32_t atomic_fetch_min(uint32_t* p, uint32_t v) { return ATOS_ATOMIC(atomicMin)(p, v); }
__device__ __forceinline__ int32_t atomic_fetch_min(int32_t* p, int32_t v) { return ATOS_ATOMIC(atomicMin)(p, v); }
__device__ __forceinline__ uint64_t atomic_fetch_min(uint64_t* p, uint64_t v) { return ATOS_ATOMIC(atomicMin)(ATOS_U64(p), v); }
__device__ __forceinline__ int64_t atomic_fetch_min(int64_t* p, int64_t v) { return ATOS_ATOMIC(atomicMin)((long long*)p, v); }
__device__ __forceinline__ uint32_t atomic_fetch_max(uint32_t* p, uint32_t v) { return ATOS_ATOMIC(atomicMax)(p, v); }
__device__ __forceinline__ int32_t atomic_fetch_max(int32_t* p, int32_t v) { return ATOS_ATOMIC(atomicMax)(p, v); }
__device__ __forceinline__ uint64_t atomic_fetch_max(uint64_t* p, uint64_t v) { return ATOS_ATOMIC(atomicMax)(ATOS_U64(p), v); }
__device__ __forceinline__ int64_t atomic_fetch_max(int64_t* p, int64_t v) { return ATOS_ATOMIC(atomicMax)((long long*)p, v); }

__device__ __forceinline__ uint32_t atomic_fetch_and(uint32_t* p, uint32_t v) { return ATOS_ATOMIC(atomicAnd)(p, v); }
__device__ __forceinline__ int32_t atomic_fetch_and(int32_t* p, int32_t v) { return ATOS_ATOMIC(atomicAnd)(p, v); }
__device__ __forceinline__ uint64_t atomic_fetch_and(uint64_t* p, uint64_t v) { return ATOS_ATOMIC(atomicAnd)(ATOS_U64(p), v); }
__device__ __forceinline__ int64_t atomic_fetch_and(int64_t* p, int64_t v) { return (int64_t)ATOS_ATOMIC(atomicAnd)(ATOS_U64(p), (uint64_t)v); }
__device__ __forceinline__ uint32_t atomic_fetch_or(uint32_t* p, uint32_t v) { return ATOS_ATOMIC(atomicOr)(p, v); }
__device__ __forceinline__ int32_t atomic_fetch_or(int32_t* p, int32_t v) { return ATOS_ATOMIC(atomicOr)(p, v); }
__device__ __forceinline__ uint64_t atomic_fetch_or(uint64_t* p, uint64_t v) { return ATOS_ATOMIC(atomicOr)(ATOS_U64(p), v); }
__device__ __forceinline__ int64_t atomic_fetch_or(int64_t* p, int64_t v) { return (int64_t)ATOS_ATOMIC(atomicOr)(ATOS_U64(p), (uint64_t)v); }
__device__ __forceinline__ uint32_t atomic_fetch_xor(uint32_t* p, uint32_t v) { return ATOS_ATOMIC(atomicXor)(p, v); }
__device__ __forceinline__ int32_t atomic_fetch_xor(int32_t* p, int32_t v) { return ATOS_ATOMIC(atomicXor)(p, v); }
__device__ __forceinline__ uint64_t atomic_fetch_xor(uint64_t* p, uint64_t v) { return ATOS_ATOMIC(atomicXor)(ATOS_U64(p), v); }
__device__ __forceinline__ int64_t atomic_fetch_xor(int64_t* p, int64_t v) { return (int64_t)ATOS_ATOMIC(atomicXor)(ATOS_U64(p), (uint64_t)v); }

__device__ __forceinline__ uint32_t atomic_swap(uint32_t* p, uint32_t v) { return ATOS_ATOMIC(atomicExch)(p, v); }
__device__ __forceinline__ int32_t atomic_swap(int32_t* p, int32_t v) { return ATOS_ATOMIC(atomicExch)(p, v); }
__device__ __forceinline__ uint64_t atomic_swap(uint64_t* p, uint64_t v) { return ATOS_ATOMIC(atomicExch)(ATOS_U64(p), v); }
__device__ __forceinline__ int64_t atomic_swap(int64_t* p, int64_t v) { return (int64_t)ATOS_ATOMIC(atomicExch)(ATOS_U64(p), (uint64_t)v); }
__device__ __forceinline__ float atomic_swap(float* p, float v) { return ATOS_ATOMIC(atomicExch)(p, v); }
__device__ __forceinline__ double atomic_swap(double* p, double v) {
    return __longlong_as_double((long long)ATOS_ATOMIC(atomicExch)(ATOS_U64(p), (unsigned long long)__double_as_longlong(v)));
}

__device__ __forceinline__ uint32_t atomic_compare_and_swap(uint32_t* p, uint32_t c, uint32_t v) { return ATOS_ATOMIC(atomicCAS)(p, c, v); }
__device__ __forceinline__ int32_t atomic_compare_and_swap(int32_t* p, int32_t c, int32_t v) { return ATOS_ATOMIC(atomicCAS)(p, c, v); }
__device__ __forceinline__ uint64_t atomic_compare_and_swap(uint64_t* p, uint64_t c, uint64_t v) { return ATOS_ATOMIC(atomicCAS)(ATOS_U64(p), c, v); }
__device__ __forceinline__ int64_t atomic_compare_and_swap(int64_t* p, int64_t c, int64_t v) {
    return (int64_t)ATOS_ATOMIC(atomicCAS)(ATOS_U64(p), (uint64_t)c, (uint64_t)v);
}
__device__ __forceinline__ float atomic_compare_and_swap(float* p, float c, float v) {
    return __uint_as_float(ATOS_ATOMIC(atomicCAS)((uint32_t*)p, __float_as_uint(c), __float_as_uint(v)));
}
__device__ __forceinline__ double atomic_compare_and_swap(double* p, double c, double v) {
    return __longlong_as_double((long long)ATOS_ATOMIC(atomicCAS)(ATOS_U64(p), (unsigned long long)__double_as_longlong(c),
                                                     (unsigned long long)__double_as_longlong(v)));
}
#undef ATOS_U64

// Float min/max (ignoring a NaN operand, as Rust's f32::min does): a compare-and-swap loop on the
// bits that stops as soon as the stored value would not change.
template <class T, class F> __device__ __forceinline__ T atomic_update_float(T* p, F f) {
    T old = load_volatile(p);
    while (true) {
        T next = f(old);
        if (bits_of(next) == bits_of(old)) return old;
        T seen = atomic_compare_and_swap(p, old, next);
        if (bits_of(seen) == bits_of(old)) return old;
        old = seen;
    }
}
__device__ __forceinline__ float atomic_fetch_min(float* p, float v) { return atomic_update_float(p, [v](float x) { return fminf(x, v); }); }
__device__ __forceinline__ double atomic_fetch_min(double* p, double v) { return atomic_update_float(p, [v](double x) { return fmin(x, v); }); }
__device__ __forceinline__ float atomic_fetch_max(float* p, float v) { return atomic_update_float(p, [v](float x) { return fmaxf(x, v); }); }
__device__ __forceinline__ double atomic_fetch_max(double* p, double v) { return atomic_update_float(p, [v](double x) { return fmax(x, v); }); }

// Elements narrower than 32 bits (bool, u8, u16): the hardware has no atomics of their width, so
// each read-modify-write is a compare-and-swap loop on the aligned 32-bit word holding the element;
// the other bytes of the word are never changed. Plain loads and stores of a byte are atomic.
template <class T, class F> __device__ __forceinline__ T atomic_update_narrow(T* p, F f) {
    unsigned long long addr = (unsigned long long)p;
    uint32_t* word = (uint32_t*)(addr & ~3ull);
    uint32_t shift = (uint32_t)(addr & 3ull) * 8u;
    uint32_t mask = (sizeof(T) == 1 ? 0xffu : 0xffffu) << shift;
    uint32_t old = load_volatile(word);
    while (true) {
        T cur = (T)((old & mask) >> shift);
        uint32_t next = (old & ~mask) | (((uint32_t)f(cur) << shift) & mask);
        if (next == old) return cur;
        uint32_t seen = ATOS_ATOMIC(atomicCAS)(word, old, next);
        if (seen == old) return cur;
        old = seen;
    }
}
#define ATOS_NARROW_ATOMICS(T)                                                                                      \
    __device__ __forceinline__ T atomic_swap(T* p, T v) { return atomic_update_narrow(p, [v](T) { return v; }); }  \
    __device__ __forceinline__ T atomic_compare_and_swap(T* p, T c, T v) {                                          \
        return atomic_update_narrow(p, [c, v](T x) { return x == c ? v : x; });                                     \
    }                                                                                                               \
    __device__ __forceinline__ T atomic_fetch_and(T* p, T v) { return atomic_update_narrow(p, [v](T x) { return (T)(x & v); }); } \
    __device__ __forceinline__ T atomic_fetch_or(T* p, T v) { return atomic_update_narrow(p, [v](T x) { return (T)(x | v); }); }  \
    __device__ __forceinline__ T atomic_fetch_xor(T* p, T v) { return atomic_update_narrow(p, [v](T x) { return (T)(x ^ v); }); }
ATOS_NARROW_ATOMICS(bool)
ATOS_NARROW_ATOMICS(uint8_t)
ATOS_NARROW_ATOMICS(uint16_t)
#undef ATOS_NARROW_ATOMICS
#define ATOS_NARROW_NUM_ATOMICS(T)                                                                                     \
    __device__ __forceinline__ T atomic_fetch_add(T* p, T v) { return atomic_update_narrow(p, [v](T x) { return (T)(x + v); }); } \
    __device__ __forceinline__ T atomic_fetch_sub(T* p, T v) { return atomic_update_narrow(p, [v](T x) { return (T)(x - v); }); } \
    __device__ __forceinline__ T atomic_fetch_min(T* p, T v) { return atomic_update_narrow(p, [v](T x) { return v < x ? v : x; }); } \
    __device__ __forceinline__ T atomic_fetch_max(T* p, T v) { return atomic_update_narrow(p, [v](T x) { return x < v ? v : x; }); }
ATOS_NARROW_NUM_ATOMICS(uint8_t)
ATOS_NARROW_NUM_ATOMICS(uint16_t)
#undef ATOS_NARROW_NUM_ATOMICS

// A read-modify-write whose previous value the statement drops (`s.rank.fetch_add(v, r);`,
// ops.rs `discarded`): a PTX `red`, which nothing waits on. ptxas turns a discarded `atomicAdd`
// into a `RED` only when no fence follows it in the kernel; every persistent kernel fences, so
// the same statement as an `atomic_fetch_*` waits for an answer nobody reads (an `ATOMG`). The
// `red` is the same relaxed atomic operation at the same scope, so results do not change.
// Types without a `red` form (narrow integers, bool, float min/max) run the fetch and drop it.
// T comes from the element pointer alone (`Exactly`), so the value converts to it as it would
// for the `atomic_fetch_*` overloads.
template <class T> struct Exactly { using type = T; };
#define ATOS_REDUCE_BY_FETCH(name) \
    template <class T> __device__ __forceinline__ void atomic_reduce_##name(T* p, typename Exactly<T>::type v) { (void)atomic_fetch_##name(p, v); }
ATOS_REDUCE_BY_FETCH(add)
ATOS_REDUCE_BY_FETCH(sub)
ATOS_REDUCE_BY_FETCH(min)
ATOS_REDUCE_BY_FETCH(max)
ATOS_REDUCE_BY_FETCH(and)
ATOS_REDUCE_BY_FETCH(or)
ATOS_REDUCE_BY_FETCH(xor)
#undef ATOS_REDUCE_BY_FETCH
#if ATOS_REMOTE_CALLS
#define ATOS_REMOTE_PE(p) remote::pe_of(p)
#else
#define ATOS_REMOTE_PE(p) -1
#endif
// `red.relaxed.<scope>.global.<op>.<ptx type> [p], v` for element type T, the operand passed as
// U with constraint C.
#define ATOS_RED(name, op, ptx, T, U, C, value)                                                    \
    template <> __device__ __forceinline__ void atomic_reduce_##name<T>(T * p, T v) {             \
        if (ATOS_REMOTE_CALLS && ATOS_REMOTE_PE(p) >= 0) {                                        \
            (void)atomic_fetch_##name(p, v);                                                       \
            return;                                                                                \
        }                                                                                          \
        asm volatile("red.relaxed." ATOS_SCOPE ".global." #op "." #ptx " [%0], %1;" ::"l"(p), C((U)(value)) : "memory"); \
    }
ATOS_RED(add, add, u32, uint32_t, uint32_t, "r", v)
ATOS_RED(add, add, u32, int32_t, uint32_t, "r", v)
ATOS_RED(add, add, u64, uint64_t, unsigned long long, "l", v)
ATOS_RED(add, add, u64, int64_t, unsigned long long, "l", v)
ATOS_RED(add, add, f32, float, float, "f", v)
ATOS_RED(add, add, f64, double, double, "d", v)
// Subtraction adds the two's complement negation (wrapping, as `fetch_sub` wraps), or -v.
ATOS_RED(sub, add, u32, uint32_t, uint32_t, "r", 0u - (uint32_t)v)
ATOS_RED(sub, add, u32, int32_t, uint32_t, "r", 0u - (uint32_t)v)
ATOS_RED(sub, add, u64, uint64_t, unsigned long long, "l", 0ull - (unsigned long long)v)
ATOS_RED(sub, add, u64, int64_t, unsigned long long, "l", 0ull - (unsigned long long)v)
ATOS_RED(sub, add, f32, float, float, "f", -v)
ATOS_RED(sub, add, f64, double, double, "d", -v)
ATOS_RED(min, min, u32, uint32_t, uint32_t, "r", v)
ATOS_RED(min, min, s32, int32_t, int32_t, "r", v)
ATOS_RED(min, min, u64, uint64_t, unsigned long long, "l", v)
ATOS_RED(min, min, s64, int64_t, long long, "l", v)
ATOS_RED(max, max, u32, uint32_t, uint32_t, "r", v)
ATOS_RED(max, max, s32, int32_t, int32_t, "r", v)
ATOS_RED(max, max, u64, uint64_t, unsigned long long, "l", v)
ATOS_RED(max, max, s64, int64_t, long long, "l", v)
ATOS_RED(and, and, b32, uint32_t, uint32_t, "r", v)
ATOS_RED(and, and, b32, int32_t, uint32_t, "r", v)
ATOS_RED(and, and, b64, uint64_t, unsigned long long, "l", v)
ATOS_RED(and, and, b64, int64_t, unsigned long long, "l", v)
ATOS_RED(or, or, b32, uint32_t, uint32_t, "r", v)
ATOS_RED(or, or, b32, int32_t, uint32_t, "r", v)
ATOS_RED(or, or, b64, uint64_t, unsigned long long, "l", v)
ATOS_RED(or, or, b64, int64_t, unsigned long long, "l", v)
ATOS_RED(xor, xor, b32, uint32_t, uint32_t, "r", v)
ATOS_RED(xor, xor, b32, int32_t, uint32_t, "r", v)
ATOS_RED(xor, xor, b64, uint64_t, unsigned long long, "l", v)
ATOS_RED(xor, xor, b64, int64_t, unsigned long long, "l", v)
#undef ATOS_RED
#undef ATOS_REMOTE_PE

// `lower` and `raise` (ops.rs): `fetch_min(i, v) > v` and `fetch_max(i, v) < v`, asked only
// whether the element moved, so a load that shows it cannot move answers without the atomic.
// `<=` and `>=` are false for a NaN on either side: the atomic decides those, as fetch_min's
// NaN rules say. A spread program's fields take the `Spread` versions (mesh.cuh).
template <class T> __device__ __forceinline__ bool atomic_lower(T* a, unsigned long long i, T v) {
    if (load_volatile(a + i) <= v) return false;
    return atomic_fetch_min(a + i, v) > v;
}
template <class T> __device__ __forceinline__ bool atomic_raise(T* a, unsigned long long i, T v) {
    if (load_volatile(a + i) >= v) return false;
    return atomic_fetch_max(a + i, v) < v;
}

// `accumulate` (ops.rs) on one GPU: a discarded add. A spread program's fields take the
// `Spread` version (mesh.cuh), which combines adds to other devices' elements.
template <class T> __device__ __forceinline__ void atomic_accumulate(T* a, unsigned long long i, typename Exactly<T>::type v) {
    atomic_reduce_add(a + i, v);
}

// The lanes of this warp that are converged here and pass the same `key`: the membership of an
// opportunistic warp aggregation (one reservation, one atomic, one reduction for them all). The
// only place `__activemask()` may be read. A mask read from `__activemask()` alone is wrong as a
// sync mask for work that runs after a branch: ptxas treats it as uniform over the lanes that
// meet again at a later reconvergence point, where lanes of different convergence groups may be
// merged; it then takes one lane's mask for the whole group's warp-sync check (seen in the
// SASS: `R2UR` of the mask, no `MATCH`). Measured on an H100: thread workers pushing from a
// windowed launch lost or left unwritten items that way (float SSSP, 10 of 10 runs wrong on
// grid:1024x1024; docs/results/2026-11-23-activemask-h100.md). `__match_any_sync` makes each
// lane's membership a synchronized per-lane result, which ptxas cannot assume uniform.
__device__ __forceinline__ uint32_t converged_lanes(unsigned long long key) {
    return __match_any_sync(__activemask(), key);
}

__device__ __forceinline__ uint32_t lanemask_lt() {
    uint32_t m;
    asm volatile("mov.u32 %0, %%lanemask_lt;" : "=r"(m));
    return m;
}

}  // namespace atos
