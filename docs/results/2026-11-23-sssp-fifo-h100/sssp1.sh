#!/usr/bin/env bash
# Issue 12, first slice: FIFO SSSP (atos::apps::sssp, u32 weights) asynchronous vs Bellman-Ford
# by levels (bsp), every run checked against Dijkstra: the baseline priority scheduling must beat.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt"
t0=$(date +%s)
stamp() { echo "$1 done after $(( $(date +%s) - t0 )) s" >> "$out/times.txt"; }
export ATOS_CACHE_DIR=/tmp/atos-kernels
G="--graph grid:4096x4096,w=100 --graph kron:22,w=1000 --graph geo:1000000,w=1000"
timeout 300 ./atos bench --app sssp $G --strategy persistent,discrete --worker warp,cta --fetch 8,64,256 \
  --runs 3 --timeout 30 --out "$out/sssp.jsonl" > "$out/sssp-async.log" 2>&1; echo "rc=$?" >> "$out/sssp-async.log"; stamp async
timeout 260 ./atos bench --app sssp $G --strategy bsp --worker cta --fetch 8,64 \
  --runs 2 --timeout 40 --out "$out/sssp.jsonl" > "$out/sssp-bsp.log" 2>&1; echo "rc=$?" >> "$out/sssp-bsp.log"; stamp bsp
cat "$out/times.txt" "$out"/sssp-*.log
