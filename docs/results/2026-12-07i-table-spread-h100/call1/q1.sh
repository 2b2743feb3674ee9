#!/usr/bin/env bash
# 2026-12-07 session 18 call 1 (one H100, docs/results/2026-12-07i-table-spread-h100.md): issue 11's colouring table three times in one call
# (its spread), then gpu_suite --coloring-only 1 (the fused section's racing-pairs requirement:
# a run that re-colours nothing fails).
set -u
base="${OUT:?}"
# README's own-crate template (examples/own-crate), its task on the GPU.
LD_LIBRARY_PATH=/usr/local/cuda/lib64 timeout 120 .gpu/my-components --device gpu --nvrtc > "$base/own-crate.txt" 2>&1; echo "own crate rc=$?" >> "$base/own-crate.txt"
nvidia-smi -L >> "$base/own-crate.txt"
for i in 1 2 3; do
  rm -rf /tmp/colouring-table
  mkdir -p "$base/t$i"
  OUT="$base/t$i" BUDGET=190 bash scripts/colouring-table.sh > "$base/t$i.txt" 2>&1
  echo "table $i done t=$SECONDS" >> "$base/q1.log"
  python3 scripts/records-summary.py /tmp/colouring-table atos > "$base/t$i-summary.txt" 2>&1
done
OUT="$base" bash .gpu/s/p7.sh > "$base/suite.txt" 2>&1
echo "suite done t=$SECONDS" >> "$base/q1.log"
cat "$base/own-crate.txt" "$base/q1.log"; tail -5 "$base/suite.txt"
for i in 1 2 3; do echo "== table $i"; head -c 3000 "$base/t$i.txt"; done
