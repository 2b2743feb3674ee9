#!/usr/bin/env bash
# 2026-12-06 (fifth session) call 1, one GPU.
# (a) Does colouring on thread workers lose to L2 thrashing? grid:4096x4096 colouring,
#     thread/64, three strategies, at the default grid and at 264 and 132 blocks (--grid);
#     ncu's DRAM bytes and L2 hit rate of the persistent kernel at those grids; kron:22's split
#     at fewer blocks.
# (b) Held pushes published in one reservation per flush (push_lanes_many; .gpu/atos), and the
#     same with discrete and BSP thread groups holding too (.gpu/atos_all), against main
#     (.gpu/atos_prev), alternated, two rounds. Every run verified.
source scripts/device-lib.sh p1
BUDGET=${BUDGET:-540}
.gpu/atos graph convert grid:4096x4096 /tmp/g4k.acsr > "$w/convert.txt" 2>&1 &
.gpu/atos graph convert kron:22 /tmp/k22.acsr >> "$w/convert.txt" 2>&1 &
wait
G=/tmp/g4k.acsr K=/tmp/k22.acsr
L=.gpu/data/luxembourg_osm.edges D=.gpu/data/delaunay_n16.edges
(cd .gpu && timeout 60 ./gpu_suite --coloring-only 5 > "$w/suite.log" 2>&1; echo "rc=$? suite t=$(( $(date +%s) - device_t0 ))" >> "$w/suite.log")
for round in 1 2; do
for bin in atos_prev atos atos_all; do
  bench $bin grid 40 --app coloring --graph $G --strategy persistent,discrete,bsp --worker thread --fetch 64 --runs 5
  bench $bin mesh 30 --app coloring --graph $L --graph $D --strategy persistent,discrete,bsp --worker thread --fetch 64,8 --runs 5
done
done
for g in 264 132; do
  bench atos grid-g$g 40 --app coloring --graph $G --strategy persistent,discrete,bsp --worker thread --fetch 64 --runs 3 --grid $g
done
for g in 396 264; do
  bench atos kron-split-g$g 40 --app coloring --graph $K --split-degree 128 --min-blocks 6 --strategy persistent --worker warp --fetch 8 --runs 3 --grid $g
done
bench atos kron-split 40 --app coloring --graph $K --split-degree 128 --min-blocks 6 --strategy persistent --worker warp --fetch 8 --runs 3
prof() {  # TAG KERNEL-REGEX ARGS...
  local tag=$1 k=$2; shift 2
  [ "$(left)" -lt 25 ] && { echo "skip ncu $tag" >> "$log"; return; }
  echo "=== ncu $tag (t=$(($(date +%s) - device_t0)) s)" >> "$log"
  timeout $(( $(left) - 5 )) ncu --kernel-name "regex:$k" --launch-count 1 \
    --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,lts__t_bytes.sum,l1tex__t_sector_hit_rate.pct,sm__warps_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed \
    .gpu/atos bench --warmup 0 --runs 1 --timeout 60 "$@" > "$w/$tag.ncu.txt" 2>&1
  echo "rc=$? ncu $tag (t=$(($(date +%s) - device_t0)) s)" >> "$log"
}
prof grid-pt64 atos_assign_persistent --app coloring --graph $G --strategy persistent --worker thread --fetch 64
prof grid-pt64-g264 atos_assign_persistent --app coloring --graph $G --strategy persistent --worker thread --fetch 64 --grid 264
prof grid-pt64-g132 atos_assign_persistent --app coloring --graph $G --strategy persistent --worker thread --fetch 64 --grid 132
finish
grep -E "rc=|skip" "$log" | tr '\n' ' '; echo
grep -E "SUMMARY|WRONG|FAIL|rc=" "$w/suite.log" | head -10
for f in $w/*.ncu.txt; do echo "## $f"; grep -E "gpu__time|dram__|lts__|l1tex__|sm__warps" $f | head -12; done
python3 scripts/records-summary.py "$w" atos_prev atos atos_all
