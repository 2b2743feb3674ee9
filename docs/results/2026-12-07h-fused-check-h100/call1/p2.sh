#!/usr/bin/env bash
# Prepared 2026-12-07 (session 17, no device lent): the first GPU runs of coloring::split_fused
# (--fused-check), against the split it replaces, alternated in one call, every run verified.
# ptxas on the CPU (NVRTC 13.0, sm_90, unchecked) for kron:22's units (warp/8, CTA check/64,
# CTA assign_big/1): split at min blocks 6 40 regs with 1660 B spill stores (share off: 332),
# at 5 48 regs with 612; fused at 6 40 regs with 124, at 5 48 regs with 28. Hence the
# --share off and --min-blocks 5 lines.
#   bash .gpu/s/p2.sh (as run; kept here as call1/p2.sh)    (carry [".gpu"]; .gpu/atos built by scripts/gpu-bundle.sh at 1229175 or later)
source scripts/device-lib.sh p2
BUDGET=${BUDGET:-540}
( .gpu/atos graph convert kron:22 /tmp/k22.acsr > "$w/convert.txt" 2>&1; .gpu/atos graph convert grid:4096x4096 /tmp/g4k.acsr >> "$w/convert.txt" 2>&1 ) &
# Correctness first: the colouring sections (split_fused on kron:14 and a clique of 600 included).
timeout 150 .gpu/gpu_suite --coloring-only 1 > "$w/suite-coloring.log" 2>&1; echo "rc=$? suite coloring (t=$(($(date +%s) - device_t0)))" >> "$log"
wait
K=/tmp/k22.acsr G=/tmp/g4k.acsr L=.gpu/data/luxembourg_osm.edges D=.gpu/data/delaunay_n16.edges
S="--app coloring --graph $K --split-degree 4096 --strategy persistent --worker warp --runs 5"
for round in 1 2; do
  bench atos split-w8-r$round 30 $S --fetch 8 --min-blocks 6
  bench atos fused-w8-r$round 30 $S --fetch 8 --min-blocks 6 --fused-check
done
bench atos fused-w16 30 $S --fetch 16 --min-blocks 6 --fused-check
bench atos fused-w32 30 $S --fetch 32 --min-blocks 6 --fused-check
bench atos fused-w8-mb5 30 $S --fetch 8 --min-blocks 5 --fused-check
bench atos fused-w8-mb8 30 $S --fetch 8 --min-blocks 8 --fused-check
bench atos split-w8-noshare 30 $S --fetch 8 --min-blocks 6 --share off
bench atos split-w8-mb5 30 $S --fetch 8 --min-blocks 5
bench atos split-w8-mb5-noshare 30 $S --fetch 8 --min-blocks 5 --share off
bench atos bsp-cta64 30 --app coloring --graph $K --strategy bsp --worker cta --fetch 64 --runs 3
M="--app coloring --graph $L --graph $D --split-degree 8 --strategy persistent --worker thread --fetch 4 --min-blocks 4 --runs 5"
bench atos meshes-split 30 $M
bench atos meshes-fused 30 $M --fused-check
bench atos grid-inline 30 --app coloring --graph $G --inline-check --strategy persistent --worker thread --fetch 16 --runs 5 --grid 264
bench atos grid-fused 30 --app coloring --graph $G --split-degree 8 --fused-check --strategy persistent --worker thread --fetch 16 --runs 5 --grid 264
bench atos fused-w8-timeline 30 $S --fetch 8 --min-blocks 6 --fused-check --timeline
bench atos split-w8-timeline 30 $S --fetch 8 --min-blocks 6 --timeline
finish
grep -E "rc=|skip" "$log" | tr '\n' ' '; echo
grep -E "SUMMARY|WRONG|== colouring split" "$w/suite-coloring.log" | cut -c1-160 | head -20
python3 scripts/records-summary.py "$w" 2>&1 | cut -c1-220
python3 scripts/timeline-tail.py "$w/atos.jsonl" 10 2>&1 | tail -32
