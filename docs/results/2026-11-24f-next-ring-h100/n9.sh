#!/usr/bin/env bash
# The device twins with advance_band added to the key twins (the next ring), and the rest of
# the DSL checks: gpu_suite --dsl-only.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
cp BUILD.txt "$out/"
nvidia-smi --query-gpu=name,driver_version --format=csv > "$out/device.txt"
timeout 200 ./gpu_suite --dsl-only --data data > "$out/dsl.log" 2>&1; echo "rc=$?" >> "$out/dsl.log"
head -2 "$out/dsl.log"; grep -A3 "device twins" "$out/dsl.log"; tail -2 "$out/dsl.log"
