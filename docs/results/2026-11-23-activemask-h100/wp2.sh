#!/usr/bin/env bash
# window_probe round 2: match_any membership, solo without checks; persistent timings base/solo/match.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kc
OUT="${OUT:-.gpu/out}"; mkdir -p $OUT
cd .gpu
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/device.txt
for v in match-nocheck solo-nocheck; do for s in discrete bsp; do
  timeout 100 ./window_probe $v $s 40 > $OUT/$v-$s.log 2>&1; echo "rc=$?" >> $OUT/$v-$s.log; grep -v "^rc" $OUT/$v-$s.log | tail -1
done; done
for g in kron:18 grid:1024x1024; do for v in base solo-nocheck match-nocheck; do for s in persistent discrete; do
  timeout 100 ./window_probe $v $s 10 $g > $OUT/time-$v-$s-${g//:/_}.log 2>&1; grep -v "^rc" $OUT/time-$v-$s-${g//:/_}.log | tail -1
done; done; done
