#!/usr/bin/env bash
# 2026-11-29 call 2 (one H100): k-core A/B, main 92a3adc (.gpu/atos_prev) against 5710197
# (.gpu/atos: peel balanced) on the graphs of docs/results/2026-11-24b-kcore-window-h100.md,
# with more workers on small graphs for coverage; then BFS against the original Atos at 5710197
# on the three graphs of docs/results/2026-11-23b-bfs-original-h100.md (its first run since
# shared ranges and the bench's share_for). Every atos run verified.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; w=/tmp/c2; mkdir -p "$out" "$w"; log="$w/c2.log"
cat .gpu/BUILD_prev.txt .gpu/BUILD.txt > "$log"; nvidia-smi -L >> "$log"
t0=$(date +%s)
left() { echo $(( ${BUDGET:-560} - ($(date +%s) - t0) )); }
b() { bin=$1; tag=$2; lim=$3; shift 3; [ "$(left)" -lt 10 ] && { echo "skip $tag" >> "$log"; return; }; [ "$lim" -gt "$(left)" ] && lim=$(left); echo "=== $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; timeout $lim .gpu/$bin bench --timeout 30 --warmup 1 --out "$w/$bin.jsonl" "$@" >> "$log" 2>&1; echo "rc=$? $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; }
(cd .gpu && bash atos-original.sh build orig > "$w/orig-build.log" 2>&1) &
.gpu/atos graph convert kron:22 /tmp/k22.acsr > "$w/convert.txt" 2>&1 &
.gpu/atos graph convert grid:4096x4096 /tmp/g4k.acsr >> "$w/convert.txt" 2>&1 &
.gpu/atos graph convert kron:20 /tmp/k20.acsr >> "$w/convert.txt" 2>&1 &
wait
echo "prepared t=$(( $(date +%s) - t0 ))" >> "$log"
K="--app kcore --strategy persistent,bsp --worker cta --fetch 8 --runs 3"
for r in 1 2; do for bin in atos_prev atos; do
  b $bin kcore-$r 70 $K --graph kron:16 --graph kron:18 --graph /tmp/k20.acsr --graph /tmp/g4k.acsr --graph .gpu/data/luxembourg_osm.edges --graph .gpu/data/delaunay_n16.edges
done; done
for bin in atos_prev atos; do
  b $bin kcore-workers 50 --app kcore --strategy persistent,discrete,bsp --worker warp,cta --fetch 4,64 --runs 3 --graph kron:16 --graph .gpu/data/luxembourg_osm.edges
done
b atos bfs-orig 200 --app bfs --graph /tmp/g4k.acsr --graph /tmp/k22.acsr --graph .gpu/data/luxembourg_osm.edges --strategy persistent,discrete --worker cta --fetch 64 --runs 5 --compare-original .gpu/orig --original-runs 3
echo "end t=$(( $(date +%s) - t0 ))" >> "$log"
cp "$w/orig-build.log" "$out/" 2>/dev/null
tar czf "$out/c2.tgz" -C /tmp c2; cp "$log" "$out/"
grep -E "^===|rc=[^0]|rror|WRONG|skip|end t|prepared|shared ranges off|^(k22|g4k|k20|kron-\S+|luxembourg\S*|delaunay\S*) +(atos|original)" "$log" | cut -c1-150
