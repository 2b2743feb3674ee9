#!/usr/bin/env bash
# Issue 11 refresh, call B: PageRank (push form) on grid, luxembourg_osm and delaunay_n16 with
# the original pr binaries in the same bench run; the push form on kron:22; atos BSP PageRank on
# all four graphs.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt"
t0=$(date +%s); stamp() { echo "$1 after $(( $(date +%s) - t0 )) s" >> "$out/times.txt"; }
left() { echo $(( 585 - ($(date +%s) - t0) )); }
bench() { local name=$1; shift; timeout "$@" --out "$out/records.jsonl" > /tmp/b.log 2>&1; echo "rc=$?" >> /tmp/b.log; { echo "== $name"; cat /tmp/b.log; } >> "$out/bench.log"; stamp "$name"; }
[ -x orig/bin/pr ] || bash atos-original.sh build orig > /tmp/orig-build.log 2>&1; stamp original-build
[ -f /tmp/kron22.acsr ] || ./atos graph convert kron:22 /tmp/kron22.acsr > /dev/null 2>&1
[ -f /tmp/grid.acsr ] || ./atos graph convert grid:4096x4096 /tmp/grid.acsr > /dev/null 2>&1; stamp graphs
bench pagerank-rest 200 ./atos bench --app pagerank --graph /tmp/grid.acsr --graph data/luxembourg_osm.edges \
  --graph data/delaunay_n16.edges --epsilon 0.01 --strategy persistent --worker cta --fetch 64,256 --runs 3 \
  --timeout 30 --quiet --compare-original orig --original-idle pr=1600 --original-idle pr_cta_256=750 \
  --original-idle pr_discrete_128=10 --original-runs 2
bench pagerank-kron 80 ./atos bench --app pagerank --graph /tmp/kron22.acsr --epsilon 0.01 --strategy persistent,discrete \
  --worker cta --fetch 8,64 --runs 3 --timeout 30 --quiet
bench pagerank-bsp-kron 90 ./atos bench --app pagerank-bsp --graph /tmp/kron22.acsr --epsilon 0.01 --strategy bsp \
  --worker cta --fetch 8,64 --runs 2 --timeout 30 --quiet
bench pagerank-bsp-rest $(left) ./atos bench --app pagerank-bsp --graph /tmp/grid.acsr --graph data/luxembourg_osm.edges \
  --graph data/delaunay_n16.edges --epsilon 0.01 --strategy bsp --worker cta --fetch 8,64 --runs 2 --timeout 30 --quiet
cat "$out/times.txt"
grep -v "^\s*$" "$out/bench.log" | cut -c1-170
