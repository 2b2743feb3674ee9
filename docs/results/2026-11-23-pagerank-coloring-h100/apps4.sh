#!/usr/bin/env bash
# Issue 11, device call 4: BSP PageRank on the three non-kron graphs (call 3's records of them
# did not come back: too many files).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
export ATOS_CACHE_DIR=/tmp/atos-kernels
timeout 200 ./atos bench --app pagerank-bsp --graph grid:4096x4096 --graph data/luxembourg_osm.edges \
  --graph data/delaunay_n16.edges --epsilon 0.01 --strategy bsp \
  --worker thread,warp,cta --fetch 8,64 --runs 3 --timeout 30 \
  --out "$out/pagerank-bsp-rest.jsonl" > "$out/pagerank-bsp-rest.log" 2>&1; echo "rc=$?" >> "$out/pagerank-bsp-rest.log"
nvidia-smi --query-gpu=name --format=csv,noheader >> "$out/pagerank-bsp-rest.log"
tail -25 "$out/pagerank-bsp-rest.log"
