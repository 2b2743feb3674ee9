#!/usr/bin/env bash
# Issue 11, device call 1: async PageRank (atos, every strategy/worker) and the original pr
# binaries on the four graphs; builds the originals and sends their binaries back.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt"
t0=$(date +%s)
if [ ! -x orig/bin/pr ]; then bash atos-original.sh build orig > "$out/original-build.log" 2>&1; fi
mkdir -p "$out/origbin" && cp orig/bin/* "$out/origbin/" 2>/dev/null
echo "build done after $(( $(date +%s) - t0 )) s" >> "$out/times.txt"
export ATOS_CACHE_DIR=/tmp/atos-kernels
G="--graph kron:22 --graph grid:4096x4096 --graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges"
timeout 470 ./atos bench --app pagerank $G --epsilon 0.01 \
  --strategy persistent,discrete --worker thread,warp,cta --fetch 8,64 --runs 3 --timeout 20 \
  --compare-original orig --original-idle pr=1600 --original-idle pr_cta_256=750 \
  --out "$out/pagerank.jsonl" > "$out/pagerank.log" 2>&1
echo "rc=$?" >> "$out/pagerank.log"
echo "pagerank done after $(( $(date +%s) - t0 )) s" >> "$out/times.txt"
tail -5 "$out/pagerank.log"; cat "$out/times.txt"
