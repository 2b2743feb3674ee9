#!/usr/bin/env bash
# Call 4 of 2026-11-28b on nvidia-h200-x2: blocks per launch (--grid) against the grid's and
# kron:22's BFS time, one GPU (plain and --spread-one) and 2 GPUs in the same bench runs
# (atos, 90db3d3). The spread unit takes 40 registers (6 blocks per SM, 792) where the plain
# one takes 32 (8 per SM, 1056); the build without the remote stage (48 registers, 660
# blocks) ran the spread grid 7% faster in call 3.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; w=/tmp/x2d; mkdir -p "$out" "$w"; log="$w/x2d.log"
cat .gpu/BUILD.txt > "$log"
t0=$(date +%s)
left() { echo $(( ${BUDGET:-300} - ($(date +%s) - t0) )); }
b() { bin=$1; tag=$2; lim=$3; shift 3; [ "$(left)" -lt 15 ] && { echo "skip $tag" >> "$log"; return; }; [ "$lim" -gt "$(left)" ] && lim=$(left); echo "=== $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; timeout $lim .gpu/$bin bench --timeout 30 --quiet --out "$w/$bin.jsonl" "$@" >> "$log" 2>&1; echo "rc=$? $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; }
.gpu/atos graph convert kron:22 /tmp/k22.acsr > "$w/convert.txt" 2>&1 &
.gpu/atos graph convert grid:4096x4096 /tmp/g4k.acsr >> "$w/convert.txt" 2>&1; wait
for g in 792 528 264 132 660 396; do
  b atos grid-$g 40 --app bfs --graph /tmp/g4k.acsr --devices 1,2 --spread-one --partition vertices --grid $g --worker cta --fetch 64 --runs 5 --warmup 1
done
b atos grid-1056 40 --app bfs --graph /tmp/g4k.acsr --devices 1 --grid 1056 --worker cta --fetch 64 --runs 5 --warmup 1
for g in 792 528 264; do
  b atos k22-$g 40 --app bfs --graph /tmp/k22.acsr --devices 1,2 --partition edges --aggregation 1024:20 --grid $g --worker cta --fetch 64 --runs 5 --warmup 1
done
for g in 660 396; do
  b atos_nostage grid-$g 40 --app bfs --graph /tmp/g4k.acsr --devices 1,2 --spread-one --partition vertices --grid $g --worker cta --fetch 64 --runs 5 --warmup 1
done
echo "end t=$(( $(date +%s) - t0 ))" >> "$log"
tar czf "$out/x2d.tgz" -C /tmp x2d; cp "$log" "$out/"
grep -E "^===|^rc=|rror|FAIL|skip|end t|^(g4k|k22) +atos" "$log" | cut -c1-130
