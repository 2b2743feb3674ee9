#!/usr/bin/env bash
# 2026-11-29 (second session) call 3 (one H100), edeaabf: (a) the spread unit's register bound
# on one device: `--spread-one` at the default (5 blocks per SM for spread units) against
# `--min-blocks 8` (the one-device program's bound), alternated; (b) gpu_suite's spread checks
# on 2 devices sharing the H100 again (call 2's were cut by its 150 s limit while NVRTC filled
# a cold kernel cache).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; w=/tmp/c3; mkdir -p "$out" "$w"; log="$w/c3.log"
cat .gpu/BUILD.txt > "$log"; nvidia-smi -L >> "$log"
t0=$(date +%s)
left() { echo $(( ${BUDGET:-480} - ($(date +%s) - t0) )); }
b() { bin=$1; tag=$2; lim=$3; shift 3; [ "$(left)" -lt 10 ] && { echo "skip $tag" >> "$log"; return; }; [ "$lim" -gt "$(left)" ] && lim=$(left); echo "=== $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; timeout $lim .gpu/$bin bench --timeout 30 --warmup 1 --out "$w/$tag.jsonl" "$@" >> "$log" 2>&1; echo "rc=$? $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; }
(cd .gpu && timeout 300 ./gpu_suite --spread-features --spread-devices 2 > "$w/spread2.log" 2>&1; echo "rc=$? t=$(( $(date +%s) - t0 ))" >> "$w/spread2.log") &
.gpu/atos graph convert kron:22 /tmp/k22.acsr > "$w/convert.txt" 2>&1 &
.gpu/atos graph convert grid:4096x4096 /tmp/g4k.acsr >> "$w/convert.txt" 2>&1 &
wait
echo "suite end t=$(( $(date +%s) - t0 ))" >> "$log"
for r in 1 2; do
  b atos bound5-$r 60 --app bfs --graph /tmp/g4k.acsr --graph /tmp/k22.acsr --graph .gpu/data/luxembourg_osm.edges --strategy persistent --worker cta --fetch 64 --runs 5 --spread-one
  b atos bound8-$r 60 --app bfs --graph /tmp/g4k.acsr --graph /tmp/k22.acsr --graph .gpu/data/luxembourg_osm.edges --strategy persistent --worker cta --fetch 64 --runs 5 --spread-one --min-blocks 8
done
echo "bench end t=$(( $(date +%s) - t0 ))" >> "$log"
tar czf "$out/c3.tgz" -C /tmp c3; cp "$log" "$w"/spread2.log "$out/"
grep -E "^===|rc=[^0]|rror|WRONG|skip|end t|^(k22|g4k|kron-\S+|luxembourg\S*|delaunay\S*) +atos" "$log" | cut -c1-160
grep -E "SUMMARY|FAIL|rc=" "$w"/spread2.log | head -20
