#!/usr/bin/env bash
# Issue 11, device call 2: async PageRank (atos) and the original pr binaries, one bench run per
# graph group. Thread workers only off kron (a 162K-degree hub on one thread takes seconds).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt"
t0=$(date +%s)
[ -x orig/bin/pr ] || bash atos-original.sh build orig > "$out/original-build.log" 2>&1
export ATOS_CACHE_DIR=/tmp/atos-kernels
O="--compare-original orig --original-idle pr=1600 --original-idle pr_cta_256=750 --original-runs 2"
timeout 300 ./atos bench --app pagerank --graph kron:22 --epsilon 0.01 \
  --strategy persistent,discrete --worker warp,cta --fetch 8,64 --runs 3 --timeout 45 $O \
  --out "$out/pagerank.jsonl" > "$out/pagerank-kron.log" 2>&1
echo "rc=$?" >> "$out/pagerank-kron.log"
echo "kron done after $(( $(date +%s) - t0 )) s" >> "$out/times.txt"
timeout $(( 570 - ($(date +%s) - t0) )) ./atos bench --app pagerank --graph grid:4096x4096 \
  --graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges --epsilon 0.01 \
  --strategy persistent,discrete --worker thread,warp,cta --fetch 8,64 --runs 3 --timeout 30 $O \
  --out "$out/pagerank.jsonl" > "$out/pagerank-rest.log" 2>&1
echo "rc=$?" >> "$out/pagerank-rest.log"
echo "rest done after $(( $(date +%s) - t0 )) s" >> "$out/times.txt"
tail -3 "$out"/pagerank-*.log; cat "$out/times.txt"
