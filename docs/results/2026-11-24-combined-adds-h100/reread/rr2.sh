#!/usr/bin/env bash
# Reread check: gpu_suite --spread-features on 1 device and on 2 and 3 devices sharing this GPU,
# with combining now set on explicitly for the feature task and the quiet residual push, the
# in-degrees run both with combining on and off, and the default (off when devices share one
# GPU) checked.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/device.txt"
timeout 200 ./gpu_suite --spread-features > "$out/features-1.log" 2>&1; echo "rc=$?" >> "$out/features-1.log"
for n in 2 3; do timeout 200 ./gpu_suite --spread-features --spread-devices $n > "$out/features-$n.log" 2>&1; echo "rc=$?" >> "$out/features-$n.log"; done
tail -n 2 "$out"/features-*.log; grep -h "FAIL\|in-degrees\|default" "$out"/features-*.log | head -20
