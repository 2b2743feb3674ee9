#!/usr/bin/env bash
# 2026-12-06 (seventh session) call 1, one GPU. .gpu/atos: main at df303e6 plus bulk-synchronous
# units no longer emitting colouring's trailing fence (TrailingFence::Elided); .gpu/atos_prev:
# df303e6. 1. issue 11's colouring rows, BSP with and without the fence alternated (2 rounds),
# the async rows with the new build (persistent code unchanged); kron:22's split against
# .gpu/atos_wide (545999e plus assign_big on 256-colour windows), alternated; 2. small-graph colouring over
# worker kinds and fetch sizes (thread fetch 1 and 4 never measured), plain and split, with
# timelines; 3. the whole gpu_suite (not run since ea90971). Every run verified.
source scripts/device-lib.sh p9
BUDGET=${BUDGET:-560}
( .gpu/atos graph convert grid:4096x4096 /tmp/g4k.acsr > "$w/convert.txt" 2>&1; .gpu/atos graph convert kron:22 /tmp/k22.acsr >> "$w/convert.txt" 2>&1 ) &
L=.gpu/data/luxembourg_osm.edges D=.gpu/data/delaunay_n16.edges
bench atos small 120 --app coloring --graph $L --graph $D --strategy persistent,bsp --worker thread,warp,cta --fetch 1,4,8,16 --runs 5
wait
G=/tmp/g4k.acsr K=/tmp/k22.acsr
for r in 1 2; do
  for b in atos_prev atos; do
    bench $b bk$r 30 --app coloring --graph $K --strategy bsp --worker cta --fetch 64 --runs 3
    bench $b bg$r 30 --app coloring --graph $G --strategy bsp --worker thread --fetch 64 --runs 3 --grid 264
    bench $b bm$r 20 --app coloring --graph $L --graph $D --strategy bsp --worker cta --fetch 32 --block 128 --runs 5
    bench $b bs$r 20 --app coloring --graph $L --graph $D --strategy bsp --split-degree 8 --worker warp --fetch 8 --runs 5
  done
done
for r in 1 2; do
  for b in atos atos_wide; do
    bench $b wk$r 40 --app coloring --graph $K --split-degree 128 --min-blocks 6 --strategy persistent,bsp --worker warp --fetch 8 --runs 3
  done
done
bench atos ak 40 --app coloring --graph $K --split-degree 128 --min-blocks 6 --strategy persistent --worker warp --fetch 8 --runs 3 --timeline
bench atos_wide akw 40 --app coloring --graph $K --split-degree 128 --min-blocks 6 --strategy persistent --worker warp --fetch 8 --runs 3 --timeline
bench atos ag 20 --app coloring --graph $G --strategy persistent --worker thread --fetch 64 --runs 3 --grid 264 --timeline
bench atos as 20 --app coloring --graph $L --graph $D --split-degree 8 --strategy persistent --worker warp --fetch 8 --runs 5 --timeline
bench atos split 60 --app coloring --graph $L --graph $D --split-degree 8 --strategy persistent,bsp --worker thread,warp --fetch 1,4 --runs 5
lim=$(( $(left) - 12 ))
(cd .gpu && timeout $lim ./gpu_suite --data data > "$w/suite.log" 2>&1; echo "rc=$? suite t=$(( $(date +%s) - device_t0 ))" >> "$w/suite.log")
tail -4 "$w/suite.log" >> "$log"
finish
grep -E "rc=|skip" "$log" | tr '\n' ' '; echo
python3 scripts/records-summary.py "$w" atos_prev atos atos_wide 2>&1 | cut -c1-170
