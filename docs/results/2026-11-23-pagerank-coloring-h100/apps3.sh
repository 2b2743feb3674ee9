#!/usr/bin/env bash
# Issue 11, device call 3: BSP PageRank (atos), colouring (atos async and BSP, original gc_32 in
# its three modes), then DRAM bytes of the best async PageRank on kron:22 under ncu.
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
REST="--graph grid:4096x4096 --graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges"
timeout 200 ./atos bench --app coloring --graph kron:22 --strategy persistent,discrete,bsp \
  --worker warp,cta --fetch 8,64 --runs 3 --timeout 30 --compare-original orig \
  --original-idle gc_32_warp=5000 --original-idle gc_32_cta=150 --original-runs 3 \
  --out "$out/coloring.jsonl" > "$out/coloring-kron.log" 2>&1; echo "rc=$?" >> "$out/coloring-kron.log"; stamp coloring-kron
timeout 150 ./atos bench --app coloring $REST --strategy persistent,discrete,bsp \
  --worker thread,warp,cta --fetch 8,64 --runs 3 --timeout 30 --compare-original orig \
  --original-idle gc_32_warp=10 --original-idle gc_32_cta=150 --original-runs 3 \
  --out "$out/coloring.jsonl" > "$out/coloring-rest.log" 2>&1; echo "rc=$?" >> "$out/coloring-rest.log"; stamp coloring-rest
timeout 90 ./atos bench --app pagerank-bsp --graph kron:22 --epsilon 0.01 --strategy bsp \
  --worker warp,cta --fetch 8,64 --runs 2 --timeout 30 \
  --out "$out/pagerank-bsp.jsonl" > "$out/pagerank-bsp-kron.log" 2>&1; echo "rc=$?" >> "$out/pagerank-bsp-kron.log"; stamp bsp-kron
timeout 100 ./atos bench --app pagerank-bsp $REST --epsilon 0.01 --strategy bsp \
  --worker thread,warp,cta --fetch 8,64 --runs 2 --timeout 30 \
  --out "$out/pagerank-bsp.jsonl" > "$out/pagerank-bsp-rest.log" 2>&1; echo "rc=$?" >> "$out/pagerank-bsp-rest.log"; stamp bsp-rest
left=$(( 575 - ($(date +%s) - t0) ))
if [ $left -gt 40 ]; then
  timeout $left /usr/local/cuda/bin/ncu --metrics dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum \
    --csv ./atos bench --app pagerank --graph kron:22 --epsilon 0.01 --strategy discrete --worker cta --fetch 8 \
    --runs 1 --warmup 0 --quiet > "$out/ncu-pagerank-kron.csv" 2> "$out/ncu.err"
  echo "rc=$?" >> "$out/ncu.err"; stamp ncu
fi
cat "$out/times.txt"
