// Hop-latency probe (written 2026-12-07): what one dependent step of a queue hop costs on the
// GPU, so a hop's time (docs/results/2026-12-07b: about 9 us per BFS level on thread workers,
// 2 us on CTA workers that keep their pushes) can be set against the number of dependent
// atomics, fences and hand-offs on its path (queue.cuh: a push reserves, counts its range twice,
// raises `end` and credits `avail`; a claim takes credit and moves `start`; the copy-out is
// counted twice on read_*).
//
// Measured, one thread timing a chain of N dependent operations on one 128-byte counter line
// (each operation's operand depends on the one before, so none overlap):
//   relaxed atomicAdd, acq_rel atomicAdd, release atomicMax, relaxed load, fence.acq_rel + load;
// each with P polling warps (other blocks spinning relaxed loads on the same line, or on another
// line) for P in 0, 512, 2048;
// and the hand-off between two blocks: ping-pong of a release store seen by a relaxed poll and an
// acquire fence (half a round trip).
//
// Build and run on the device machine (CUDA 13, sm_90):
//   nvcc -O3 -arch=sm_90 -o /tmp/hop scripts/probes/hop-latency.cu && /tmp/hop
// It prints one line per measurement: the median over 5 repetitions of ns per operation.
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <vector>
#include <cuda_runtime.h>

typedef unsigned long long u64;

__device__ __forceinline__ u64 now_ns() {
    u64 t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

enum Op { ADD_RELAXED = 0, ADD_ACQ_REL = 1, MAX_RELEASE = 2, LOAD_RELAXED = 3, FENCE_LOAD = 4, OPS = 5 };
static const char* OP_NAME[OPS] = {"atom.relaxed.add", "atom.acq_rel.add", "atom.release.max", "ld.relaxed", "fence.acq_rel+ld"};

__device__ __forceinline__ u64 step(int op, u64* p, u64 dep) {
    u64 v = 0, x = 1 + (dep >> 62);  // dep >> 62 is 0 in practice, but the compiler cannot know
    u64* q = p + (dep >> 62);
    switch (op) {
        case ADD_RELAXED: asm volatile("atom.relaxed.gpu.global.add.u64 %0, [%1], %2;" : "=l"(v) : "l"(q), "l"(x) : "memory"); break;
        case ADD_ACQ_REL: asm volatile("atom.acq_rel.gpu.global.add.u64 %0, [%1], %2;" : "=l"(v) : "l"(q), "l"(x) : "memory"); break;
        case MAX_RELEASE: asm volatile("atom.release.gpu.global.max.u64 %0, [%1], %2;" : "=l"(v) : "l"(q), "l"(dep + 1) : "memory"); break;
        case LOAD_RELAXED: asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(q) : "memory"); break;
        case FENCE_LOAD: asm volatile("fence.acq_rel.gpu; ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(q) : "memory"); break;
    }
    return v;
}

// Block 0 thread 0 times the chain; blocks 1.. (8 warps each) poll `poll_at` until `stop`.
__global__ void chain(int op, int n, u64* line, u64* poll_at, u64* stop, u64* result) {
    if (blockIdx.x == 0) {
        if (threadIdx.x != 0) return;
        u64 dep = step(op, line, 0);
        const u64 t0 = now_ns();
        for (int i = 0; i < n; ++i) dep = step(op, line, dep);
        const u64 t1 = now_ns();
        result[0] = t1 - t0;
        result[1] = dep;
        asm volatile("st.release.gpu.global.u64 [%0], %1;" ::"l"(stop), "l"(1ull) : "memory");
        return;
    }
    u64 s = 0, v = 0;
    while (s == 0) {
        asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(poll_at) : "memory");
        asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(s) : "l"(stop) : "memory");
        if (v == ~0ull) break;
    }
}

// Ping-pong: block 0 releases `a` = i and waits for `b` = i; block 1 waits for `a` = i (relaxed
// polls, then an acquire fence) and releases `b` = i.
__global__ void pingpong(int n, u64* a, u64* b, u64* result) {
    if (threadIdx.x != 0) return;
    u64* mine = blockIdx.x == 0 ? a : b;
    u64* theirs = blockIdx.x == 0 ? b : a;
    u64 t0 = 0;
    for (int i = 1; i <= n; ++i) {
        if (i == 2 && blockIdx.x == 0) t0 = now_ns();
        if (blockIdx.x == 0) asm volatile("st.release.gpu.global.u64 [%0], %1;" ::"l"(mine), "l"((u64)i) : "memory");
        u64 v = 0;
        do {
            asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(theirs) : "memory");
        } while (v < (u64)i);
        asm volatile("fence.acq_rel.gpu;" ::: "memory");
        if (blockIdx.x == 1) asm volatile("st.release.gpu.global.u64 [%0], %1;" ::"l"(mine), "l"((u64)i) : "memory");
    }
    if (blockIdx.x == 0) result[0] = now_ns() - t0;
}

#define CK(x)                                                                          \
    do {                                                                               \
        cudaError_t e_ = (x);                                                          \
        if (e_ != cudaSuccess) {                                                       \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            exit(1);                                                                   \
        }                                                                              \
    } while (0)

int main() {
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("device %s, %d SMs\n", prop.name, prop.multiProcessorCount);
    u64 *mem, *result;
    CK(cudaMalloc(&mem, 4096));
    CK(cudaMalloc(&result, 64));
    u64* line = mem;              // the timed counter
    u64* other = mem + 16;        // another line (128 bytes on)
    u64* stop = mem + 32;
    const int n = 4096, reps = 5;
    const int pollers[] = {0, 512, 2048};
    for (int op = 0; op < OPS; ++op) {
        for (int p : pollers) {
            for (int same = 1; same >= (p == 0 ? 1 : 0); --same) {
                std::vector<double> ns;
                for (int r = 0; r < reps + 1; ++r) {
                    CK(cudaMemset(mem, 0, 4096));
                    const int blocks = 1 + p / 8;
                    chain<<<blocks, 256>>>(op, n, line, same ? line : other, stop, result);
                    CK(cudaGetLastError());
                    CK(cudaDeviceSynchronize());
                    u64 h[2];
                    CK(cudaMemcpy(h, result, 16, cudaMemcpyDeviceToHost));
                    if (r > 0) ns.push_back((double)h[0] / n);
                }
                std::sort(ns.begin(), ns.end());
                printf("chain %-18s pollers %5d on %-5s  %7.1f ns/op (min %.1f max %.1f)\n", OP_NAME[op], p,
                       p == 0 ? "-" : (same ? "same" : "other"), ns[ns.size() / 2], ns.front(), ns.back());
            }
        }
    }
    {
        std::vector<double> ns;
        for (int r = 0; r < reps + 1; ++r) {
            CK(cudaMemset(mem, 0, 4096));
            pingpong<<<2, 32>>>(n, line, other, result);
            CK(cudaGetLastError());
            CK(cudaDeviceSynchronize());
            u64 h;
            CK(cudaMemcpy(&h, result, 8, cudaMemcpyDeviceToHost));
            if (r > 0) ns.push_back((double)h / (n - 1) / 2);
        }
        std::sort(ns.begin(), ns.end());
        printf("hand-off (release store -> relaxed poll + acquire fence), one way: %.1f ns (min %.1f max %.1f)\n",
               ns[ns.size() / 2], ns.front(), ns.back());
    }
    return 0;
}
