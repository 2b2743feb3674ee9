#!/usr/bin/env bash
# Where does the aggregated (64:20) spread run fault under NVSHMEM calls? Two ranks by hand on
# one GPU, each under compute-sanitizer memcheck, a small graph.
set -uo pipefail
NV=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nvshmem/lib
export LD_LIBRARY_PATH=$NV:/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 NVSHMEM_REMOTE_TRANSPORT=none ATOS_CACHE_DIR=/tmp/atos-kernels ATOS_NVSHMEM_CALLS=1
out="${OUT:-.gpu/out}"; mkdir -p "$out"; cd .gpu
SAN=/usr/local/cuda/bin/compute-sanitizer
two() {
  local name=$1; shift
  rm -rf /tmp/rv; mkdir -p /tmp/rv
  for r in 0 1; do
    ATOS_RANK=$r ATOS_RANKS=2 ATOS_RENDEZVOUS=/tmp/rv/uid ATOS_BOOTSTRAP_TIMEOUT=100 \
      timeout 200 "$@" > "$out/$name-r$r.log" 2>&1 &
  done
  wait; echo "== $name"; grep -v '^\s*$' "$out/$name-r0.log" | head -60
}
two ee ./atos bench --app bfs --graph grid:16x16 --graph grid:20x20 --devices 2 --transport nvshmem --aggregation eager,64:20 --worker cta --fetch 64 --runs 1 --warmup 0
grep -q ILLEGAL "$out/ee-r0.log" && { two sanee $SAN --print-limit 6 --show-backtrace device ./atos bench --app bfs --graph grid:16x16 --graph grid:20x20 --devices 2 --transport nvshmem --aggregation eager --worker cta --fetch 64 --runs 1 --warmup 0; exit 0; }
bash calls.sh
