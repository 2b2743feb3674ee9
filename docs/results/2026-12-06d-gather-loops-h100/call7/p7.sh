#!/usr/bin/env bash
# 2026-12-06 (fourth session) call 7, one GPU: main with the fence in the test colouring program
# (tests/common/programs.rs), so the programs section (every worker kind, persistent, discrete,
# BSP) and the program stress (random workers, blocks, grids) run the deferred fence and the
# held pushes of persistent thread groups: the whole gpu_suite with short BFS and flag parts.
source scripts/device-lib.sh p7
BUDGET=${BUDGET:-300}
(cd .gpu && timeout 270 ./gpu_suite --data data --runs 1 --stress 20 --program-stress 150 --flag-tasks 2000 --graph kron:12 --only cta/64 --strategies persistent > "$w/suite.log" 2>&1; echo "rc=$? suite t=$(( $(date +%s) - device_t0 ))" >> "$w/suite.log")
finish
grep -E "SUMMARY|WRONG|FAIL|rc=|stress:|colouring \(" "$w/suite.log" | cut -c1-220 | head -30
