#!/usr/bin/env bash
# Issue 11, session 2, call 4 (grid:4096x4096, luxembourg_osm, delaunay_n16): PageRank push form
# with the original pr binaries, the re-scan form, block 512, BSP PageRank, colouring with gc_32.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt"
t0=$(date +%s)
stamp() { echo "$1 done after $(( $(date +%s) - t0 )) s" >> "$out/times.txt"; }
left() { echo $(( 580 - ($(date +%s) - t0) )); }
[ -x orig/bin/pr ] || bash atos-original.sh build orig > "$out/original-build.log" 2>&1
stamp build
export ATOS_CACHE_DIR=/tmp/atos-kernels
G="--graph grid:4096x4096 --graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges"
P="--epsilon 0.01 --strategy persistent,discrete --worker warp,cta --fetch 64,256 --runs 3 --timeout 30"
timeout 170 ./atos bench --app pagerank $G $P --compare-original orig --original-idle pr=1600 \
  --original-idle pr_cta_256=750 --original-runs 2 --out "$out/rest.jsonl" > "$out/pagerank.log" 2>&1
echo "rc=$?" >> "$out/pagerank.log"; stamp push
timeout 100 ./atos bench --app pagerank-rescan $G $P --out "$out/rest.jsonl" > "$out/pagerank-rescan.log" 2>&1
echo "rc=$?" >> "$out/pagerank-rescan.log"; stamp rescan
timeout 60 ./atos bench --app pagerank --graph grid:4096x4096 --epsilon 0.01 --strategy persistent --worker cta \
  --fetch 64,256 --block 512 --runs 3 --out "$out/rest.jsonl" >> "$out/pagerank-rescan.log" 2>&1
echo "rc=$?" >> "$out/pagerank-rescan.log"; stamp block512
timeout $(( $(left) - 70 )) ./atos bench --app coloring $G --strategy persistent,discrete,bsp \
  --worker thread,warp,cta --fetch 8,64 --runs 3 --timeout 30 --compare-original orig \
  --original-idle gc_32_warp=10 --original-idle gc_32_cta=150 --original-runs 3 \
  --out "$out/rest.jsonl" > "$out/coloring.log" 2>&1; echo "rc=$?" >> "$out/coloring.log"; stamp coloring
timeout $(left) ./atos bench --app pagerank-bsp $G --epsilon 0.01 --strategy bsp --worker thread,cta --fetch 8,64 \
  --runs 2 --timeout 30 --out "$out/rest.jsonl" > "$out/pagerank-bsp.log" 2>&1; echo "rc=$?" >> "$out/pagerank-bsp.log"; stamp bsp
cat "$out/times.txt"
