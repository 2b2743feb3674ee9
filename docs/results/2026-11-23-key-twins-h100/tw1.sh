#!/usr/bin/env bash
# Key twins (CUDA encode_key/next_threshold vs keys.rs), DSL checks, and the suite's stress
# (priority near/far programs run the changed advance_priority).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kc
OUT="${OUT:-.gpu/out}"; mkdir -p $OUT
cd .gpu
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/device.txt
timeout 150 ./gpu_suite --dsl-only --data data --graph grid:512x512 > $OUT/dsl.log 2>&1; echo "rc=$?" >> $OUT/dsl.log
timeout 220 ./gpu_suite --data data --runs 1 --stress 40 --program-stress 120 --flag-tasks 100000 --strategies persistent --graph grid:256x256 --graph kron:14 > $OUT/suite.log 2>&1; echo "rc=$?" >> $OUT/suite.log
grep -E "device twins|cases|WRONG|DIFFERENT|SUMMARY|rc=|stress:" $OUT/dsl.log $OUT/suite.log | head -40
