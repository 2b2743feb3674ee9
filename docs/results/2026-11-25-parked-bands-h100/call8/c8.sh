#!/usr/bin/env bash
# Calls 7 and 8 (call 7 with the suite before its second, tighter capacity, a quarter above the peak): gpu_suite --spread-features on 2 devices sharing the H100, with the new tight-ring
# stress (spread BFS through rings about twice its peak: CTA routed flushes and warp group waits
# for room, eager and aggregated).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
{ nvidia-smi --query-gpu=name,driver_version --format=csv; cat BUILD.txt; } > "$out/builds.txt"
timeout 500 ./gpu_suite --spread-features --spread-devices 2 > "$out/spread.log" 2>&1; echo "rc=$?"
grep -E "tight|capacity|FAIL|HUNG|SUMMARY" "$out/spread.log" | head -40
