#!/usr/bin/env bash
# Issue 11 refresh, call A: the original built on the device; gpu_suite --dsl-only (fault sites
# now hold line offsets: the reported lines must not move); colouring on the four graphs (atos
# async and BSP, the original gc_32 in each bench run); PageRank re-scan on kron:22 with the
# original pr binaries.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt"
t0=$(date +%s); stamp() { echo "$1 after $(( $(date +%s) - t0 )) s" >> "$out/times.txt"; }
left() { echo $(( 585 - ($(date +%s) - t0) )); }
bench() { local name=$1; shift; timeout "$@" --out "$out/records.jsonl" > /tmp/b.log 2>&1; echo "rc=$?" >> /tmp/b.log; { echo "== $name"; cat /tmp/b.log; } >> "$out/bench.log"; stamp "$name"; }
bash atos-original.sh build orig > /tmp/orig-build.log 2>&1; ls orig/bin >> "$out/times.txt"; stamp original-build
./atos graph convert kron:22 /tmp/kron22.acsr > /dev/null 2>&1; ./atos graph convert grid:4096x4096 /tmp/grid.acsr > /dev/null 2>&1; stamp graphs
timeout 120 ./gpu_suite --dsl-only > "$out/dsl.log" 2>&1; echo "rc=$?" >> "$out/dsl.log"; stamp dsl
GC="--original-idle gc_32_cta=150 --original-runs 3 --compare-original orig"
bench coloring-kron 110 ./atos bench --app coloring --graph /tmp/kron22.acsr --strategy persistent,discrete,bsp \
  --worker warp,cta --fetch 8,64 --runs 3 --timeout 30 --quiet $GC --original-idle gc_32_warp=5000
bench coloring-rest-256 150 ./atos bench --app coloring --graph /tmp/grid.acsr --graph data/luxembourg_osm.edges \
  --graph data/delaunay_n16.edges --strategy persistent,discrete,bsp --worker thread,warp,cta --fetch 8,64 --runs 3 \
  --timeout 30 --quiet $GC --original-idle gc_32_warp=10
bench coloring-meshes-128 60 ./atos bench --app coloring --graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges \
  --strategy persistent,bsp --worker cta --fetch 16,32 --block 128 --runs 5 --timeout 30 --quiet
bench pagerank-rescan-kron $(left) ./atos bench --app pagerank-rescan --graph /tmp/kron22.acsr --epsilon 0.01 \
  --strategy persistent,discrete --worker cta --fetch 8,64 --runs 3 --timeout 45 --quiet --compare-original orig \
  --original-idle pr=1600 --original-idle pr_cta_256=750 --original-idle pr_discrete_128=10 --original-runs 2
cat "$out/times.txt"; tail -n 4 "$out/dsl.log"
grep -v "^\s*$" "$out/bench.log" | grep -v "^original " | cut -c1-170
