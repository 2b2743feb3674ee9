#!/usr/bin/env bash
# Call 4: cuda-gdb saw no kernels here (call 3), so the hang is narrowed by variants instead:
# priority SSSP on kron:14,w=60 with rings of 16 (and more), persistent, one configuration per
# process (worker fetch slack capacity balance reps grid [fifo|prio] [graph]); a run that
# times out (8 s) prints its counters and ends its process.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
cp BUILD.txt "$out/build.txt"
while read -r line; do
  [ -z "$line" ] && continue
  echo "=== $line" >> "$out/hang.log"
  timeout 60 ./zz_hang $line >> "$out/hang.log" 2>&1; echo "rc=$?" >> "$out/hang.log"
done <<'CASES'
warp 4 512 16 1 5 0
warp 4 0 16 1 5 0
warp 1 512 16 1 5 0
warp 32 512 16 1 5 0
warp 4 512 16 0 5 0
warp 4 512 64 1 5 0
warp 4 512 1024 1 5 0
warp 4 512 16 1 5 1
warp 4 512 16 1 5 0 fifo
warp 4 512 16 1 5 0 prio grid:64x64,w=20
thread 4 512 16 1 20 0
cta 4 512 16 1 20 0
cta 64 512 16 1 20 0
thread 1 512 16 1 20 0
CASES
cut -c1-1200 "$out/hang.log"
