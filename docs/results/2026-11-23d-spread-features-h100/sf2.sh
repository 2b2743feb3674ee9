#!/usr/bin/env bash
# Which elements differ under NVSHMEM calls: 1 rank (its own memory through calls) and 2 ranks.
set -uo pipefail
NV=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nvshmem/lib
export LD_LIBRARY_PATH=$NV:/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 NVSHMEM_REMOTE_TRANSPORT=none ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"; cd .gpu
ranks() {
  local name=$1 n=$2 c=$3
  rm -rf /tmp/rv; mkdir -p /tmp/rv
  for ((r = 0; r < n; r++)); do
    ( ATOS_NVSHMEM_CALLS=$c ATOS_RANK=$r ATOS_RANKS=$n ATOS_RENDEZVOUS=/tmp/rv/uid ATOS_BOOTSTRAP_TIMEOUT=200 \
        timeout 400 ./gpu_suite --spread-features > "$out/$name-r$r.log" 2>&1; echo "rc $?" >> "$out/$name-r$r.log" ) &
  done
  wait
  echo "== $name"; head -80 "$out/$name-r0.log"
}
ranks one1 1 1
ranks two1 2 1
