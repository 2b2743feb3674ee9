#!/usr/bin/env bash
# 2026-12-06 (fourth session) call 5, one GPU: main at 138bd65 (.gpu/atos; held pushes for
# persistent thread groups, hold 8) against 581794a (.gpu/atos_prev). gpu_suite --coloring-only
# 20; the whole gpu_suite with short stress (call 1's was cut in its termination stress); then
# colouring on thread workers, one round, to see the discrete and BSP forms as they were. Every
# run verified.
source scripts/device-lib.sh p5
BUDGET=${BUDGET:-420}
(cd .gpu && timeout 100 ./gpu_suite --coloring-only 20 > "$w/coloring.log" 2>&1; echo "rc=$? coloring t=$(( $(date +%s) - device_t0 ))" >> "$w/coloring.log")
(cd .gpu && timeout 200 ./gpu_suite --data data --runs 1 --stress 40 --program-stress 60 --flag-tasks 20000 --graph kron:16 --only thread/1,warp/8,cta/64 --strategies persistent > "$w/suite.log" 2>&1; echo "rc=$? suite t=$(( $(date +%s) - device_t0 ))" >> "$w/suite.log")
L=.gpu/data/luxembourg_osm.edges D=.gpu/data/delaunay_n16.edges
for bin in atos_prev atos; do
  bench $bin grid 40 --app coloring --graph grid:4096x4096 --strategy persistent,discrete,bsp --worker thread --fetch 64 --runs 5
  bench $bin mesh 30 --app coloring --graph $L --graph $D --strategy persistent,discrete,bsp --worker thread --fetch 64,8 --runs 5
done
finish
grep -E "rc=|skip" "$log" | tr '\n' ' '; echo
grep -E "SUMMARY|WRONG|rc=|stress:" "$w/coloring.log" "$w/suite.log" | head -12
python3 scripts/records-summary.py "$w"
