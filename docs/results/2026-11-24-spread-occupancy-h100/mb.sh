#!/usr/bin/env bash
# Spread units' occupancy: --min-blocks 0 (default), 7 and 8 on the spread program on one
# device and on 2 devices sharing the GPU, BFS kron:22 and PageRank kron:20; every run verified.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
log=/tmp/mb.log
cd .gpu
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/device.txt"
for round in 1 2; do
  for mb in 0 7 8; do
    timeout 150 ./atos_sweep bench --timeout 30 --quiet --share-gpus --min-blocks $mb --app bfs --graph kron:22 --devices 1,2 --spread-one --aggregation 1024:20 --worker cta --fetch 64 --partition edges --runs 5 --out /tmp/mb.jsonl >> "$log" 2>&1; echo "bfs mb=$mb rc=$?"
    timeout 150 ./atos_sweep bench --timeout 30 --quiet --share-gpus --min-blocks $mb --app pagerank --graph kron:20 --devices 1,2 --spread-one --aggregation eager --worker cta --fetch 64 --partition edges --runs 3 --out /tmp/mb.jsonl >> "$log" 2>&1; echo "pagerank mb=$mb rc=$?"
  done
done
python3 - <<'PY'
import json
for l in open('/tmp/mb.jsonl'):
    r=json.loads(l)
    print(r['app'], r['graph'], 'mb', r.get('min_blocks'), 'dev', r['devices'], r['aggregation'], r['status'], 'ms %.2f' % r['median_ms'], 'ratio %.2f' % r['workload_ratio'], 'grid', r['grid'])
PY
cp /tmp/mb.jsonl /tmp/mb.log "$out/"
