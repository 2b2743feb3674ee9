// Issue 11: the floor of PageRank's per-edge atomic traffic on this GPU.
// Reads an .acsr graph; times with CUDA events (median of 7 after 2 warm-ups):
//   stream  : read every column index once (sum them), the coalesced-read floor
//   sweep   : one push sweep, edge-parallel: residue[cols[e]] += x (result unused -> RED)
//   sweep_a : the same with the result used (ATOM), as a push with a crossing test does
//   uniform : as sweep, destinations uniform random over n (no hubs)
//   vertex  : one sweep vertex-parallel, a warp per vertex (lanes stride its edges)
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e), __LINE__); exit(1);} } while (0)
__global__ void stream(const uint32_t* c, size_t m, unsigned long long* out) {
  unsigned long long s = 0;
  for (size_t e = blockIdx.x * (size_t)blockDim.x + threadIdx.x; e < m; e += (size_t)gridDim.x * blockDim.x) s += c[e];
  if (s == 42) atomicAdd(out, s);
}
__global__ void sweep(const uint32_t* c, size_t m, float* r) {
  for (size_t e = blockIdx.x * (size_t)blockDim.x + threadIdx.x; e < m; e += (size_t)gridDim.x * blockDim.x) atomicAdd(&r[c[e]], 1e-9f);
}
__global__ void sweep_a(const uint32_t* c, size_t m, float* r, unsigned* hits) {
  unsigned h = 0;
  for (size_t e = blockIdx.x * (size_t)blockDim.x + threadIdx.x; e < m; e += (size_t)gridDim.x * blockDim.x) h += atomicAdd(&r[c[e]], 1e-9f) > 0.5f;
  if (h) atomicAdd(hits, h);
}
__global__ void vertex(const uint64_t* off, size_t n, const uint32_t* c, float* r) {
  size_t warp = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  for (size_t v = warp; v < n; v += (size_t)gridDim.x * blockDim.x / 32)
    for (uint64_t e = off[v] + lane; e < off[v + 1]; e += 32) atomicAdd(&r[c[e]], 1e-9f);
}
int main(int argc, char** argv) {
  FILE* f = fopen(argv[1], "rb"); if (!f) { printf("cannot open %s\n", argv[1]); return 1; }
  char hdr[32]; if (fread(hdr, 1, 32, f) != 32) return 1;
  uint64_t n = *(uint64_t*)(hdr + 16), m = *(uint64_t*)(hdr + 24);
  std::vector<uint64_t> off(n + 1); std::vector<uint32_t> cols(m), uni(m);
  if (fread(off.data(), 8, n + 1, f) != n + 1 || fread(cols.data(), 4, m, f) != m) { printf("short read\n"); return 1; }
  uint64_t s = 88172645463325252ull;
  for (auto& u : uni) { s ^= s << 13; s ^= s >> 7; s ^= s << 17; u = (uint32_t)(s % n); }
  uint64_t* doff; uint32_t *dc, *du; float* dr; unsigned long long* dsum; unsigned* dh;
  CK(cudaMalloc(&doff, 8 * (n + 1))); CK(cudaMalloc(&dc, 4 * m)); CK(cudaMalloc(&du, 4 * m));
  CK(cudaMalloc(&dr, 4 * n)); CK(cudaMalloc(&dsum, 8)); CK(cudaMalloc(&dh, 4));
  CK(cudaMemcpy(doff, off.data(), 8 * (n + 1), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dc, cols.data(), 4 * m, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(du, uni.data(), 4 * m, cudaMemcpyHostToDevice));
  CK(cudaMemset(dr, 0, 4 * n));
  int sms; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  int grid = sms * 8, block = 256;
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  auto time = [&](const char* name, auto launch) {
    std::vector<float> t;
    for (int i = 0; i < 9; i++) { cudaEventRecord(a); launch(); cudaEventRecord(b); CK(cudaEventSynchronize(b)); float ms; cudaEventElapsedTime(&ms, a, b); if (i >= 2) t.push_back(ms); }
    std::sort(t.begin(), t.end()); float med = t[t.size() / 2];
    printf("%-8s median %8.3f ms  %7.2f G edges/s  (min %.3f max %.3f)\n", name, med, m / med / 1e6, t.front(), t.back());
  };
  printf("graph %s: n %llu, m %llu, grid %d x %d\n", argv[1], (unsigned long long)n, (unsigned long long)m, grid, block);
  time("stream", [&] { stream<<<grid, block>>>(dc, m, dsum); });
  time("sweep", [&] { sweep<<<grid, block>>>(dc, m, dr); });
  time("sweep_a", [&] { sweep_a<<<grid, block>>>(dc, m, dr, dh); });
  time("uniform", [&] { sweep<<<grid, block>>>(du, m, dr); });
  time("vertex", [&] { vertex<<<grid, block>>>(doff, n, dc, dr); });
  CK(cudaDeviceSynchronize());
  return 0;
}
