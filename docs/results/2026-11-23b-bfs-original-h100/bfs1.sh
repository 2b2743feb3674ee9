#!/usr/bin/env bash
# Session 3, call 7: BFS against the original Atos on the same graph files, in one bench run,
# at the current build (first re-measurement since commit 409a600).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt"
t0=$(date +%s); stamp() { echo "$1 done after $(( $(date +%s) - t0 )) s" >> "$out/times.txt"; }
bash atos-original.sh build orig > "$out/original-build.log" 2>&1; stamp original-build
./atos graph convert kron:22 /tmp/kron.acsr >/dev/null 2>&1
./atos graph convert grid:4096x4096 /tmp/grid.acsr >/dev/null 2>&1; stamp graphs
timeout $(( 350 - ($(date +%s) - t0) )) ./atos bench --app bfs --graph /tmp/grid.acsr --graph /tmp/kron.acsr --graph data/luxembourg_osm.edges \
  --strategy persistent,discrete --worker warp,cta --fetch 64,256 --runs 5 --timeout 20 \
  --compare-original orig --original-runs 3 --out "$out/bfs.jsonl" > "$out/bench.log" 2>&1
echo "rc=$?" >> "$out/bench.log"; stamp bench
cat "$out/times.txt"; grep -v "^original .*:" "$out/bench.log" | tail -40
