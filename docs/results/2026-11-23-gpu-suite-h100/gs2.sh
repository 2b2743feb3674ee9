#!/usr/bin/env bash
# How often does tuple-item float SSSP go wrong? gpu_suite --dsl-only repeated (tuple items on every strategy x worker).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kc
OUT="${OUT:-.gpu/out}"; mkdir -p $OUT
cd .gpu
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/device.txt
end=$(( $(date +%s) + 420 )); i=0
while [ $(date +%s) -lt $end ]; do
  i=$((i+1)); timeout 120 ./gpu_suite --dsl-only --graph grid:64x64 > $OUT/dsl-$i.log 2>&1; echo "run $i rc=$?" >> $OUT/summary.txt
  grep -H "WRONG" $OUT/dsl-$i.log >> $OUT/summary.txt
done
cat $OUT/summary.txt | tail -40; grep -c WRONG $OUT/summary.txt
