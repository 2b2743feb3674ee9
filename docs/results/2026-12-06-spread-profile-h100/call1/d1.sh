#!/usr/bin/env bash
# 2026-12-06 call 1 (one GPU): (1) gpu_suite --spread-features on 2 devices sharing the GPU
# (first GPU run of the idle_forwarding check); (2) BFS and PageRank re-scan, one-GPU unit and
# spread unit on one device (--spread-one), committed build (.gpu/atos) against an experiment
# (.gpu/atos_exp: own range and device index known at compile time, valid on one device only),
# alternated; (3) Nsight Compute source counters, plain vs spread-one, grid:1024^2, 16 blocks.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; w=/tmp/d1; mkdir -p "$out" "$w"; log="$w/d1.log"
cat .gpu/BUILD.txt .gpu/BUILD_exp.txt > "$log"; nvidia-smi -L >> "$log"
t0=$(date +%s)
left() { echo $(( ${BUDGET:-540} - ($(date +%s) - t0) )); }
b() { bin=$1; tag=$2; lim=$3; shift 3; [ "$(left)" -lt 10 ] && { echo "skip $tag" >> "$log"; return; }; [ "$lim" -gt "$(left)" ] && lim=$(left); echo "=== $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; timeout $lim .gpu/$bin bench --timeout 30 --warmup 1 --out "$w/$bin.jsonl" "$@" >> "$log" 2>&1; echo "rc=$? $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; }
.gpu/atos graph convert kron:22 /tmp/k22.acsr > "$w/convert.txt" 2>&1 &
.gpu/atos graph convert grid:4096x4096 /tmp/g4k.acsr >> "$w/convert.txt" 2>&1 &
.gpu/atos graph convert grid:1024x1024 /tmp/g1k.acsr >> "$w/convert.txt" 2>&1 &
(cd .gpu && timeout 200 ./gpu_suite --data data --spread-features --spread-devices 2 > "$w/spread.log" 2>&1; echo "rc=$? t=$(( $(date +%s) - t0 ))" >> "$w/spread.log")
wait
echo "suite end t=$(( $(date +%s) - t0 ))" >> "$log"
for r in 1 2; do for bin in atos atos_exp; do
  b $bin bfs-$r 70 --app bfs --graph /tmp/g4k.acsr --graph /tmp/k22.acsr --graph .gpu/data/luxembourg_osm.edges --strategy persistent --worker cta --fetch 64 --runs 5 --spread-one
  b $bin pr-$r 40 --app pagerank-rescan --graph /tmp/k22.acsr --epsilon 0.01 --strategy persistent --worker cta --fetch 8 --runs 3 --spread-one
done; done
echo "bench end t=$(( $(date +%s) - t0 ))" >> "$log"
export ATOS_NVRTC_LINEINFO=1
for mode in plain spread; do
  extra=(); [ $mode = spread ] && extra=(--spread-one)
  # --spread-one runs the plain unit first (warm-up + 1 run = launches 1-2), then the spread unit (3-4)
  skip=1; [ $mode = spread ] && skip=3
  [ "$(left)" -lt 40 ] && { echo "skip ncu $mode" >> "$log"; continue; }
  timeout $(( $(left) - 5 )) ncu --launch-skip $skip --launch-count 1 --section SourceCounters --section InstructionStats --section WarpStateStats -o "$w/ncu_$mode" -f .gpu/atos bench --app bfs --graph /tmp/g1k.acsr --strategy persistent --worker cta --fetch 64 --grid 16 --runs 1 --warmup 1 --timeout 120 --quiet --spread-one >> "$w/ncu.log" 2>&1
  echo "rc=$? ncu $mode t=$(( $(date +%s) - t0 ))" >> "$log"
  ncu -i "$w/ncu_$mode.ncu-rep" --page source --csv --print-source sass > "$w/src_$mode.csv" 2>> "$w/ncu.log" || ncu -i "$w/ncu_$mode.ncu-rep" --page source --csv > "$w/src_$mode.csv" 2>> "$w/ncu.log"
  ncu -i "$w/ncu_$mode.ncu-rep" --page details > "$w/details_$mode.txt" 2>> "$w/ncu.log"
done
tar czf "$out/d1.tgz" -C /tmp d1; cp "$log" "$w/spread.log" "$out/"
grep -E "^===|rc=[^0]|rror|WRONG|skip|end t|^(k22|g4k|g1k|luxembourg\S*) +atos" "$log" | cut -c1-170
grep -E "SUMMARY|FAIL|idle|rc=" "$w/spread.log" | head -20
ls -la $w | head -30; head -c 600 $w/src_spread.csv
