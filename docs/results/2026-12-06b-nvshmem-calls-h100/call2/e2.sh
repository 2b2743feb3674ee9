#!/usr/bin/env bash
# 2026-12-06 (second session) call 2, one GPU: NVSHMEM calls (ATOS_NVSHMEM_CALLS=1) with
# NVSHMEM's calls out of line (remote.cuh: __noinline__ nv_* and quiet) in .gpu/atos, against
# main 2e96485 (.gpu/atos_prev, inlined): PageRank, BFS and owner-computes BFS on kron:14 over
# 2 ranks sharing the GPU, each binary with its own empty kernel cache, so each run's wall
# time holds its device link; every run verified.
source scripts/device-lib.sh e2
BUDGET=540
for bin in atos atos_prev; do
  for app in pagerank bfs bfs-owner; do
    t0=$(date +%s.%N)
    ATOS_CACHE_DIR=/tmp/cache-$bin ATOS_NVSHMEM_CALLS=1 timeout $(( $(left) > 160 ? 160 : $(left) )) .gpu/$bin bench --app $app \
      --graph kron:14 --devices 2 --transport nvshmem --share-gpus --partition random:7 --aggregation eager,64:20 \
      --worker cta --runs 3 --out "$w/$bin.jsonl" >> "$w/$bin.log" 2>&1
    rc=$?
    echo "rc=$rc $bin $app wall $(python3 -c "import time;print(round(time.time()-$t0,1))") s" >> "$log"
  done
done
finish
grep -E "rc=|skip" "$log"
grep -E "^kron|rror|WRONG" "$w"/atos.log "$w"/atos_prev.log | cut -c1-190
