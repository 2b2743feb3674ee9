#!/usr/bin/env bash
# 2026-12-07 session 17 call 7 (one H100): gpu_suite --coloring-only 1 with the fused section's
# pairs 64 apart (races on warps and threads alike).
source scripts/device-lib.sh p7
BUDGET=${BUDGET:-200}
timeout 180 .gpu/gpu_suite --coloring-only 1 > "$w/suite-coloring.log" 2>&1; echo "rc=$? suite coloring (t=$(($(date +%s) - device_t0)))" >> "$log"
finish
cat "$log" | tail -2
grep -A 10 "pairs 64 apart" "$w/suite-coloring.log"; grep -E "SUMMARY|WRONG" "$w/suite-coloring.log"
