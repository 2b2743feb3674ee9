#!/usr/bin/env bash
# Issue 12, call 2: priority SSSP with short naps (max 256 ns) and a delta sweep (scale x the
# default delta), FIFO SSSP (persistent, 8x ring) and both BSP forms, in one run, every run
# checked against Dijkstra.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt"
t0=$(date +%s)
stamp() { echo "$1 done after $(( $(date +%s) - t0 )) s" >> "$out/times.txt"; }
export ATOS_CACHE_DIR=/tmp/atos-kernels
S="--graph grid:256x256,w=100 --graph kron:16,w=1000 --graph data/luxembourg_osm.edges --weights 1000"
timeout 60 ./atos bench --app sssp-priority $S --strategy persistent,discrete,bsp --worker thread,warp,cta --fetch 8,64 \
  --runs 1 --timeout 20 --quiet --out "$out/check.jsonl" >> "$out/check.log" 2>&1; echo "check rc=$?" >> "$out/check.log"
stamp check
M="--graph grid:4096x4096,w=100 --graph kron:22,w=1000 --graph geo:1000000,w=1000 --graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges --weights 1000"
timeout 120 ./atos bench --app sssp $M --strategy persistent,bsp --worker cta --fetch 8,64 \
  --runs 3 --timeout 20 --quiet --out "$out/main.jsonl" >> "$out/fifo.log" 2>&1; echo "fifo rc=$?" >> "$out/fifo.log"; stamp fifo
timeout 40 ./atos bench --app sssp --graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges --weights 1000 \
  --strategy persistent --worker thread,warp --fetch 8,64 --runs 3 --timeout 20 --quiet --out "$out/main.jsonl" >> "$out/fifo.log" 2>&1; echo "fifo-meshes rc=$?" >> "$out/fifo.log"; stamp fifo-meshes
for sc in 1 4 16 64; do
  timeout 100 ./atos bench --app sssp-priority $M --delta-scale $sc --strategy persistent,discrete,bsp --worker cta --fetch 8,64 \
    --runs 3 --timeout 20 --quiet --out "$out/main.jsonl" >> "$out/prio.log" 2>&1; echo "scale $sc rc=$?" >> "$out/prio.log"; stamp "scale $sc"
done
cat "$out/times.txt"; grep -v " ok$" "$out/check.log" | head; cat "$out/fifo.log" "$out/prio.log" | cut -c1-150
