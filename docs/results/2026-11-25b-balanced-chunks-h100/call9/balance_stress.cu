#include <cstdio>
#include <cstdlib>
#include <cstdint>
namespace atos {
typedef unsigned long long u64;
struct WarpWorker { __device__ uint32_t size() const { return 32; } __device__ uint32_t rank() const { return threadIdx.x & 31u; } __device__ void lanes_end() const { __syncwarp(); } };
struct CtaWorker { __device__ uint32_t size() const { return blockDim.x; } __device__ uint32_t rank() const { return threadIdx.x; } __device__ void lanes_end() const { __syncthreads(); } };
#include "snip.cuh"
}
struct Fr { unsigned id; unsigned lo; };
#define ML 8
template <class W> __global__ void k(const unsigned* lens, const unsigned* counts, unsigned* cover, int T) {
  __shared__ atos::BalanceSlots<Fr, 256> s;
  W w;
  const bool cta = w.size() == blockDim.x;
  for (int t = 0; t < T; ++t) {
    int trial = blockIdx.x * T + t;
    unsigned sub = cta ? 0 : threadIdx.x / 32;
    unsigned count = counts[trial * 8 + sub];
    unsigned basei = trial * 512 + sub * 64;
    for (uint32_t kk = 0; kk * w.size() < count; ++kk) {
      const uint32_t n = min(w.size(), count - kk * w.size());
      Fr f{}; atos::u64 len = 0;
      if (w.rank() < n) { f.id = basei + kk * w.size() + w.rank(); f.lo = 0; len = lens[f.id]; }
      const atos::u64 total = atos::balance_scan(w, s, f, len, n);
      for (atos::u64 j = w.rank(); j < total; j += w.size()) {
        atos::u64 at; const Fr& g = atos::balance_find(w, s, j, at, n);
        atomicAdd(&cover[g.id * ML + (j - at)], 1u);
      }
      w.lanes_end();
    }
    __syncthreads();
  }
}
int main() {
  const int B = 64, T = 32, NT = B * T, NI = NT * 512;
  unsigned *lens, *counts, *cover;
  cudaMallocManaged(&lens, NI * 4); cudaMallocManaged(&counts, NT * 8 * 4); cudaMallocManaged(&cover, (size_t)NI * ML * 4);
  srand(1); int bad = 0;
  for (int mode = 0; mode < 2; ++mode) {
    for (int i = 0; i < NI; ++i) { int r = rand() % 4; lens[i] = r == 0 ? 0 : r == 1 ? 1 : rand() % ML; }
    for (int i = 0; i < NT * 8; ++i) { int r = rand() % 4; unsigned mx = mode ? 512 : 64; counts[i] = r == 0 ? 1 + rand() % 32 : r == 1 ? 1 + rand() % 3 : 1 + rand() % mx; }
    cudaMemset(cover, 0, (size_t)NI * ML * 4);
    if (mode) k<atos::CtaWorker><<<B, 256>>>(lens, counts, cover, T); else k<atos::WarpWorker><<<B, 256>>>(lens, counts, cover, T);
    printf("err %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
    for (int tr = 0; tr < NT; ++tr) for (int i = 0; i < 512; ++i) {
      unsigned id = tr * 512 + i; bool in = mode ? i < counts[tr * 8] : (i % 64) < counts[tr * 8 + i / 64];
      for (int o = 0; o < ML; ++o) { unsigned want = in && o < lens[id]; if (cover[id * ML + o] != want) { if (bad++ < 5) printf("mode %d id %u o %d got %u want %u\n", mode, id, o, cover[id*ML+o], want); } }
    }
    printf("mode %d bad %d\n", mode, bad);
  }
}
