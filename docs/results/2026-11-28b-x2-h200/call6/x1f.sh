#!/usr/bin/env bash
# Call 6 of 2026-11-28b on one H200: Spread<T>'s table read with __ldg (atos_ldg) against this
# build (atos), --spread-one: grid:4096^2 (all blocks), grid:1024^2 (16 blocks), kron:18 (4
# blocks), kron:22 (all blocks), BFS cta/64, alternated twice.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; w=/tmp/x1f; mkdir -p "$out" "$w"; log="$w/x1f.log"
cat .gpu/BUILD.txt .gpu/BUILD_ldg.txt > "$log"
t0=$(date +%s)
left() { echo $(( ${BUDGET:-200} - ($(date +%s) - t0) )); }
b() { bin=$1; tag=$2; lim=$3; shift 3; [ "$(left)" -lt 10 ] && { echo "skip $tag" >> "$log"; return; }; [ "$lim" -gt "$(left)" ] && lim=$(left); echo "=== $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; timeout $lim .gpu/$bin bench --timeout 30 --quiet --out "$w/$bin.jsonl" "$@" >> "$log" 2>&1; echo "rc=$? $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; }
.gpu/atos graph convert grid:1024x1024 /tmp/g1k.acsr > "$w/convert.txt" 2>&1 &
.gpu/atos graph convert kron:18 /tmp/k18.acsr >> "$w/convert.txt" 2>&1 &
.gpu/atos graph convert kron:22 /tmp/k22.acsr >> "$w/convert.txt" 2>&1 &
.gpu/atos graph convert grid:4096x4096 /tmp/g4k.acsr >> "$w/convert.txt" 2>&1; wait
for round in 1 2; do
  for bin in atos atos_ldg; do
    b $bin g4k 30 --app bfs --graph /tmp/g4k.acsr --devices 1 --spread-one --worker cta --fetch 64 --runs 5 --warmup 1
    b $bin g1k-16 30 --app bfs --graph /tmp/g1k.acsr --devices 1 --spread-one --grid 16 --worker cta --fetch 64 --runs 5 --warmup 1
    b $bin k18-4 30 --app bfs --graph /tmp/k18.acsr --devices 1 --spread-one --partition edges --grid 4 --worker cta --fetch 64 --runs 3 --warmup 1
    b $bin k22 30 --app bfs --graph /tmp/k22.acsr --devices 1 --spread-one --partition edges --worker cta --fetch 64 --runs 5 --warmup 1
  done
done
echo "end t=$(( $(date +%s) - t0 ))" >> "$log"
tar czf "$out/x1f.tgz" -C /tmp x1f; cp "$log" "$out/"
grep -E "^===|rc=[^0]|rror|FAIL|skip|end t|^(g1k|g4k|k18|k22) +atos" "$log" | cut -c1-110
