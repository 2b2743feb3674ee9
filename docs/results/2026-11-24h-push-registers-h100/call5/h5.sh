#!/usr/bin/env bash
# Call 5: the whole gpu_suite at the final device code (the push's first look with its
# reservation, priority units compiled for 1280 threads per SM, the next ring on demand, the
# state and grid checks), then the feature task spread over 2 devices sharing this GPU.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
{ nvidia-smi --query-gpu=name,driver_version --format=csv; cat BUILD.txt; } > "$out/build.txt"
t0=$(date +%s)
timeout 440 ./gpu_suite --data data > "$out/suite-full.log" 2>&1; echo "rc=$? after $(( $(date +%s) - t0 )) s" >> "$out/suite-full.log"
timeout 120 ./gpu_suite --spread-features --spread-devices 2 > "$out/spread.log" 2>&1; echo "rc=$? after $(( $(date +%s) - t0 )) s" >> "$out/spread.log"
tr '\r' '\n' < "$out/suite-full.log" | grep -E "==|SUMMARY|WRONG|FAIL|ERROR|stress:|rc=|misses|identical|cases|ok \(|bytes" | cut -c1-200 | head -90
tail -3 "$out/spread.log"
