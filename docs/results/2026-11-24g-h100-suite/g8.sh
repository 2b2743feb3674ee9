#!/usr/bin/env bash
# Call 8: the whole gpu_suite at this session's final device code (the push fix with its Lanes
# group, the new priority-overflow section), then the feature task spread over 2 devices
# sharing this GPU (mesh forwards wait with make_room_group).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt"
cp BUILD.txt "$out/build.txt"
t0=$(date +%s)
timeout 430 ./gpu_suite --data data > "$out/suite-full.log" 2>&1; echo "rc=$? after $(( $(date +%s) - t0 )) s" >> "$out/suite-full.log"
timeout 150 ./gpu_suite --spread-features --spread-devices 2 > "$out/spread.log" 2>&1; echo "rc=$? after $(( $(date +%s) - t0 )) s" >> "$out/spread.log"
tr '\r' '\n' < "$out/suite-full.log" | grep -E "==|SUMMARY|WRONG|FAIL|stress:|rc=|misses|identical|cases" | cut -c1-300 | head -80
tail -3 "$out/spread.log"
