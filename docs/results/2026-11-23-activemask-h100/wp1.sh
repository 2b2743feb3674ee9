#!/usr/bin/env bash
# window_probe: rates of base / checked / solo-push variants, then compute-sanitizer synccheck + initcheck.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kc
OUT="${OUT:-.gpu/out}"; mkdir -p $OUT
cd .gpu
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/device.txt
for v in base check solo; do for s in discrete bsp; do
  timeout 100 ./window_probe $v $s 40 > $OUT/$v-$s.log 2>&1; echo "rc=$?" >> $OUT/$v-$s.log; tail -1 $OUT/$v-$s.log; grep -v "^rc" $OUT/$v-$s.log | tail -1
done; done
timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool synccheck ./window_probe base discrete 3 > $OUT/synccheck.log 2>&1; echo "rc=$?" >> $OUT/synccheck.log
tail -5 $OUT/synccheck.log
timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool initcheck ./window_probe base discrete 2 > $OUT/initcheck.log 2>&1; echo "rc=$?" >> $OUT/initcheck.log
head -40 $OUT/initcheck.log; tail -5 $OUT/initcheck.log
