#!/usr/bin/env bash
# Call 5 of 2026-11-28b on one H200: the spread program's cost per batch apart from polling:
# BFS on grid:1024^2 with 1, 4 and 16 blocks (few groups, no crowd polling the rings), plain
# and --spread-one, this build (atos) and the one without the remote stage (atos_nostage).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; w=/tmp/x1e; mkdir -p "$out" "$w"; log="$w/x1e.log"
cat .gpu/BUILD.txt .gpu/BUILD_nostage.txt > "$log"
t0=$(date +%s)
left() { echo $(( ${BUDGET:-200} - ($(date +%s) - t0) )); }
b() { bin=$1; tag=$2; lim=$3; shift 3; [ "$(left)" -lt 10 ] && { echo "skip $tag" >> "$log"; return; }; [ "$lim" -gt "$(left)" ] && lim=$(left); echo "=== $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; timeout $lim .gpu/$bin bench --timeout 30 --quiet --out "$w/$bin.jsonl" "$@" >> "$log" 2>&1; echo "rc=$? $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; }
.gpu/atos graph convert grid:1024x1024 /tmp/g1k.acsr > "$w/convert.txt" 2>&1
.gpu/atos graph convert kron:18 /tmp/k18.acsr >> "$w/convert.txt" 2>&1
for round in 1 2; do
  for bin in atos atos_nostage; do
    for g in 1 4 16; do
      b $bin g1k-$g 30 --app bfs --graph /tmp/g1k.acsr --devices 1 --spread-one --grid $g --worker cta --fetch 64 --runs 3 --warmup 1
    done
    b $bin k18-4 30 --app bfs --graph /tmp/k18.acsr --devices 1 --spread-one --partition edges --grid 4 --worker cta --fetch 64 --runs 3 --warmup 1
  done
done
echo "end t=$(( $(date +%s) - t0 ))" >> "$log"
tar czf "$out/x1e.tgz" -C /tmp x1e; cp "$log" "$out/"
grep -E "^===|rc=[^0]|rror|FAIL|skip|end t|^(g1k|k18) +atos" "$log" | cut -c1-110
