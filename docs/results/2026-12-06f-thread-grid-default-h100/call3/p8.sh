#!/usr/bin/env bash
# 2026-12-06 (sixth session) call 3, one GPU, main at a5a8f55 (persistent thread-worker programs
# default to at most 2 blocks per SM): gpu_suite's DSL programs and colouring section at the
# new default grid, then thread-worker rows at the default against the full occupancy (1056 or
# 660 blocks) to show what the default now launches. Every run verified.
source scripts/device-lib.sh p8
BUDGET=${BUDGET:-200}
.gpu/atos graph convert grid:4096x4096 /tmp/g4k.acsr > "$w/convert.txt" 2>&1 &
(cd .gpu && timeout 60 ./gpu_suite --data data --dsl-only > "$w/dsl.log" 2>&1; echo "rc=$? dsl-only t=$(( $(date +%s) - device_t0 ))" >> "$w/dsl.log")
(cd .gpu && timeout 40 ./gpu_suite --coloring-only 3 > "$w/coloring.log" 2>&1; echo "rc=$? coloring t=$(( $(date +%s) - device_t0 ))" >> "$w/coloring.log")
wait
tail -2 "$w/dsl.log" >> "$log"; tail -2 "$w/coloring.log" >> "$log"
G=/tmp/g4k.acsr L=.gpu/data/luxembourg_osm.edges D=.gpu/data/delaunay_n16.edges
bench atos col 40 --app coloring --graph $G --strategy persistent,bsp --worker thread --fetch 64 --runs 3 --grid default,660
bench atos bfs 40 --app bfs --graph $L --graph $D --strategy persistent --worker thread --fetch 8 --runs 3 --grid default,1056
bench atos pr 30 --app pagerank --graph $L --epsilon 0.01 --strategy persistent --worker thread --fetch 8 --runs 3 --grid default,1056
finish
grep -E "rc=|skip|SUMMARY" "$log" | tr '\n' ' '; echo
grep -E " @" "$log" | cut -c1-150
