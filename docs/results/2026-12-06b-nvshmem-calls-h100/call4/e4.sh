#!/usr/bin/env bash
# 2026-12-06 (second session) call 4, one GPU, main 793dc39: spread records carry compile_ms
# and compile_origin. BFS on kron:14 over 2 devices sharing the GPU (peer-to-peer), then
# PageRank over 2 NVSHMEM ranks sharing it with NVSHMEM calls, twice each on one kernel cache
# (the first process builds: Compiled; the second finds it: Disk). Every run verified.
source scripts/device-lib.sh e4
BUDGET=300
export ATOS_CACHE_DIR=/tmp/cache-e4
for r in 1 2; do
  bench atos p2p-$r 60 --app bfs --graph kron:14 --devices 1,2 --share-gpus --partition random:7 \
    --aggregation eager --worker cta --runs 2
done
for r in 1 2; do
  t0=$(date +%s)
  ATOS_NVSHMEM_CALLS=1 timeout $(( $(left) > 90 ? 90 : $(left) )) .gpu/atos bench --app pagerank --graph kron:14 \
    --devices 2 --transport nvshmem --share-gpus --partition random:7 --aggregation eager --worker cta \
    --runs 2 --out "$w/calls.jsonl" >> "$w/calls.log" 2>&1
  echo "rc=$? calls-$r wall $(( $(date +%s) - t0 )) s" >> "$log"
done
finish
grep -E "rc=|skip" "$log"
python3 - "$w" <<'PY'
import json, sys
for f in ("atos.jsonl", "calls.jsonl"):
    for l in open(f"{sys.argv[1]}/{f}"):
        r = json.loads(l)
        print(f, r["app"], r["devices"], r["status"], r["verified"], r["compile_ms"], r["compile_origin"], round(r["median_ms"], 3))
PY
