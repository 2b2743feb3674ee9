#!/usr/bin/env bash
# Issue 11, session 2, call 6: colouring on the two small meshes with smaller CTA batches and
# blocks (the fence is per task, and a persistent CTA runs its batch's items one by one), with
# the original gc_32 in each bench run.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt"
[ -x orig/bin/gc_32 ] || bash atos-original.sh build orig > "$out/original-build.log" 2>&1
export ATOS_CACHE_DIR=/tmp/atos-kernels
for block in 256 128; do
timeout 140 ./atos bench --app coloring --graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges \
  --strategy persistent,bsp --worker cta --fetch 8,16,32,64 --block $block --runs 5 --timeout 30 \
  --compare-original orig --original-idle gc_32_warp=10 --original-idle gc_32_cta=150 --original-runs 3 \
  --out "$out/coloring.jsonl" > "$out/coloring-block$block.log" 2>&1; echo "rc=$?" >> "$out/coloring-block$block.log"
done
grep -v "^original" "$out"/coloring-block*.log
