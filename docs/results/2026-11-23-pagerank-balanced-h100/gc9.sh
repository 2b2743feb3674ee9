#!/usr/bin/env bash
# Issue 11, session 2, call 5: colouring with the leader-only fence (atos async and BSP, the
# original gc_32 in its three modes) on the four graphs, one bench run per graph group.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt"
t0=$(date +%s)
stamp() { echo "$1 done after $(( $(date +%s) - t0 )) s" >> "$out/times.txt"; }
[ -x orig/bin/gc_32 ] || bash atos-original.sh build orig > "$out/original-build.log" 2>&1
export ATOS_CACHE_DIR=/tmp/atos-kernels
timeout 200 ./atos bench --app coloring --graph kron:22 --strategy persistent,discrete,bsp \
  --worker warp,cta --fetch 8,64 --runs 3 --timeout 30 --compare-original orig \
  --original-idle gc_32_warp=5000 --original-idle gc_32_cta=150 --original-runs 3 \
  --out "$out/coloring.jsonl" > "$out/coloring-kron.log" 2>&1; echo "rc=$?" >> "$out/coloring-kron.log"; stamp kron
timeout 200 ./atos bench --app coloring --graph grid:4096x4096 --graph data/luxembourg_osm.edges \
  --graph data/delaunay_n16.edges --strategy persistent,discrete,bsp \
  --worker thread,warp,cta --fetch 8,64 --runs 3 --timeout 30 --compare-original orig \
  --original-idle gc_32_warp=10 --original-idle gc_32_cta=150 --original-runs 3 \
  --out "$out/coloring.jsonl" > "$out/coloring-rest.log" 2>&1; echo "rc=$?" >> "$out/coloring-rest.log"; stamp rest
cat "$out/times.txt"
