#!/usr/bin/env bash
# After the fix (converged_lanes = __match_any_sync(__activemask(), key)): window_probe repeats,
# gpu_suite DSL + suite, BFS table old vs new binary in the same call.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kc
OUT="${OUT:-.gpu/out}"; mkdir -p $OUT
cd .gpu
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/device.txt
for s in discrete bsp; do
  timeout 60 ./window_probe base $s 40 > $OUT/fixed-$s-200.log 2>&1; tail -1 $OUT/fixed-$s-200.log
  timeout 60 ./window_probe base $s 10 grid:1024x1024 > $OUT/fixed-$s-1024.log 2>&1; tail -1 $OUT/fixed-$s-1024.log
done
timeout 150 ./gpu_suite --dsl-only --data data --graph grid:2048x2048 --graph kron:18 > $OUT/dsl.log 2>&1; echo "rc=$?" >> $OUT/dsl.log
timeout 200 ./gpu_suite --data data --runs 1 --stress 60 --program-stress 80 --flag-tasks 100000 --strategies persistent --graph grid:512x512 --graph kron:16 > $OUT/suite.log 2>&1; echo "rc=$?" >> $OUT/suite.log
for b in gpu_suite_old gpu_suite gpu_suite_old gpu_suite; do
  timeout 60 ./$b --bfs-only --runs 5 --strategies persistent --only thread/4,thread/16,warp/32 --graph kron:20 --graph grid:2048x2048 > $OUT/bfs-$b.log 2>&1; echo "rc=$?" >> $OUT/bfs-$b.log; cat $OUT/bfs-$b.log >> $OUT/bfs-all.log
done
grep -E "WRONG|ERROR|DIFFERENT|SUMMARY|rc=|features|stress:|failure" $OUT/dsl.log $OUT/suite.log | head -40
cat $OUT/bfs-all.log | grep -v "^$" | tail -60
