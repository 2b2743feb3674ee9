#!/usr/bin/env bash
# Issue 11's colouring table in one device call: atos asynchronous and bulk-synchronous
# colouring, each form's best configurations measured so far, and the original Atos `gc_32` on
# the same graph files (kron:22, grid:4096x4096, luxembourg_osm, delaunay_n16). Every atos run is
# verified (a proper colouring, every vertex coloured); the original judges itself, and a wrong
# or crashed run of it is never a time.
#
# On the device machine, from the repository root, with this commit's release binaries in .gpu/
# (scripts/gpu-bundle.sh), the shared graphs in .gpu/data/ (luxembourg_osm.edges,
# delaunay_n16.edges) and the original prepared in .gpu/orig/ (../shared/baselines/atos-original.sh
# prepare .gpu/orig, with the script copied to .gpu/atos-original.sh); carry [".gpu"]:
#   BUDGET=300 bash scripts/colouring-table.sh
# EXTRA (e.g. EXTRA=--stamped-rings) is added to every atos bench line (bulk-synchronous
# kernels ignore --stamped-rings: it applies to persistent ones only).
# It needs about 200 s on an H100. $OUT gets colouring-table.tgz (the log, the records) and the
# log; summarize with `python3 scripts/records-summary.py DIR atos`.
#
# The configurations (docs/results/2026-12-06g-bsp-fence-small-colouring-h100.md, and
# 2026-12-06f for kron:22 and the grid): kron:22 async split 128 warp/8 at min blocks 6, BSP
# plain cta/64; the grid thread/64 at 264 blocks in both forms; the meshes async split 8
# thread/4, BSP split 8 warp/8 and plain cta/32 at block 128; the grid's check inline (thread/16,
# 264 blocks: docs/results/2026-12-06h-inline-check-h100.md), added 2026-12-07. Written 2026-12-06 (seventh
# session); run whole in 2026-12-06h call 1 and, with EXTRA=--stamped-rings, 2026-12-07d call 1.
# Added 2026-12-07 (fourth session, docs/results/2026-12-07f-colour-word-h100.md): the meshes'
# async split at 4 blocks per SM (`--min-blocks 4`: the colour word took its unit from 64 to 80
# registers, 3 blocks per SM, by default), and kron:22 split at degree 4,096 (warp/8 and
# warp/16): 7.27-7.36 ms against 8.27 at 128 in calls 4-5 of those results; in call 6 (this
# script) warp/8 7.31 and warp/16 7.67.
# Added 2026-12-07 (docs/results/2026-12-07h-fused-check-h100.md, calls 1-6 on one H100):
# kron:22's split with shared ranges off (6.81 ms against 7.28 with them: its unit spilled
# 1,660 B with them), and `--fused-check` (`coloring::split_fused`) on the grid and the meshes,
# at the fetches and grids that calls 3-5 found best (thread/2 and /4 at the default grid on the
# grid: 1.15-1.24 ms against 2.66 for the check inline; thread/2 and warp/8 on the meshes). The
# BSP forms were swept as widely in call 5 (thread/4-64 at 264-1,056 blocks on the grid; split
# thread and warp at fetch 2-16 and plain thread and warp on the meshes): the lines here stay
# their best.
source scripts/device-lib.sh colouring-table
BUDGET=${BUDGET:-300}
EXTRA=${EXTRA:-}
( bash .gpu/atos-original.sh build .gpu/orig > "$w/orig-build.log" 2>&1; echo "orig build rc=$? t=$(( $(date +%s) - device_t0 ))" >> "$w/orig-build.log" ) &
( .gpu/atos graph convert grid:4096x4096 /tmp/g4k.acsr > "$w/convert.txt" 2>&1; .gpu/atos graph convert kron:22 /tmp/k22.acsr >> "$w/convert.txt" 2>&1 ) &
L=.gpu/data/luxembourg_osm.edges D=.gpu/data/delaunay_n16.edges
bench atos meshes-split 40 --app coloring --graph $L --graph $D --split-degree 8 --strategy persistent,bsp --worker thread,warp --fetch 4,8 --runs 9 $EXTRA
bench atos meshes-split-mb4 20 --app coloring --graph $L --graph $D --split-degree 8 --min-blocks 4 --strategy persistent --worker thread --fetch 4 --runs 5 $EXTRA
bench atos meshes-fused 30 --app coloring --graph $L --graph $D --split-degree 8 --fused-check --strategy persistent --worker thread,warp --fetch 2,8 --runs 9 $EXTRA
wait
tail -1 "$w/orig-build.log" >> "$log"
G=/tmp/g4k.acsr K=/tmp/k22.acsr
O="--compare-original .gpu/orig --original-runs 3 --original-idle gc_32_cta=150"
bench atos meshes 40 --app coloring --graph $L --graph $D --strategy persistent,bsp --worker cta --fetch 32 --block 128 --runs 9 $O --original-idle gc_32_warp=10 $EXTRA
bench atos grid 60 --app coloring --graph $G --strategy persistent,bsp --worker thread --fetch 64 --runs 3 --grid 264 $O --original-idle gc_32_warp=10 $EXTRA
bench atos grid-inline 30 --app coloring --graph $G --inline-check --strategy persistent --worker thread --fetch 16 --runs 5 --grid 264 $EXTRA
bench atos grid-fused 40 --app coloring --graph $G --split-degree 8 --fused-check --strategy persistent --worker thread --fetch 2,4 --runs 5 $EXTRA
bench atos kron 60 --app coloring --graph $K --strategy persistent,bsp --worker cta --fetch 64 --runs 5 $O --original-idle gc_32_warp=5000 $EXTRA
bench atos kron-split 30 --app coloring --graph $K --split-degree 128 --min-blocks 6 --strategy persistent --worker warp --fetch 8 --runs 3 $EXTRA
bench atos kron-split-4096 40 --app coloring --graph $K --split-degree 4096 --min-blocks 6 --strategy persistent --worker warp --fetch 8,16 --runs 3 $EXTRA
bench atos kron-split-4096-noshare 40 --app coloring --graph $K --split-degree 4096 --min-blocks 6 --share off --strategy persistent --worker warp --fetch 8,16 --runs 5 $EXTRA
finish
grep -E "rc=|skip|orig build" "$log" | tr '\n' ' '; echo
grep -E "^(k22|g4k|luxembourg|delaunay)\S* +(orig|gc)" "$log" | cut -c1-160
python3 scripts/records-summary.py "$w" atos 2>&1 | cut -c1-170
