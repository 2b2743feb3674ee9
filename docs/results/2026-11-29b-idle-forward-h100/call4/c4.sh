#!/usr/bin/env bash
# 2026-11-29 (second session) call 4 (one H100): smaller spread units. `atos` (work tree on
# adb07dc: system-scope atomics told their address is global, owner_of's device loop not
# unrolled, report_overflow out of line: BFS's spread unit 12,304 -> 9,360 SASS instructions)
# against `atos_base` (edeaabf), alternated, 2 rounds: BFS and PageRank, the one-device program
# and the spread program on one device (`--spread-one`); then gpu_suite's spread checks on 2
# devices sharing the H100 (every `Atomics` operation of every type, spread).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; w=/tmp/c4; mkdir -p "$out" "$w"; log="$w/c4.log"
cat .gpu/BUILD_base.txt .gpu/BUILD.txt > "$log"; nvidia-smi -L >> "$log"
t0=$(date +%s)
left() { echo $(( ${BUDGET:-480} - ($(date +%s) - t0) )); }
b() { bin=$1; tag=$2; lim=$3; shift 3; [ "$(left)" -lt 10 ] && { echo "skip $tag" >> "$log"; return; }; [ "$lim" -gt "$(left)" ] && lim=$(left); echo "=== $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; timeout $lim .gpu/$bin bench --timeout 30 --warmup 1 --out "$w/$tag.jsonl" "$@" >> "$log" 2>&1; echo "rc=$? $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; }
(cd .gpu && timeout 280 ./gpu_suite --spread-features --spread-devices 2 > "$w/spread2.log" 2>&1; echo "rc=$? t=$(( $(date +%s) - t0 ))" >> "$w/spread2.log") &
.gpu/atos graph convert kron:22 /tmp/k22.acsr > "$w/convert.txt" 2>&1 &
.gpu/atos graph convert grid:4096x4096 /tmp/g4k.acsr >> "$w/convert.txt" 2>&1 &
wait
echo "suite end t=$(( $(date +%s) - t0 ))" >> "$log"
for r in 1 2; do for bin in atos_base atos; do
  b $bin bfs-$bin-$r 60 --app bfs --graph /tmp/g4k.acsr --graph /tmp/k22.acsr --graph .gpu/data/luxembourg_osm.edges --strategy persistent --worker cta --fetch 64 --runs 5 --spread-one
  b $bin pr-$bin-$r 50 --app pagerank-rescan --graph /tmp/k22.acsr --graph .gpu/data/luxembourg_osm.edges --epsilon 0.01 --strategy persistent --worker cta --fetch 8 --runs 3 --spread-one
done; done
echo "bench end t=$(( $(date +%s) - t0 ))" >> "$log"
tar czf "$out/c4.tgz" -C /tmp c4; cp "$log" "$w"/spread2.log "$out/"
grep -E "^===|rc=[^0]|rror|WRONG|skip|end t|^(k22|g4k|kron-\S+|luxembourg\S*|delaunay\S*) +atos" "$log" | cut -c1-130
grep -E "SUMMARY|FAIL|rc=" "$w"/spread2.log | head -20
