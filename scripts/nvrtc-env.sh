#!/usr/bin/env bash
# Installs the CUDA 13.0 libraries that compile and link kernels without a GPU from PyPI into
# .cache/nvrtc (once), pinned to the GPU machines' CUDA 13.0 driver:
#   NVRTC (every generated kernel), nvJitLink (device linking), NVSHMEM 3.4.5 (its device library
#   and headers, for the NVSHMEM transport), and the CUDA runtime and CCCL headers that NVSHMEM's
#   device headers include.
# Prints the folder holding libnvrtc.so.13 and libnvJitLink.so.13, for LD_LIBRARY_PATH. The
# NVSHMEM install is at .cache/nvrtc/nvidia/nvshmem and the CUDA headers at
# .cache/nvrtc/nvidia/cu13/include, where atos looks for them (nvshmem-sys's `Install::locate`).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
target="$root/.cache/nvrtc"
lib="$target/nvidia/cu13/lib"
need=("$lib/libnvrtc.so.13" "$lib/libnvJitLink.so.13" "$target/nvidia/nvshmem/lib/libnvshmem_device.a"
      "$target/nvidia/nvshmem/lib/libnvshmem_host.so.3" "$target/nvidia/cu13/include/cuda_runtime.h"
      "$target/nvidia/cu13/include/cccl/cuda/std/cstdint")
missing=0
for f in "${need[@]}"; do [ -e "$f" ] || missing=1; done
if [ "$missing" = 1 ]; then
  python3 -m pip install --quiet --disable-pip-version-check --no-deps --upgrade --target "$target" \
    'nvidia-cuda-nvrtc==13.0.88' 'nvidia-nvjitlink==13.0.88' 'nvidia-nvshmem-cu13==3.4.5' \
    'nvidia-cuda-runtime==13.0.*' 'nvidia-cuda-cccl==13.0.*' >&2
fi
for f in "${need[@]}"; do
  [ -e "$f" ] || { echo "CUDA library install failed: $f missing" >&2; exit 1; }
done
echo "$lib"
