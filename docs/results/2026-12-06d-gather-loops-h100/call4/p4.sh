#!/usr/bin/env bash
# 2026-12-06 (fourth session) call 4, one GPU: held pushes for thread groups with a constructor
# that leaves the hold uninitialized (call 3's build zeroed it at every launch), HOLD 16
# (.gpu/atos) and HOLD 8 (.gpu/atos_h8), against 581794a (.gpu/atos_prev), alternated, two
# rounds; gpu_suite --coloring-only 10 on the HOLD 16 build first. Every run verified.
source scripts/device-lib.sh p4
BUDGET=${BUDGET:-400}
(cd .gpu && timeout 120 ./gpu_suite --coloring-only 10 > "$w/suite.log" 2>&1; echo "rc=$? suite t=$(( $(date +%s) - device_t0 ))" >> "$w/suite.log")
L=.gpu/data/luxembourg_osm.edges D=.gpu/data/delaunay_n16.edges
for round in 1 2; do
for bin in atos_prev atos atos_h8; do
  bench $bin grid 40 --app coloring --graph grid:4096x4096 --strategy persistent,discrete,bsp --worker thread --fetch 64 --runs 5
  bench $bin mesh 30 --app coloring --graph $L --graph $D --strategy persistent,discrete,bsp --worker thread --fetch 64,8 --runs 5
done
done
finish
grep -E "rc=|skip" "$log" | tr '\n' ' '; echo
grep -E "SUMMARY|WRONG|rc=" "$w/suite.log" | head -10
python3 scripts/records-summary.py "$w" atos_prev atos atos_h8
