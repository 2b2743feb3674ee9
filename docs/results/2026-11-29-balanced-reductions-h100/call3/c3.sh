#!/usr/bin/env bash
# 2026-11-29 call 3 (one H100): the whole gpu_suite, shortened (--runs 1 --stress 40
# --program-stress 120 --flag-tasks 100000, kron:18 for the timed tables), at the landed codegen
# (the test programs `flag` and k-core's `peel` now run balanced at fetch 4; the lanes-then-read
# check at fetch 1 and 4), then the spread feature check on 2 devices sharing the GPU.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cat .gpu/BUILD.txt > "$out/build.txt"; nvidia-smi -L >> "$out/build.txt"
t0=$(date +%s)
(cd .gpu && timeout 400 ./gpu_suite --data data --runs 1 --stress 40 --program-stress 120 --flag-tasks 100000 --graph kron:18 > "$out/suite.log" 2>&1; echo "rc=$? t=$(( $(date +%s) - t0 ))" >> "$out/suite.log")
(cd .gpu && timeout 120 ./gpu_suite --spread-features --spread-devices 2 > "$out/spread.log" 2>&1; echo "rc=$? t=$(( $(date +%s) - t0 ))" >> "$out/spread.log")
grep -E "^==|SUMMARY|WRONG|FAIL|fail|misses|rc=" "$out/suite.log" | cut -c1-140 | head -70
grep -E "SUMMARY|WRONG|FAIL|rc=" "$out/spread.log" | head
