#!/usr/bin/env bash
# Review fixes, third device call: the advance now counts far items handed out by
# `window_next` (a pass batch between take_pass's compare-and-swap and its `start` add no
# longer lets the threshold advance). Persistent priority programs, warp and CTA workers, 5
# verified runs each: k-core, SSSP and priority BFS.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
out="${OUT:-.gpu/out}"; mkdir -p "$out"
log="$out/rv3.log"; j="$out/rv3.jsonl"
cd .gpu
export ATOS_CACHE_DIR=/tmp/atos-kernels
timeout 200 ./atos bench --app kcore --graph data/k4k5.edges --graph kron:14 --graph kron:16 --graph grid:256x256 --graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges --strategy persistent --worker warp,cta --fetch 8,64 --runs 5 --warmup 1 --timeout 30 --quiet --out "$j" >> "$log" 2>&1; echo "rc=$?" >> "$log"
timeout 120 ./atos bench --app sssp-priority --graph grid:256x256,w=100 --graph kron:14,w=1000 --graph data/luxembourg_osm.edges --strategy persistent --worker warp,cta --runs 5 --warmup 1 --timeout 30 --quiet --out "$j" >> "$log" 2>&1; echo "rc=$?" >> "$log"
timeout 120 ./atos bench --app bfs-priority --graph kron:16 --graph grid:256x256 --delta 1 --strategy persistent --worker warp,cta --runs 5 --warmup 1 --timeout 30 --quiet --out "$j" >> "$log" 2>&1; echo "rc=$?" >> "$log"
echo "ok=$(grep -c '"status":"ok"' $j) failed=$(grep -c '"status":"failed"' $j)" >> "$log"
tail -c 2500 "$log"
