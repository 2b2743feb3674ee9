#!/usr/bin/env bash
# Reread checks: the feature task spread over one device and over 2 and 3 devices sharing this
# GPU, now also checking each run's remote access count (0 on one device, above 0 spread) and
# that a grid too large for shared GPUs is refused.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/device.txt"
timeout 150 ./gpu_suite --spread-features > "$out/features-1.log" 2>&1; echo "rc=$?" >> "$out/features-1.log"
for n in 2 3; do timeout 150 ./gpu_suite --spread-features --spread-devices $n > "$out/features-$n.log" 2>&1; echo "rc=$?" >> "$out/features-$n.log"; done
tail -n 3 "$out"/features-*.log; grep -h "refused\|FAIL" "$out"/features-*.log | head
