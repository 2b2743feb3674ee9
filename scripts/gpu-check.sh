#!/usr/bin/env bash
# The GPU acceptance run, as recorded in docs/results/: run on the device machine from the
# repository root with the release builds in .gpu/ (see docs/results/*-program-model-*.md):
#   .gpu/gpu_suite          this commit's examples/gpu_suite
#   .gpu/gpu_suite_linear   (optional) the same example built from an earlier commit, for a
#                           side-by-side BFS timing in the same device call
#   .gpu/data/              luxembourg_osm, delaunay_n16, facebook_combined edge lists
# PART=suite (default): every check; PART=bfs: only the BFS timing tables, side by side.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR="${ATOS_CACHE_DIR:-/tmp/atos-kernels}"
out="${OUT:-.gpu/out}"
mkdir -p "$out"
cd .gpu
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$out/device.txt"
graphs=(--graph grid:4096x4096 --graph kron:22)
if [ "${PART:-suite}" = bfs ]; then
  if [ -x ./gpu_suite_linear ]; then
    timeout 200 ./gpu_suite_linear --data data --stress 0 --runs "${RUNS:-7}" "${graphs[@]}" > "$out/bfs-before.log" 2>&1
    echo "rc=$?" >> "$out/bfs-before.log"
  fi
  timeout 350 ./gpu_suite --data data --bfs-only --runs "${RUNS:-7}" "${graphs[@]}" > "$out/bfs-now.log" 2>&1
  echo "rc=$?" >> "$out/bfs-now.log"
else
  timeout "${SUITE_TIMEOUT:-570}" ./gpu_suite --data data --runs "${RUNS:-3}" --stress "${STRESS:-200}" --program-stress "${PROGRAM_STRESS:-400}" --flag-tasks 200000 "${graphs[@]}" > "$out/suite.log" 2>&1
  echo "rc=$?" >> "$out/suite.log"
fi
tail -4 "$out"/*.log
