#!/usr/bin/env bash
# Call 2: call 1's gpu_suite --priority-only stopped answering after thread/persistent (no line
# for warp/persistent in 290 s). Each worker/strategy case now runs in a process of its own;
# each step is printed before it runs, and a run's timeout (10 s persistent) prints the
# counters as they were when it struck, then the process exits.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
cp BUILD.txt "$out/build.txt"
for s in persistent discrete bsp; do
  for w in thread warp cta; do
    echo "=== $w/$s" >> "$out/suite.log"
    timeout 100 ./gpu_suite --priority-only --priority-cases "$w/$s" >> "$out/suite.log" 2>&1
    echo "rc=$?" >> "$out/suite.log"
  done
done
tr '\r' '\n' < "$out/suite.log" | grep -v "^\s*$" | cut -c1-1500
