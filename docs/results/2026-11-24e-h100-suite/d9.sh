#!/usr/bin/env bash
# The whole gpu_suite at the session's last device-code change (ac59c1a, device code
# 83d605f5f1db0eff), then the feature task spread over 2 devices sharing the H100.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
cp BUILD.txt "$out/"
nvidia-smi --query-gpu=name,driver_version --format=csv > "$out/device.txt"
t0=$(date +%s)
timeout 470 ./gpu_suite --data data > "$out/suite-full.log" 2>&1; echo "rc=$? after $(( $(date +%s) - t0 )) s" >> "$out/suite-full.log"
timeout 100 ./gpu_suite --spread-features --spread-devices 2 > "$out/spread.log" 2>&1; echo "rc=$? after $(( $(date +%s) - t0 )) s" >> "$out/spread.log"
head -2 "$out/suite-full.log"; grep -E "stress:|FAIL|DIFFERENT|identical$|SUMMARY|rc=" "$out/suite-full.log" | head -40; tail -3 "$out/spread.log"
