#!/usr/bin/env bash
# Issue 12, call 3: priority BFS (depth keys) beside speculative BFS, and SSSP at the new
# default delta (64 bands) and 256 bands on the meshes beside FIFO; every run verified.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt"
t0=$(date +%s)
stamp() { echo "$1 done after $(( $(date +%s) - t0 )) s" >> "$out/times.txt"; }
export ATOS_CACHE_DIR=/tmp/atos-kernels
timeout 60 ./atos bench --app bfs-priority --graph grid:256x256 --graph kron:16 --graph data/luxembourg_osm.edges \
  --strategy persistent,discrete,bsp --worker thread,warp,cta --fetch 8,64 --runs 1 --warmup 0 --timeout 20 --quiet \
  --out "$out/check.jsonl" >> "$out/check.log" 2>&1; echo "check rc=$?" >> "$out/check.log"; stamp check
B="--graph grid:4096x4096 --graph kron:22 --graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges"
timeout 90 ./atos bench --app bfs $B --strategy persistent,bsp --worker warp,cta --fetch 8,64 --runs 3 --timeout 20 --quiet \
  --out "$out/bfs.jsonl" >> "$out/bfs.log" 2>&1; echo "bfs rc=$?" >> "$out/bfs.log"; stamp bfs
for d in 1 4; do
  timeout 90 ./atos bench --app bfs-priority $B --delta $d --strategy persistent,bsp --worker warp,cta --fetch 8,64 --runs 3 --timeout 20 --quiet \
    --out "$out/bfs.jsonl" >> "$out/bfs.log" 2>&1; echo "bfs-priority delta $d rc=$?" >> "$out/bfs.log"; stamp "bfs-prio $d"
done
M="--graph grid:4096x4096,w=100 --graph kron:22,w=1000 --graph geo:1000000,w=1000 --graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges --weights 1000"
timeout 90 ./atos bench --app sssp-priority $M --strategy persistent --worker warp,cta --fetch 8,64 --runs 3 --timeout 20 --quiet \
  --out "$out/sssp.jsonl" >> "$out/sssp.log" 2>&1; echo "sssp-priority default rc=$?" >> "$out/sssp.log"; stamp sssp-default
timeout 40 ./atos bench --app sssp-priority --graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges --weights 1000 --delta-scale 4 \
  --strategy persistent --worker warp,cta --fetch 8,64 --runs 3 --timeout 20 --quiet --out "$out/sssp.jsonl" >> "$out/sssp.log" 2>&1; echo "sssp-priority 256 bands rc=$?" >> "$out/sssp.log"
timeout 40 ./atos bench --app sssp --graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges --weights 1000 \
  --strategy persistent --worker warp,cta --fetch 8,64 --runs 3 --timeout 20 --quiet --out "$out/sssp.jsonl" >> "$out/sssp.log" 2>&1; echo "sssp fifo meshes rc=$?" >> "$out/sssp.log"; stamp sssp
cat "$out/times.txt"; grep -v " ok$" "$out/check.log" | head; cat "$out/bfs.log" "$out/sssp.log" | cut -c1-150
