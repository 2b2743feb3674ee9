#!/usr/bin/env bash
# Call 2: where the parking build's CTA priority kernel faults (compute-sanitizer, line info).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=off ATOS_NVRTC_LINEINFO=1
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
timeout 240 $SAN --tool memcheck --print-limit 5 ./atos bench --app bfs-priority --graph data/rome99.gr --worker cta --fetch 8 --runs 1 --warmup 0 --timeout 60 --quiet > "$out/san.log" 2>&1
echo "rc=$?"
head -80 "$out/san.log"
