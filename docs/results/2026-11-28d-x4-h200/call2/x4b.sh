#!/usr/bin/env bash
# Call 2 of 2026-11-28d on nvidia-h200-x4, main fc239c2 (.gpu/atos_prev): issue 13's scaling
# table with shared ranges (BFS and PageRank on 1, 2, 4 GPUs: kron:24, grid:8192^2,
# luxembourg_osm), partitions and aggregations on kron:24, and what the spread code costs on
# one device now (--spread-one). Every run verified.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; w=/tmp/x4b; mkdir -p "$out" "$w"; log="$w/x4b.log"
cat .gpu/BUILD_prev.txt > "$log"; nvidia-smi -L >> "$log"
t0=$(date +%s)
left() { echo $(( ${BUDGET:-200} - ($(date +%s) - t0) )); }
b() { bin=$1; tag=$2; lim=$3; shift 3; [ "$(left)" -lt 10 ] && { echo "skip $tag" >> "$log"; return; }; [ "$lim" -gt "$(left)" ] && lim=$(left); echo "=== $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; timeout $lim .gpu/$bin bench --timeout 30 --quiet --warmup 1 --out "$w/$bin.jsonl" "$@" >> "$log" 2>&1; echo "rc=$? $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; }
A=atos_prev
.gpu/$A graph convert kron:22 /tmp/k22.acsr > "$w/convert.txt" 2>&1 &
.gpu/$A graph convert grid:4096x4096 /tmp/g4k.acsr >> "$w/convert.txt" 2>&1 &
.gpu/$A graph convert kron:24 /tmp/k24.acsr >> "$w/convert.txt" 2>&1 &
.gpu/$A graph convert grid:8192x8192 /tmp/g8k.acsr >> "$w/convert.txt" 2>&1 &
b $A lux 40 --app bfs --graph .gpu/data/luxembourg_osm.edges --devices 1,2,4 --partition vertices,edges --aggregation eager,64:20 --worker cta --fetch 64 --runs 3
b $A lux-pr 40 --app pagerank-rescan --graph .gpu/data/luxembourg_osm.edges --devices 1,2,4 --partition edges --worker cta --fetch 8 --runs 3
wait; cat "$w/convert.txt" | tail -4 >> "$log"
b $A k22-one 30 --app bfs --graph /tmp/k22.acsr --devices 1,2 --spread-one --partition edges --aggregation 1024:20 --worker cta --fetch 64 --runs 5
b $A g4k-one 40 --app bfs --graph /tmp/g4k.acsr --devices 1,2,4 --spread-one --partition vertices --worker cta --fetch 64 --runs 5
b $A g4k-noshare 40 --app bfs --graph /tmp/g4k.acsr --devices 1,2 --partition vertices --worker cta --fetch 64 --runs 5 --share off
for p in edges vertices random:1; do
  b $A k24-$p 45 --app bfs --graph /tmp/k24.acsr --devices 1,2,4 --partition $p --aggregation eager,1024:20,4096:50 --worker cta --fetch 64 --runs 3
done
b $A k24-pr 60 --app pagerank-rescan --graph /tmp/k24.acsr --devices 1,2,4 --partition edges --worker cta --fetch 8 --runs 3
b $A g8k 90 --app bfs --graph /tmp/g8k.acsr --devices 1,2,4 --partition vertices --worker cta --fetch 64 --runs 3
b $A k24-pr-share 60 --app pagerank-rescan --graph /tmp/k24.acsr --devices 1,2,4 --partition edges --worker cta --fetch 8 --runs 3 --share on
echo "end t=$(( $(date +%s) - t0 ))" >> "$log"
tar czf "$out/x4b.tgz" -C /tmp x4b; cp "$log" "$out/"
grep -E "^===|rc=[^0]|rror|FAIL|fail|skip|end t|^(g4k|g8k|k22|k24|lux\S*|kron\S*) +(bfs|pagerank\S*) " "$log" | cut -c1-110
