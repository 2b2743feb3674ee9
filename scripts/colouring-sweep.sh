#!/usr/bin/env bash
# Issue 11's asynchronous colouring retuned under stamped rings (the default on thread and warp
# workers since 2026-12-07d): the configurations around each graph's best, measured before
# stamps, with each graph's best bulk-synchronous configuration in the same call for the ratio.
# Every run verified (a proper colouring, every vertex coloured).
#
# On the device machine, from the repository root, with .gpu/ from scripts/gpu-bundle.sh and the
# shared graphs in .gpu/data; carry [".gpu"]:
#   BUDGET=330 bash scripts/colouring-sweep.sh
# Written 2026-12-07; ran in 2026-12-07d call 8 with BUDGET=125 (the meshes and kron:22 whole but
# kron-s128's thread rows, cut by its limit: thread workers on kron:22 take seconds a run, so the
# line now runs warp workers only; the grid's first row only) and call 9 (the grid's inline
# thread/16 and its BSP, on the same warm machine). Summarize:
# python3 scripts/records-summary.py DIR atos
source scripts/device-lib.sh colouring-sweep
( .gpu/atos graph convert kron:22 /tmp/k22.acsr > "$w/convert.txt" 2>&1; .gpu/atos graph convert grid:4096x4096 /tmp/g4k.acsr >> "$w/convert.txt" 2>&1 ) &
L=.gpu/data/luxembourg_osm.edges D=.gpu/data/delaunay_n16.edges
M="--app coloring --graph $L --graph $D --strategy persistent --runs 7"
bench atos meshes-s8 40 $M --split-degree 8 --worker thread --fetch 2,4,8 --grid 528
bench atos meshes-s8-warp 20 $M --split-degree 8 --worker warp --fetch 2,4 --grid 528
bench atos meshes-s4 20 $M --split-degree 4 --worker thread --fetch 4 --grid 528
bench atos meshes-s16 20 $M --split-degree 16 --worker thread --fetch 4 --grid 528
bench atos meshes-g264 20 $M --split-degree 8 --worker thread --fetch 4 --grid 264
bench atos meshes-g1056 20 $M --split-degree 8 --worker thread --fetch 4 --grid 1056
bench atos meshes-bsp 30 --app coloring --graph $L --graph $D --split-degree 8 --strategy bsp --worker warp --fetch 8 --runs 7
bench atos meshes-bsp-cta 30 --app coloring --graph $L --graph $D --strategy bsp --worker cta --fetch 32 --block 128 --runs 7
wait
K=/tmp/k22.acsr G=/tmp/g4k.acsr
bench atos kron-s128 50 --app coloring --graph $K --split-degree 128 --min-blocks 6 --strategy persistent --worker warp --fetch 4,8,16,32 --runs 5
bench atos kron-s64 20 --app coloring --graph $K --split-degree 64 --min-blocks 6 --strategy persistent --worker warp --fetch 8 --runs 5
bench atos kron-s256 20 --app coloring --graph $K --split-degree 256 --min-blocks 6 --strategy persistent --worker warp --fetch 8 --runs 5
bench atos kron-s128-mb 20 --app coloring --graph $K --split-degree 128 --strategy persistent --worker warp --fetch 8 --runs 5
bench atos kron-bsp 30 --app coloring --graph $K --strategy bsp --worker cta --fetch 64 --runs 5
bench atos grid-inline 40 --app coloring --graph $G --inline-check --strategy persistent --worker thread --fetch 8,16,32 --runs 5 --grid 264
bench atos grid-inline-g 30 --app coloring --graph $G --inline-check --strategy persistent --worker thread --fetch 16 --runs 5 --grid 132
bench atos grid-inline-g528 30 --app coloring --graph $G --inline-check --strategy persistent --worker thread --fetch 16 --runs 5 --grid 528
bench atos grid-bsp 30 --app coloring --graph $G --strategy bsp --worker thread --fetch 64 --runs 5 --grid 264
finish
grep -E "rc=|skip " "$log" | tr '\n' ' '; echo
python3 scripts/records-summary.py "$w" atos 2>&1 | cut -c1-170
