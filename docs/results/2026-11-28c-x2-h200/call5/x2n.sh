#!/usr/bin/env bash
# Call 5 of 2026-11-28c on nvidia-h200-x2: shared ranges as committed (default on, except for
# programs with an idle hook; `--share on|off`) against b831d6c (atos_prev): a 2-GPU stress of
# BFS on kron:22 and kron:18 (partitions, aggregations, fetches; every run verified); --share
# on/off in one binary on kron:22 and the grid; PageRank re-scan (share off by default), SSSP
# FIFO and priority on kron:22 with weights, both builds.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; w=/tmp/x2n; mkdir -p "$out" "$w"; log="$w/x2n.log"
cat .gpu/BUILD_prev.txt .gpu/BUILD.txt > "$log"
t0=$(date +%s)
left() { echo $(( ${BUDGET:-200} - ($(date +%s) - t0) )); }
b() { bin=$1; tag=$2; lim=$3; shift 3; [ "$(left)" -lt 10 ] && { echo "skip $tag" >> "$log"; return; }; [ "$lim" -gt "$(left)" ] && lim=$(left); echo "=== $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; timeout $lim .gpu/$bin bench --timeout 30 --quiet --warmup 1 --out "$w/$bin.jsonl" "$@" >> "$log" 2>&1; echo "rc=$? $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; }
.gpu/atos graph convert kron:22 /tmp/k22.acsr > "$w/convert.txt" 2>&1 &
.gpu/atos graph convert grid:4096x4096 /tmp/g4k.acsr >> "$w/convert.txt" 2>&1 &
b atos stress-k18 40 --app bfs --graph kron:18 --devices 2 --partition edges --aggregation eager,64:20 --worker cta --fetch 8,64 --runs 10
wait
for p in edges vertices; do
  b atos stress-k22-$p 30 --app bfs --graph /tmp/k22.acsr --devices 2 --partition $p --aggregation eager,1024:20 --worker cta --fetch 64 --runs 10
done
for s in off on; do
  b atos k22-share-$s 20 --app bfs --graph /tmp/k22.acsr --devices 1,2 --partition edges --aggregation 1024:20 --worker cta --fetch 64 --runs 5 --share $s
  b atos grid-share-$s 30 --app bfs --graph /tmp/g4k.acsr --devices 1,2 --partition vertices --worker cta --fetch 64 --runs 3 --share $s
done
for bin in atos_prev atos; do
  b $bin pr-k22 40 --app pagerank-rescan --graph /tmp/k22.acsr --devices 1,2 --partition edges --worker cta --fetch 8 --runs 3
  b $bin sssp-k22 25 --app sssp --graph /tmp/k22.acsr --weights 100 --worker cta --fetch 64 --runs 3
  b $bin ssspp-k22 25 --app sssp-priority --graph /tmp/k22.acsr --weights 100 --worker cta --fetch 64 --runs 3
done
echo "end t=$(( $(date +%s) - t0 ))" >> "$log"
tar czf "$out/x2n.tgz" -C /tmp x2n; cp "$log" "$out/"
grep -E "^===|rc=[^0]|rror|FAIL|fail|skip|end t|^(g4k|k22|k18|kron\S*) +(atos|bfs|pagerank|sssp)" "$log" | cut -c1-150
