#!/usr/bin/env bash
# gpu_suite at HEAD: features (lower/raise on floats and flags) GPU vs CPU for every worker, DSL programs, PageRank, stress.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kc
OUT="${OUT:-.gpu/out}"; mkdir -p $OUT
cd .gpu
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/device.txt
timeout 200 ./gpu_suite --dsl-only --data data --graph grid:2048x2048 --graph kron:18 > $OUT/dsl.log 2>&1; echo "rc=$?" >> $OUT/dsl.log
timeout 250 ./gpu_suite --data data --runs 1 --stress 60 --program-stress 80 --flag-tasks 100000 --strategies persistent --graph grid:512x512 --graph kron:16 > $OUT/suite.log 2>&1; echo "rc=$?" >> $OUT/suite.log
grep -E "WRONG|ERROR|DIFFERENT|SUMMARY|rc=|features|stress:" $OUT/*.log | head -60
