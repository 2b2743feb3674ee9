// Remote operations as NVSHMEM calls (ATOS_REMOTE_CALLS 1; included by prelude.cuh).
//
// A spread unit reaches its peers' memory through addresses in its tables (rings, counters,
// `Atomics` parts, the control block). Over peer mappings those are plain addresses. Where a
// peer's memory cannot be mapped (another node), the host writes instead the symmetric address
// with the owning rank + 1 in the top byte (bits ATOS_REMOTE_ADDRESS_BITS.. = 56.., set by the
// host, which checks the addresses fit below them), and every memory primitive of prelude.cuh and queue.cuh asks `pe_of`: below 0, memory
// no other rank touches (this device's arena), accessed as before; otherwise an NVSHMEM call on
// that rank. This rank's own symmetric memory (its rings, counters and parts) is tagged too:
// over a network NVSHMEM's atomics are the NIC's, which are not atomic with the GPU's own, so
// every access to a word other ranks also reach goes through NVSHMEM, this rank's included.
// Offsets into a field or a counter block keep the tag, since they only change the low bits.
//
// Orderings: every call made here returns a value (loads and read-modify-writes fetch, stores
// are swaps), so each access is complete when it returns, and program order and barriers order
// them as they order plain accesses. The fences of queue.cuh and `atos::fence()` also call
// nvshmem_quiet in this mode.
#pragma once

#include <non_abi/nvshmem_build_options.h>
#include <device/nvshmem_defines.h>
#include <device/nvshmemx_defines.h>

namespace atos {
namespace remote {

#ifndef ATOS_REMOTE_ADDRESS_BITS
#error "ATOS_REMOTE_ADDRESS_BITS comes from the host (gpu/nvshmem.rs, remote_calls_source)"
#endif
constexpr unsigned long long ADDRESS_BITS = ATOS_REMOTE_ADDRESS_BITS;
constexpr unsigned long long ADDRESS_MASK = (1ull << ADDRESS_BITS) - 1;

// The rank that holds *p, or -1 for this rank's own memory.
__device__ __forceinline__ int pe_of(const volatile void* p) {
    return (int)((unsigned long long)p >> ADDRESS_BITS) - 1;
}
// The symmetric address of a tagged one.
template <class T> __device__ __forceinline__ T* address(T* p) {
    return reinterpret_cast<T*>((unsigned long long)p & ADDRESS_MASK);
}

template <class To, class From> __device__ __forceinline__ To bit_cast(From v) {
    static_assert(sizeof(To) == sizeof(From), "same width");
    To r;
    memcpy(&r, &v, sizeof(To));
    return r;
}

// NVSHMEM's typed atomic calls for the two word widths, and its quiet. Each is a function of
// its own, called, not inlined: NVSHMEM's calls are inline code (a peer-mapped path and a
// proxy path each), and inlined at each of the unit's 2,000-odd counter and element accesses
// they made the BFS spread unit (CTA, fetch 64) a 2.7 MB CUBIN whose device link took 55 s
// on one core (3-4 s as a peer-to-peer unit). Called: 1.7 MB and 24 s. A call costs little
// next to the access it makes (over a link or a network).
#define ATOS_NVSHMEM_WORD(U, N)                                                                                         \
    __device__ __noinline__ U nv_fetch(U* p, int pe) { return nvshmem_##N##_atomic_fetch(p, pe); }                    \
    __device__ __noinline__ void nv_set(U* p, U v, int pe) { nvshmem_##N##_atomic_set(p, v, pe); }                    \
    __device__ __noinline__ U nv_swap(U* p, U v, int pe) { return nvshmem_##N##_atomic_swap(p, v, pe); }              \
    __device__ __noinline__ U nv_cas(U* p, U c, U v, int pe) { return nvshmem_##N##_atomic_compare_swap(p, c, v, pe); } \
    __device__ __noinline__ U nv_add(U* p, U v, int pe) { return nvshmem_##N##_atomic_fetch_add(p, v, pe); }          \
    __device__ __noinline__ U nv_and(U* p, U v, int pe) { return nvshmem_##N##_atomic_fetch_and(p, v, pe); }          \
    __device__ __noinline__ U nv_or(U* p, U v, int pe) { return nvshmem_##N##_atomic_fetch_or(p, v, pe); }            \
    __device__ __noinline__ U nv_xor(U* p, U v, int pe) { return nvshmem_##N##_atomic_fetch_xor(p, v, pe); }
ATOS_NVSHMEM_WORD(unsigned int, uint)
ATOS_NVSHMEM_WORD(unsigned long long, ulonglong)
#undef ATOS_NVSHMEM_WORD
__device__ __noinline__ void quiet() { nvshmem_quiet(); }

// The unsigned word of T's width (4 or 8 bytes).
template <unsigned long long N> struct WordOf;
template <> struct WordOf<4> { typedef unsigned int type; };
template <> struct WordOf<8> { typedef unsigned long long type; };
template <unsigned long long N> struct Narrow;
template <> struct Narrow<1> { typedef unsigned char type; };
template <> struct Narrow<2> { typedef unsigned short type; };

// An element narrower than a word (bool, u8, u16): its aligned 32-bit word and its place in it.
template <class T> struct InWord {
    unsigned int* word;
    unsigned int shift, mask;
    __device__ explicit InWord(T* a) {
        const unsigned long long at = (unsigned long long)a;
        word = reinterpret_cast<unsigned int*>(at & ~3ull);
        shift = (unsigned int)(at & 3ull) * 8u;
        mask = (sizeof(T) == 1 ? 0xffu : 0xffffu) << shift;
    }
    __device__ T of(unsigned int w) const { return bit_cast<T>((typename Narrow<sizeof(T)>::type)((w & mask) >> shift)); }
    __device__ unsigned int with(unsigned int w, T v) const {
        return (w & ~mask) | (((unsigned int)bit_cast<typename Narrow<sizeof(T)>::type>(v) << shift) & mask);
    }
};

// A load and a store of any scalar on rank `pe`, each an atomic NVSHMEM call that returns its
// result, so the access is complete when it returns (a store is a swap, not a put that a later
// quiet would complete: the stores a group makes before a barrier are then done before the
// leader's publication after it). Narrow elements go through their word (a compare-and-swap
// loop for a store), so no other byte of it changes.
template <class T> __device__ __forceinline__ T get(const T* p, int pe) {
    T* a = address(const_cast<T*>(p));
    if constexpr (sizeof(T) < 4) {
        const InWord<T> w(a);
        return w.of(nv_fetch(w.word, pe));
    } else {
        return bit_cast<T>(nv_fetch(reinterpret_cast<typename WordOf<sizeof(T)>::type*>(a), pe));
    }
}
template <class T> __device__ __forceinline__ void put(T* p, T v, int pe) {
    T* a = address(p);
    if constexpr (sizeof(T) < 4) {
        const InWord<T> w(a);
        unsigned int old = nv_fetch(w.word, pe);
        while (true) {
            const unsigned int next = w.with(old, v);
            if (next == old) return;
            const unsigned int seen = nv_cas(w.word, old, next, pe);
            if (seen == old) return;
            old = seen;
        }
    } else {
        typedef typename WordOf<sizeof(T)>::type W;
        (void)nv_swap(reinterpret_cast<W*>(a), bit_cast<W>(v), pe);
    }
}

// A read-modify-write by compare-and-swap on the element's word: f(old) until it sticks (or
// leaves the value as it was); returns the previous value.
template <class T, class F> __device__ __forceinline__ T update(T* p, int pe, F f) {
    typedef typename WordOf<sizeof(T)>::type W;
    W* a = reinterpret_cast<W*>(address(p));
    W old = nv_fetch(a, pe);
    while (true) {
        const T cur = bit_cast<T>(old);
        const W next = bit_cast<W>(f(cur));
        if (next == old) return cur;
        const W seen = nv_cas(a, old, next, pe);
        if (seen == old) return cur;
        old = seen;
    }
}

// The CUDA atomics atos's device code uses (ATOS_ATOMIC(op) names them here in this mode), for
// the element types it uses them with: the system-scope intrinsic on this rank's memory, an
// NVSHMEM call (native where NVSHMEM has the operation, a compare-and-swap loop where it has
// not) on another rank's.
#define ATOS_REMOTE_WORD_OP(op, T, W, call)                                                    \
    __device__ __forceinline__ T op(T* p, T v) {                                              \
        const int pe = pe_of(p);                                                              \
        if (pe < 0) return op##_system(p, v);                                                 \
        return bit_cast<T>(call(reinterpret_cast<W*>(address(p)), bit_cast<W>(v), pe));       \
    }
#define ATOS_REMOTE_UPDATE_OP(op, T, expr)                                                     \
    __device__ __forceinline__ T op(T* p, T v) {                                              \
        const int pe = pe_of(p);                                                              \
        if (pe < 0) return op##_system(p, v);                                                 \
        return update(p, pe, [v](T x) -> T { return expr; });                                 \
    }
ATOS_REMOTE_WORD_OP(atomicAdd, unsigned int, unsigned int, nv_add)
ATOS_REMOTE_WORD_OP(atomicAdd, int, unsigned int, nv_add)
ATOS_REMOTE_WORD_OP(atomicAdd, unsigned long long, unsigned long long, nv_add)
ATOS_REMOTE_UPDATE_OP(atomicAdd, float, x + v)
ATOS_REMOTE_UPDATE_OP(atomicAdd, double, x + v)
ATOS_REMOTE_UPDATE_OP(atomicSub, unsigned int, x - v)
ATOS_REMOTE_UPDATE_OP(atomicSub, int, (int)((unsigned int)x - (unsigned int)v))
ATOS_REMOTE_UPDATE_OP(atomicMin, unsigned int, v < x ? v : x)
ATOS_REMOTE_UPDATE_OP(atomicMin, int, v < x ? v : x)
ATOS_REMOTE_UPDATE_OP(atomicMin, unsigned long long, v < x ? v : x)
ATOS_REMOTE_UPDATE_OP(atomicMin, long long, v < x ? v : x)
ATOS_REMOTE_UPDATE_OP(atomicMax, unsigned int, x < v ? v : x)
ATOS_REMOTE_UPDATE_OP(atomicMax, int, x < v ? v : x)
ATOS_REMOTE_UPDATE_OP(atomicMax, unsigned long long, x < v ? v : x)
ATOS_REMOTE_UPDATE_OP(atomicMax, long long, x < v ? v : x)
ATOS_REMOTE_WORD_OP(atomicAnd, unsigned int, unsigned int, nv_and)
ATOS_REMOTE_WORD_OP(atomicAnd, int, unsigned int, nv_and)
ATOS_REMOTE_WORD_OP(atomicAnd, unsigned long long, unsigned long long, nv_and)
ATOS_REMOTE_WORD_OP(atomicOr, unsigned int, unsigned int, nv_or)
ATOS_REMOTE_WORD_OP(atomicOr, int, unsigned int, nv_or)
ATOS_REMOTE_WORD_OP(atomicOr, unsigned long long, unsigned long long, nv_or)
ATOS_REMOTE_WORD_OP(atomicXor, unsigned int, unsigned int, nv_xor)
ATOS_REMOTE_WORD_OP(atomicXor, int, unsigned int, nv_xor)
ATOS_REMOTE_WORD_OP(atomicXor, unsigned long long, unsigned long long, nv_xor)
ATOS_REMOTE_WORD_OP(atomicExch, unsigned int, unsigned int, nv_swap)
ATOS_REMOTE_WORD_OP(atomicExch, int, unsigned int, nv_swap)
ATOS_REMOTE_WORD_OP(atomicExch, unsigned long long, unsigned long long, nv_swap)
ATOS_REMOTE_WORD_OP(atomicExch, float, unsigned int, nv_swap)
#undef ATOS_REMOTE_WORD_OP
#undef ATOS_REMOTE_UPDATE_OP

#define ATOS_REMOTE_CAS(T, W)                                                                          \
    __device__ __forceinline__ T atomicCAS(T* p, T c, T v) {                                          \
        const int pe = pe_of(p);                                                                      \
        if (pe < 0) return atomicCAS_system(p, c, v);                                                 \
        return bit_cast<T>(nv_cas(reinterpret_cast<W*>(address(p)), bit_cast<W>(c), bit_cast<W>(v), pe)); \
    }
ATOS_REMOTE_CAS(unsigned int, unsigned int)
ATOS_REMOTE_CAS(int, unsigned int)
ATOS_REMOTE_CAS(unsigned long long, unsigned long long)
#undef ATOS_REMOTE_CAS

}  // namespace remote
}  // namespace atos
