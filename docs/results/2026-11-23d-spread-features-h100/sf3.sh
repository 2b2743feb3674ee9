#!/usr/bin/env bash
# The feature task with i32 min/max and u64 add/max added: one GPU (checked mode, every worker:
# gpu_suite --dsl-only) and spread over NVSHMEM ranks sharing the GPU, mappings and calls.
set -uo pipefail
NV=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nvshmem/lib
export LD_LIBRARY_PATH=$NV:/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 NVSHMEM_REMOTE_TRANSPORT=none ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"; cd .gpu
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== one GPU: gpu_suite --dsl-only"
timeout 300 ./gpu_suite --dsl-only --graph grid:64x64 > /tmp/dsl.log 2>&1; echo "rc $?"
grep -E "feature task|SUMMARY|FAIL" /tmp/dsl.log | head -20
echo "== one process, one GPU: spread program on one device"
timeout 200 ./gpu_suite --spread-features > /tmp/one.log 2>&1; echo "rc $?"; grep -c identical /tmp/one.log; grep -E "FAIL|SUMMARY" /tmp/one.log | head -5
ranks() {
  local name=$1 n=$2 c=$3
  rm -rf /tmp/rv; mkdir -p /tmp/rv
  local t0=$(date +%s)
  for ((r = 0; r < n; r++)); do
    ( if [ "$c" = unset ]; then unset ATOS_NVSHMEM_CALLS; else export ATOS_NVSHMEM_CALLS=$c; fi
      ATOS_RANK=$r ATOS_RANKS=$n ATOS_RENDEZVOUS=/tmp/rv/uid ATOS_BOOTSTRAP_TIMEOUT=200 \
        timeout 400 ./gpu_suite --spread-features > "/tmp/$name-r$r.log" 2>&1; echo "rc $?" >> "/tmp/$name-r$r.log" ) &
  done
  wait
  echo "== $name ($n ranks, calls=$c) $(( $(date +%s) - t0 )) s"
  for ((r = 0; r < n; r++)); do
    echo "-- rank $r: $(grep -c 'identical' "/tmp/$name-r$r.log") identical, $(grep -c FAIL "/tmp/$name-r$r.log") FAIL, $(tail -1 "/tmp/$name-r$r.log")"
  done
  grep -E "FAIL|^    " "/tmp/$name-r0.log" | head -8
}
ranks map2 2 0
ranks calls2 2 1
ranks calls3 3 1
ranks calls4 4 1
ranks map4 4 unset
cp /tmp/dsl.log /tmp/one.log /tmp/calls2-r0.log /tmp/calls4-r3.log /tmp/map4-r1.log "$out/"
