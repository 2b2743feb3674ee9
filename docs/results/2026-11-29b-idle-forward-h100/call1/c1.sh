#!/usr/bin/env bash
# 2026-11-29 (second session) call 1 (one H100): edeaabf (.gpu/atos: `BATCH:WAIT_US:idle`
# aggregation; a balanced batch whose prefix may push opens only kept batches with a barrier)
# against cd9e2ab (.gpu/atos_prev, every such batch opens with one). k-core alternated, spread
# runs on devices sharing the H100 (correctness of idle forwarding, PageRank's spread unit),
# then the whole gpu_suite.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; w=/tmp/c1; mkdir -p "$out" "$w"; log="$w/c1.log"
cat .gpu/BUILD_prev.txt .gpu/BUILD.txt > "$log"; nvidia-smi -L >> "$log"
t0=$(date +%s)
left() { echo $(( ${BUDGET:-480} - ($(date +%s) - t0) )); }
b() { bin=$1; tag=$2; lim=$3; shift 3; [ "$(left)" -lt 10 ] && { echo "skip $tag" >> "$log"; return; }; [ "$lim" -gt "$(left)" ] && lim=$(left); echo "=== $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; timeout $lim .gpu/$bin bench --timeout 30 --warmup 1 --out "$w/$bin.jsonl" "$@" >> "$log" 2>&1; echo "rc=$? $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; }
.gpu/atos graph convert kron:22 /tmp/k22.acsr > "$w/convert.txt" 2>&1 &
.gpu/atos graph convert grid:4096x4096 /tmp/g4k.acsr >> "$w/convert.txt" 2>&1 &
wait
for r in 1 2; do for bin in atos_prev atos; do
  b $bin kcore-$r 60 --app kcore --graph kron:18 --graph /tmp/k22.acsr --graph /tmp/g4k.acsr --graph .gpu/data/luxembourg_osm.edges --graph .gpu/data/delaunay_n16.edges --strategy persistent --worker cta --fetch 8,64 --runs 3
done; done
echo "kcore end t=$(( $(date +%s) - t0 ))" >> "$log"
for bin in atos_prev atos; do
  b $bin pr-spread-one 40 --app pagerank-rescan --graph /tmp/k22.acsr --epsilon 0.01 --strategy persistent --worker cta --fetch 8 --runs 3 --spread-one
done
b atos bfs-shared 60 --app bfs --graph /tmp/k22.acsr --graph .gpu/data/luxembourg_osm.edges --strategy persistent --worker cta --fetch 64 --runs 3 --devices 1,2,4 --share-gpus --partition edges --aggregation eager,1024:20,1024:20:idle,4096:50,4096:50:idle --timeline
b atos pr-shared 40 --app pagerank-rescan --graph .gpu/data/luxembourg_osm.edges --graph .gpu/data/delaunay_n16.edges --epsilon 0.01 --strategy persistent --worker cta --fetch 8 --runs 3 --devices 1,2 --share-gpus --aggregation 1024:20,1024:20:idle
echo "bench end t=$(( $(date +%s) - t0 ))" >> "$log"
(cd .gpu && timeout $(left) ./gpu_suite --data data --runs 1 --stress 40 --program-stress 120 --flag-tasks 100000 --graph kron:18 > "$w/suite.log" 2>&1; echo "rc=$? t=$(( $(date +%s) - t0 ))" >> "$w/suite.log")
cp "$w/suite.log" "$out/"; tar czf "$out/c1.tgz" -C /tmp c1; cp "$log" "$out/"
grep -E "^===|rc=[^0]|rror|WRONG|skip|end t|^(k22|g4k|kron-\S+|luxembourg\S*|delaunay\S*) +atos" "$log" | cut -c1-160
grep -E "SUMMARY|WRONG|misses|stress:|rc=" "$w/suite.log" | head -20
