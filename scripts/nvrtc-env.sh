#!/usr/bin/env bash
# Installs NVRTC 13.0 from PyPI into .cache/nvrtc (once) and prints the folder holding
# libnvrtc.so.13, for LD_LIBRARY_PATH. NVRTC needs no GPU: it lets CPU-only machines compile
# every generated kernel.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
target="$root/.cache/nvrtc"
lib="$target/nvidia/cu13/lib"
if [ ! -e "$lib/libnvrtc.so.13" ]; then
  python3 -m pip install --quiet --disable-pip-version-check --no-deps --target "$target" 'nvidia-cuda-nvrtc==13.0.*' >&2
fi
[ -e "$lib/libnvrtc.so.13" ] || { echo "NVRTC install failed: $lib/libnvrtc.so.13 missing" >&2; exit 1; }
echo "$lib"
