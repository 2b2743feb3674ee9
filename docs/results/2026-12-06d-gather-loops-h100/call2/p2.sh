#!/usr/bin/env bash
# 2026-12-06 (fourth session) call 2, one GPU: `lanes` loops that read, then act (the gather
# form: leading reads of 4 strides at once, then the rest per stride), .gpu/atos, against
# 581794a (.gpu/atos_prev), alternated, two rounds; gpu_suite on the new build first.
source scripts/device-lib.sh p2
BUDGET=${BUDGET:-480}
.gpu/atos graph convert kron:22 /tmp/k22.acsr > "$w/convert.txt" 2>&1 &
(cd .gpu && timeout 150 ./gpu_suite --data data --runs 1 --stress 20 --program-stress 60 --flag-tasks 20000 --graph kron:16 --only cta/64,warp/8 --strategies persistent > "$w/suite.log" 2>&1; echo "rc=$? suite t=$(( $(date +%s) - device_t0 ))" >> "$w/suite.log")
wait
K=/tmp/k22.acsr L=.gpu/data/luxembourg_osm.edges D=.gpu/data/delaunay_n16.edges
for round in 1 2; do
for bin in atos_prev atos; do
  bench $bin col-kron 30 --app coloring --graph $K --strategy persistent,bsp --worker cta --fetch 64 --runs 3
  bench $bin split-kron 30 --app coloring --graph $K --strategy persistent --worker warp --fetch 8 --runs 3 --split-degree 128 --min-blocks 6
  bench $bin col-mesh 20 --app coloring --graph $L --graph $D --strategy persistent,bsp --worker cta --fetch 32 --block 128 --runs 5
  bench $bin bfs 30 --app bfs --graph $K --graph grid:4096x4096 --graph $L --strategy persistent --worker cta --fetch 64 --runs 3
  bench $bin pr 30 --app pagerank-rescan --graph $K --epsilon 0.01 --strategy persistent --worker cta --fetch 8 --runs 3
  bench $bin sssp 30 --app sssp-priority --graph kron:22,w=1000 --strategy persistent --worker cta --fetch 64 --runs 3
done
done
finish
grep -E "rc=|skip" "$log" | tr '\n' ' '; echo
grep -E "SUMMARY|FAIL|fail|rc=|stress:" "$w/suite.log" | head -12
python3 scripts/records-summary.py "$w"
