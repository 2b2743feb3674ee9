#!/usr/bin/env bash
# Call 7 (the reread): gpu_suite --state-only at the reread's build (device-state rings now
# allocated through one helper taking the arena; the occupancy read shared): one upload run many
# times, the next ring on demand with its device bytes, grids beyond the resident blocks.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
{ nvidia-smi --query-gpu=name,driver_version --format=csv; cat BUILD.txt; } > "$out/build.txt"
{ timeout 150 ./gpu_suite --state-only; echo "rc=$?"; } 2>&1 | tr '\r' '\n' | grep -v "^ *$" > "$out/state.log"
tail -22 "$out/state.log"
