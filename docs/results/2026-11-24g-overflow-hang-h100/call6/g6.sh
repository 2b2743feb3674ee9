#!/usr/bin/env bash
# Call 6: the hanging case with the priority push replaced (in the generated unit) by a copy of
# PriorityPusher::put / push_lanes / make_room that counts each stage (DIAG=1): control
# idle_clean / idle_base = pushes entered / left; work.next stamp / inlined = near / far branch
# entered; work.next peak / window_next = leaders into / out of make_room; work.far stamp =
# make_room wait rounds; work.far inlined = lanes past the two shuffles; priority moved /
# advances = lanes past the first / second __syncwarp. Then DIAGFIX=1: the lanes of a push
# wait for room together (the leader decides each round, all lanes loop), 5 runs each.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
for v in DIAG DIAGFIX; do
  for line in "warp 4 512 16 1 1 1" "warp 4 512 16 1 5 0" "warp 32 512 16 1 5 0" "warp 4 512 1024 1 5 0"; do
    echo "=== $v $line" >> "$out/hang.log"
    if [ $v = DIAG ]; then DIAG=1 timeout 60 ./zz_hang $line >> "$out/hang.log" 2>&1
    else DIAG=1 DIAGFIX=1 timeout 60 ./zz_hang $line >> "$out/hang.log" 2>&1; fi
    echo "rc=$?" >> "$out/hang.log"
  done
done
cut -c1-1500 "$out/hang.log"
