#!/usr/bin/env bash
# Issue 12, first slice, call 2: FIFO SSSP and Bellman-Ford by levels on the two real meshes
# with generated weights (--weights 1000), every run checked against Dijkstra.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt"
export ATOS_CACHE_DIR=/tmp/atos-kernels
timeout 250 ./atos bench --app sssp --graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges \
  --weights 1000 --strategy persistent,discrete,bsp --worker thread,warp,cta --fetch 8,64 --runs 3 \
  --timeout 30 --out "$out/sssp-meshes.jsonl" > "$out/sssp-meshes.log" 2>&1; echo "rc=$?" >> "$out/sssp-meshes.log"
cat "$out/sssp-meshes.log"
