#!/usr/bin/env bash
# 2026-12-06 (fourth session) call 3, one GPU: thread groups hold their fenced pushes and fence
# once per batch (atos::HeldPusher, ThreadFenceDebt; .gpu/atos) against 581794a
# (.gpu/atos_prev). gpu_suite --coloring-only 10 (the split, then the plain program on thread
# workers: 10 runs of each strategy x fetch 1/8/64 on kron:14 and grid:256x256, every colouring
# proper and complete); then colouring on thread workers, alternated, two rounds. Every run verified.
source scripts/device-lib.sh p3
BUDGET=${BUDGET:-420}
(cd .gpu && timeout 120 ./gpu_suite --coloring-only 10 > "$w/suite.log" 2>&1; echo "rc=$? suite t=$(( $(date +%s) - device_t0 ))" >> "$w/suite.log")
L=.gpu/data/luxembourg_osm.edges D=.gpu/data/delaunay_n16.edges
for round in 1 2; do
for bin in atos_prev atos; do
  bench $bin grid 40 --app coloring --graph grid:4096x4096 --strategy persistent,discrete,bsp --worker thread --fetch 64 --runs 5
  bench $bin mesh 30 --app coloring --graph $L --graph $D --strategy persistent,discrete,bsp --worker thread --fetch 64,8 --runs 5
done
done
finish
grep -E "rc=|skip" "$log" | tr '\n' ' '; echo
grep -E "SUMMARY|WRONG|rc=|thread/" "$w/suite.log" | head -40
python3 scripts/records-summary.py "$w"
