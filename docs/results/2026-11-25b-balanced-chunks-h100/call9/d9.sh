#!/usr/bin/env bash
# 2026-11-25, second session, call 9: a standalone stress of the balanced-batch scan and search
# (written by a reviewer of 50f41a3): the text of worker.cuh from `struct BalanceSlots` up to the
# servers (BalanceSlots, warp_inclusive_scan, both balance_scan overloads, balance_find), with
# stand-in workers, runs 64 blocks x 32 batches of random chunks (CTA: 1-512 items, so one or two
# chunks, small and large mixed; warp: 1-64 per warp), range lengths 0-7; every (item, offset)
# must be covered exactly once. Then compute-sanitizer racecheck and synccheck on it.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
out="${OUT:-.gpu/out}"; mkdir -p "$out"
W=crates/atos-runtime/src/cuda/atos/worker.cuh
start=$(grep -n "^struct BalanceSlots" $W | cut -d: -f1); end=$(grep -n "^// ---- servers" $W | cut -d: -f1)
sed -n "$((start-1)),$((end-1))p" $W > .gpu/bt/snip.cuh
git rev-parse HEAD > "$out/commit.txt" 2>/dev/null; sha256sum $W .gpu/bt/snip.cuh >> "$out/commit.txt"
nvidia-smi --query-gpu=name,driver_version --format=csv > "$out/device.txt"
cd .gpu/bt && /usr/local/cuda/bin/nvcc -arch=sm_90 -O2 -o bs balance_stress.cu > "$out/build.log" 2>&1; echo "nvcc rc=$?" >> "$out/build.log"
./bs > "$out/run.log" 2>&1; echo "rc=$?" >> "$out/run.log"
/usr/local/cuda/bin/compute-sanitizer --tool racecheck ./bs > "$out/racecheck.log" 2>&1; echo "rc=$?" >> "$out/racecheck.log"
/usr/local/cuda/bin/compute-sanitizer --tool synccheck ./bs > "$out/synccheck.log" 2>&1; echo "rc=$?" >> "$out/synccheck.log"
cat "$out/build.log" "$out/run.log"; tail -3 "$out/racecheck.log" "$out/synccheck.log"
