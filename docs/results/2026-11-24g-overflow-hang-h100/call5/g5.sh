#!/usr/bin/env bash
# Call 5: call 4's hanging case (warp, fetch 4, balanced, rings of 16) with counters patched into
# the generated balanced batch (DIAG=1; the control block's unused idle words): idle_sweeps =
# lanes entering a chunk, idle_cursor = loop iterations, idle_clean / idle_base = pushes started
# / finished, idle_finished = lanes past the chunk's lanes_end. Grid 1 block and the full grid.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels DIAG=1
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
for line in "warp 4 512 16 1 1 1" "warp 4 512 16 1 1 0" "warp 32 512 16 1 1 1"; do
  echo "=== $line" >> "$out/hang.log"
  timeout 60 ./zz_hang $line >> "$out/hang.log" 2>&1; echo "rc=$?" >> "$out/hang.log"
done
cut -c1-1500 "$out/hang.log"
