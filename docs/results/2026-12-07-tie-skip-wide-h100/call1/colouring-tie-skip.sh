#!/usr/bin/env bash
# `--tie-skip` on a GPU, in one device call (written 2026-12-06, ninth session, when no device
# time was left; not run yet):
# - `gpu_suite --coloring-only 5`: the split colouring with tie_skip 4 and wide windows on
#   kron:14 and a clique of 600 (every vertex a hub, colours up to 599), the
#   inline-check program on thread workers, and the store-buffering litmus of held inline runs
#   (none of them run on a GPU yet);
# - kron:22 asynchronous colouring at the best measured configuration (split 128, warp/8, 6
#   blocks per SM) with --tie-skip 0 and 4, each with and without --wide-window (written
#   2026-12-07), alternated, 2 rounds, and --tie-skip 2 and 8 once; the bulk-synchronous
#   split (cta/64) at 0 and 4, and 0 with wide windows;
# - the fixed cost of a colouring run (a 4x4 grid: next to no work), persistent and per BSP level,
#   every worker kind, for the small graphs' async/BSP ratios.
# Every atos run is verified (a proper colouring of every vertex). The CPU event model behind
# the flag: docs/results/2026-12-06i-tie-skip-model.md.
#
# On the device machine, from the repository root, with this commit's release binaries in .gpu/
# (scripts/gpu-bundle.sh); carry [".gpu"]:
#   BUDGET=540 bash scripts/colouring-tie-skip.sh
# $OUT gets t1.tgz (the log, the records, gpu_suite's log) and the log; summarize with
# `python3 scripts/records-summary.py DIR atos`.
source scripts/device-lib.sh t1
( cd .gpu && timeout 300 ./gpu_suite --coloring-only 5 > "$w/coloring-only.log" 2>&1; echo "gpu_suite rc=$?" >> "$w/coloring-only.log" )
grep -E "inline|tie skip|clique|store|pairs|WRONG|SUMMARY|rc=" "$w/coloring-only.log" | cut -c1-150
.gpu/atos graph convert kron:22 /tmp/k22.acsr > "$w/convert.txt" 2>&1
K=/tmp/k22.acsr
kron() {  # TAG TIE_SKIP [--wide-window]
  bench atos "kron-$1" 40 --app coloring --graph $K --split-degree 128 --tie-skip "$2" "${@:3}" --min-blocks 6 --strategy persistent --worker warp --fetch 8 --runs 5
}
for round in 1 2; do
  kron r$round-skip0 0; kron r$round-skip4 4
  kron r$round-skip0-wide 0 --wide-window; kron r$round-skip4-wide 4 --wide-window
done
kron r1-skip2 2; kron r1-skip8 8
for k in 0 4; do
  bench atos kron-bsp-skip$k 40 --app coloring --graph $K --split-degree 128 --tie-skip $k --strategy bsp --worker cta --fetch 64 --runs 3
done
bench atos kron-bsp-skip0-wide 40 --app coloring --graph $K --split-degree 128 --wide-window --strategy bsp --worker cta --fetch 64 --runs 3
bench atos floor 30 --app coloring --graph grid:4x4 --strategy persistent,bsp --worker thread,warp,cta --fetch 4 --runs 9
finish
grep -E "rc=|skip " "$log" | tr '\n' ' '; echo
python3 scripts/records-summary.py "$w" atos 2>&1 | cut -c1-170
