#!/usr/bin/env bash
# Call 3 of 2026-11-28d on nvidia-h200-x4: the bench turns shared ranges off where the graph
# cannot post a chunk (atos::share_can_post; .gpu/atos) against main fc239c2 (atos_prev) on the
# grid; BFS queue capacity V+E+1 (gpu_suite thread/1 rows); the kron:24 scaling runs that the
# last call's 45-60 s limits cut (BFS edges partition, PageRank re-scan), grid:8192^2 with the
# new default. Every run verified.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; w=/tmp/x4c; mkdir -p "$out" "$w"; log="$w/x4c.log"
cat .gpu/BUILD_prev.txt .gpu/BUILD.txt > "$log"; nvidia-smi -L >> "$log"
t0=$(date +%s)
left() { echo $(( ${BUDGET:-200} - ($(date +%s) - t0) )); }
b() { bin=$1; tag=$2; lim=$3; shift 3; [ "$(left)" -lt 10 ] && { echo "skip $tag" >> "$log"; return; }; [ "$lim" -gt "$(left)" ] && lim=$(left); echo "=== $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; timeout $lim .gpu/$bin bench --timeout 30 --warmup 1 --out "$w/$bin.jsonl" "$@" >> "$log" 2>&1; echo "rc=$? $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; }
.gpu/atos graph convert grid:4096x4096 /tmp/g4k.acsr > "$w/convert.txt" 2>&1 &
.gpu/atos graph convert kron:24 /tmp/k24.acsr >> "$w/convert.txt" 2>&1 &
.gpu/atos graph convert grid:8192x8192 /tmp/g8k.acsr >> "$w/convert.txt" 2>&1 &
(cd .gpu && timeout 60 ./gpu_suite --data data --bfs-only --runs 3 --only thread/1,cta/64 --graph kron:16 > "$w/suite-bfs.log" 2>&1; echo "rc=$?" >> "$w/suite-bfs.log")
b atos lux 40 --app bfs --graph .gpu/data/luxembourg_osm.edges --devices 1,2,4 --partition vertices --aggregation eager,64:20 --worker cta --fetch 64 --runs 3
wait
for r in 1 2; do for bin in atos_prev atos; do
  b $bin grid-$r 40 --app bfs --graph /tmp/g4k.acsr --devices 1,2 --partition vertices --worker cta --fetch 64 --runs 5
done; done
b atos k24 120 --app bfs --graph /tmp/k24.acsr --devices 1,2,4 --partition edges --aggregation 1024:20,4096:50 --worker cta --fetch 64 --runs 3
b atos k24-pr 150 --app pagerank-rescan --graph /tmp/k24.acsr --devices 1,2,4 --partition edges --worker cta --fetch 8 --runs 3
b atos g8k 100 --app bfs --graph /tmp/g8k.acsr --devices 1,2,4 --partition vertices --worker cta --fetch 64 --runs 3
echo "end t=$(( $(date +%s) - t0 ))" >> "$log"
tar czf "$out/x4c.tgz" -C /tmp x4c; cp "$log" "$out/"
grep -E "^===|rc=[^0]|rror|FAIL|fail|skip|end t|shared ranges off|^(g4k|g8k|k24|lux\S*) +(bfs|pagerank\S*) " "$log" | cut -c1-120
grep -E "thread/1|cta/64|SUMMARY|rc=" "$w/suite-bfs.log" | cut -c1-120
