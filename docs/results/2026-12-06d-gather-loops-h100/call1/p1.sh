#!/usr/bin/env bash
# 2026-12-06 (fourth session) call 1, one GPU: the mends never run on a GPU (36db276, 581794a:
# every worker's each(), the feature task's u8/u16 loops, gpu_suite's coloring_split section)
# checked by gpu_suite, then 581794a (.gpu/atos) against the last session's call-7 build
# (.gpu/atos_prev) on colouring (plain and split) and BFS, alternated, two rounds. Every run verified.
source scripts/device-lib.sh p1
BUDGET=${BUDGET:-420}
.gpu/atos graph convert kron:22 /tmp/k22.acsr > "$w/convert.txt" 2>&1 &
(cd .gpu && timeout 170 ./gpu_suite --data data --runs 1 --stress 40 --program-stress 100 --flag-tasks 200000 --graph kron:16 --only thread/1,warp/8,cta/64 > "$w/suite.log" 2>&1; echo "rc=$? suite t=$(( $(date +%s) - device_t0 ))" >> "$w/suite.log")
(cd .gpu && timeout 60 ./gpu_suite --priority-only > "$w/priority.log" 2>&1; echo "rc=$? priority" >> "$w/priority.log")
(cd .gpu && timeout 60 ./gpu_suite --spread-features --spread-devices 2 > "$w/spread.log" 2>&1; echo "rc=$? spread" >> "$w/spread.log")
wait
K=/tmp/k22.acsr L=.gpu/data/luxembourg_osm.edges D=.gpu/data/delaunay_n16.edges
for round in 1 2; do
for bin in atos_prev atos; do
  bench $bin col-kron 30 --app coloring --graph $K --strategy persistent,bsp --worker cta --fetch 64 --runs 3
  bench $bin split-kron 30 --app coloring --graph $K --strategy persistent --worker warp --fetch 8 --runs 3 --split-degree 128 --min-blocks 6
  bench $bin col-mesh 20 --app coloring --graph $L --graph $D --strategy persistent --worker cta,warp --fetch 32,8 --block 128 --runs 5
  bench $bin bfs 30 --app bfs --graph $K --graph grid:4096x4096 --graph $L --strategy persistent --worker cta --fetch 64 --runs 3
done
done
finish
grep -E "rc=|skip" "$log" | tr '\n' ' '; echo
for f in suite priority spread; do echo "== $f"; grep -E "SUMMARY|FAIL|rc=" "$w/$f.log" | head -12; done
grep -iE "split|u8|u16|feature" "$w/suite.log" | head -12
python3 scripts/records-summary.py "$w"
