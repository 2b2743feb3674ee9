#!/usr/bin/env bash
# Call 2 of 2026-11-28b on nvidia-h200-x2: owner-computes BFS with filtered offers (atos, 90db3d3)
# against the plain spread BFS in the same processes, and against owner BFS without offers
# (atos_prev, dfaad6d); correctness sets first (luxembourg_osm, a stress over partitions,
# aggregations and workers), then timings on kron:22 and kron:24, then the grid's progress
# (--timeline now samples items taken: claimed or kept).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; w=/tmp/x2b; mkdir -p "$out" "$w"; log="$w/x2b.log"
cat .gpu/BUILD_prev.txt .gpu/BUILD.txt > "$log"
t0=$(date +%s)
left() { echo $(( ${BUDGET:-400} - ($(date +%s) - t0) )); }
b() { bin=$1; tag=$2; lim=$3; shift 3; [ "$(left)" -lt 15 ] && { echo "skip $tag" >> "$log"; return; }; [ "$lim" -gt "$(left)" ] && lim=$(left); echo "=== $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; timeout $lim .gpu/$bin bench --timeout 30 --quiet --out "$w/$bin.jsonl" "$@" >> "$log" 2>&1; echo "rc=$? $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; }
.gpu/atos graph convert kron:22 /tmp/k22.acsr > "$w/convert.txt" 2>&1 &
.gpu/atos graph convert grid:4096x4096 /tmp/g4k.acsr >> "$w/convert.txt" 2>&1 &
.gpu/atos graph convert kron:24 /tmp/k24.acsr >> "$w/convert.txt" 2>&1 &
b atos lux 40 --app bfs-owner --graph .gpu/data/luxembourg_osm.edges --devices 1,2 --partition vertices --aggregation eager,256:20 --worker cta,warp --fetch 64 --runs 3 --warmup 1
for p in vertices edges random:1; do
  b atos stress-$p 40 --app bfs-owner --graph kron:17 --devices 2 --partition $p --aggregation eager,64:20 --worker thread,warp,cta --fetch 64 --runs 6 --warmup 1
done
wait
for round in 1 2; do
  b atos bfs-k22 40 --app bfs --graph /tmp/k22.acsr --devices 1,2 --partition edges --aggregation eager,1024:20 --worker cta --fetch 64 --runs 5 --warmup 1
  b atos owner-k22 40 --app bfs-owner --graph /tmp/k22.acsr --devices 1,2 --partition edges --aggregation eager,1024:20 --worker cta --fetch 64 --runs 5 --warmup 1
done
b atos_prev owner-k22 40 --app bfs-owner --graph /tmp/k22.acsr --devices 2 --partition edges --aggregation 1024:20 --worker cta --fetch 64 --runs 3 --warmup 1
b atos bfs-k24 50 --app bfs --graph /tmp/k24.acsr --devices 1,2 --partition edges --aggregation 1024:20 --worker cta --fetch 64 --runs 3 --warmup 1
b atos owner-k24 60 --app bfs-owner --graph /tmp/k24.acsr --devices 1,2 --partition edges --aggregation eager,1024:20 --worker cta --fetch 64 --runs 3 --warmup 1
b atos owner-grid 40 --app bfs-owner --graph /tmp/g4k.acsr --devices 1,2 --partition vertices --worker cta --fetch 64 --runs 3 --warmup 1
b atos grid-timeline 40 --app bfs --graph /tmp/g4k.acsr --devices 1,2 --spread-one --partition vertices --worker cta --fetch 64 --runs 1 --warmup 1 --timeline
b atos owner-k24-timeline 40 --app bfs-owner --graph /tmp/k24.acsr --devices 2 --partition edges --aggregation 1024:20 --worker cta --fetch 64 --runs 1 --warmup 0 --timeline
echo "end t=$(( $(date +%s) - t0 ))" >> "$log"
tar czf "$out/x2b.tgz" -C /tmp x2b; cp "$log" "$out/"
grep -E "^===|^rc=|rror|FAIL|fail|skip|end t|x2 | x1 |^\S+ +(bfs|bfs-owner) +(one|p2p)" "$log" | grep -v "^graph" | cut -c1-200
