#!/usr/bin/env bash
# Issue 12: priority SSSP (PriorityQueue) vs FIFO SSSP vs BSP, every run checked against
# Dijkstra. Part 1: every strategy x worker x order on small graphs (correctness). Part 2: the
# measured graphs. Part 3: a delta sweep.
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
for app in sssp-priority sssp; do
  timeout 150 ./atos bench --app $app $S --strategy persistent,discrete,bsp --worker thread,warp,cta --fetch 8,64 \
    --runs 1 --timeout 20 --quiet --out "$out/check.jsonl" >> "$out/check.log" 2>&1; echo "$app rc=$?" >> "$out/check.log"
done
stamp check
M="--graph grid:4096x4096,w=100 --graph kron:22,w=1000 --graph geo:1000000,w=1000 --graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges --weights 1000"
timeout 200 ./atos bench --app sssp-priority $M --strategy persistent,discrete --worker warp,cta --fetch 8,64 \
  --runs 3 --timeout 20 --quiet --out "$out/main.jsonl" >> "$out/main.log" 2>&1; echo "prio rc=$?" >> "$out/main.log"; stamp prio
timeout 60 ./atos bench --app sssp-priority $M --strategy bsp --worker cta --fetch 64 \
  --runs 2 --timeout 20 --quiet --out "$out/main.jsonl" >> "$out/main.log" 2>&1; echo "prio-bsp rc=$?" >> "$out/main.log"; stamp prio-bsp
timeout 150 ./atos bench --app sssp $M --strategy persistent,discrete --worker warp,cta --fetch 8,64 \
  --runs 3 --timeout 20 --quiet --out "$out/main.jsonl" >> "$out/main.log" 2>&1; echo "fifo rc=$?" >> "$out/main.log"; stamp fifo
timeout 60 ./atos bench --app sssp $M --strategy bsp --worker cta --fetch 64 \
  --runs 2 --timeout 30 --quiet --out "$out/main.jsonl" >> "$out/main.log" 2>&1; echo "fifo-bsp rc=$?" >> "$out/main.log"; stamp fifo-bsp
for d in 4 16 64 256 1024; do
  timeout 40 ./atos bench --app sssp-priority --graph grid:4096x4096,w=100 --graph kron:22,w=1000 --graph data/luxembourg_osm.edges --weights 1000 \
    --delta $d --strategy persistent --worker cta --fetch 64 --runs 2 --timeout 10 --quiet --out "$out/delta.jsonl" >> "$out/delta.log" 2>&1
  echo "delta $d rc=$?" >> "$out/delta.log"
done
stamp delta
cat "$out/times.txt"; grep -v " ok$" "$out/check.log" | head -40; cat "$out/main.log" "$out/delta.log" | cut -c1-150
