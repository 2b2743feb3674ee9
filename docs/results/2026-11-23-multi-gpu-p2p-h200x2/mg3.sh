#!/usr/bin/env bash
# Issue 13, device call 5 (after the review refactor of the upload and copy helpers): spread
# BFS, PageRank and colouring on 2 GPUs re-verified, every partition.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
out="${OUT:-.gpu/out}"; mkdir -p "$out"
log="$out/mg3.log"; j="$out/mg3.jsonl"
cd .gpu
export ATOS_CACHE_DIR=/tmp/atos-kernels
for p in vertices edges random:3; do
  for app in bfs pagerank coloring; do
    timeout 100 ./atos bench --app $app --graph kron:16 --graph data/luxembourg_osm.edges --devices 1,2 --worker warp,cta --fetch 64 --partition $p --runs 3 --timeout 20 --quiet --out "$j" >> "$log" 2>&1; echo "rc=$? $app $p" >> "$log"
  done
done
grep -c '"status":"ok"' "$j"; grep -c '"status":"failed"' "$j"; grep "^rc=" "$log"
