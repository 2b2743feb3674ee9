#!/usr/bin/env bash
# Call 3 of 2026-11-28c on nvidia-h200-x2: shared ranges (atos: b831d6c + the share walk; idle
# CTA groups help run a balanced chunk of >= 16 strides, a hub's edges) against b831d6c
# (atos_prev), alternated, every run verified: BFS cta/64 on kron:22 from 0 and 1917, kron:24,
# grid:4096^2, luxembourg_osm, 1 and 2 GPUs; --min-blocks 8 for the one-GPU share unit; a
# correctness sweep (kron:16/18, thread/warp/cta, several fetches, 2 GPUs eager and 64:20);
# PageRank re-scan, colouring, SSSP on kron:22 (one GPU).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; w=/tmp/x2l; mkdir -p "$out" "$w"; log="$w/x2l.log"
cat .gpu/BUILD_prev.txt .gpu/BUILD.txt > "$log"
t0=$(date +%s)
left() { echo $(( ${BUDGET:-400} - ($(date +%s) - t0) )); }
b() { bin=$1; tag=$2; lim=$3; shift 3; [ "$(left)" -lt 10 ] && { echo "skip $tag" >> "$log"; return; }; [ "$lim" -gt "$(left)" ] && lim=$(left); echo "=== $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; timeout $lim .gpu/$bin bench --timeout 30 --quiet --warmup 1 --out "$w/$bin.jsonl" "$@" >> "$log" 2>&1; echo "rc=$? $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; }
.gpu/atos graph convert kron:22 /tmp/k22.acsr > "$w/convert.txt" 2>&1 &
.gpu/atos graph convert grid:4096x4096 /tmp/g4k.acsr >> "$w/convert.txt" 2>&1 &
.gpu/atos graph convert kron:24 /tmp/k24.acsr >> "$w/convert.txt" 2>&1 &
# correctness first, while the graphs convert (small graphs, every run verified)
b atos sweep-k16 40 --app bfs --graph kron:16 --devices 1,2 --partition edges --aggregation eager,64:20 --worker cta --fetch 1,8,64 --runs 5
b atos sweep-k18 40 --app bfs --graph kron:18 --worker cta,warp --fetch 8,64 --runs 5 --source 0
b atos sweep-lux 40 --app bfs --graph .gpu/data/luxembourg_osm.edges --devices 1,2 --partition vertices --worker cta --fetch 64 --runs 3
wait
echo "converted t=$(( $(date +%s) - t0 ))" >> "$log"
for round in 1 2; do
  for bin in atos_prev atos; do
    b $bin k22-src0 30 --app bfs --graph /tmp/k22.acsr --devices 1,2 --partition edges --aggregation 1024:20 --worker cta --fetch 64 --runs 5 --source 0
    b $bin k22-src1917 30 --app bfs --graph /tmp/k22.acsr --devices 1,2 --partition edges --aggregation 1024:20 --worker cta --fetch 64 --runs 5 --source 1917
  done
done
for bin in atos_prev atos; do
  b $bin k24 40 --app bfs --graph /tmp/k24.acsr --devices 1,2 --partition edges --aggregation 1024:20 --worker cta --fetch 64 --runs 3
  b $bin grid 40 --app bfs --graph /tmp/g4k.acsr --devices 1,2 --partition vertices --worker cta --fetch 64 --runs 3
done
b atos k22-mb8 30 --app bfs --graph /tmp/k22.acsr --worker cta --fetch 64 --runs 5 --min-blocks 8
for bin in atos_prev atos; do
  b $bin pr-k22 40 --app pagerank-rescan --graph /tmp/k22.acsr --devices 1,2 --partition edges --worker cta --fetch 8 --runs 3
  b $bin gc-k22 30 --app coloring --graph /tmp/k22.acsr --worker cta --fetch 64 --runs 3
  b $bin sssp-k22 30 --app sssp-priority --graph /tmp/k22.acsr --worker cta --fetch 64 --runs 3
done
echo "end t=$(( $(date +%s) - t0 ))" >> "$log"
tar czf "$out/x2l.tgz" -C /tmp x2l; cp "$log" "$out/"
grep -E "^===|rc=[^0]|rror|FAIL|fail|skip|end t|converted|^(g4k|k22|k24|k16|k18|lux\S*) +(atos|bfs|pagerank|coloring|sssp)" "$log" | cut -c1-150
