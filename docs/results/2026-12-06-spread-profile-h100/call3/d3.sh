#!/usr/bin/env bash
# 2026-12-06 call 3 (one GPU, warm after call 2): BFS and PageRank over 2 devices sharing the
# GPU, ranges and owner-map placements (call 2's runs named the partitions wrongly); PageRank
# re-scan's spread unit on one device with the register bound at 5 and 6 blocks per SM.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; w=/tmp/d3; mkdir -p "$out" "$w"; log="$w/d3.log"
cat .gpu/BUILD_prev.txt .gpu/BUILD.txt > "$log"; nvidia-smi -L >> "$log"
t0=$(date +%s)
left() { echo $(( ${BUDGET:-300} - ($(date +%s) - t0) )); }
b() { bin=$1; tag=$2; lim=$3; shift 3; [ "$(left)" -lt 10 ] && { echo "skip $tag" >> "$log"; return; }; [ "$lim" -gt "$(left)" ] && lim=$(left); echo "=== $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; timeout $lim .gpu/$bin bench --timeout 30 --warmup 1 --out "$w/$bin.jsonl" "$@" >> "$log" 2>&1; echo "rc=$? $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; }
[ -f /tmp/k22.acsr ] || .gpu/atos graph convert kron:22 /tmp/k22.acsr > "$w/convert.txt" 2>&1
for p in edges random:3; do
  b atos shared2-bfs-$p 50 --app bfs --graph /tmp/k22.acsr --graph .gpu/data/luxembourg_osm.edges --strategy persistent --worker cta,warp --fetch 64 --runs 2 --devices 2 --share-gpus --partition $p --aggregation eager,1024:20:idle
  b atos shared2-pr-$p 40 --app pagerank-rescan --graph .gpu/data/luxembourg_osm.edges --graph .gpu/data/delaunay_n16.edges --epsilon 0.01 --strategy persistent --worker cta --fetch 8 --runs 2 --devices 2 --share-gpus --partition $p
done
for r in 1 2; do
  b atos_prev pr-$r 30 --app pagerank-rescan --graph /tmp/k22.acsr --epsilon 0.01 --strategy persistent --worker cta --fetch 8 --runs 3 --spread-one
  for mb in 0 5 6; do
    b atos pr-mb$mb-$r 30 --app pagerank-rescan --graph /tmp/k22.acsr --epsilon 0.01 --strategy persistent --worker cta --fetch 8 --runs 3 --spread-one --min-blocks $mb
  done
done
tar czf "$out/d3.tgz" -C /tmp d3; cp "$log" "$out/"
grep -E "^===|rc=[^0]|rror|WRONG|skip|^(k22|g4k|luxembourg\S*|delaunay\S*) +atos" "$log" | cut -c1-170
