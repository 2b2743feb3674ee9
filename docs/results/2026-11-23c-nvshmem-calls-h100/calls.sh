#!/usr/bin/env bash
# NVSHMEM calls (ATOS_NVSHMEM_CALLS=1, atos/remote.cuh) on ranks sharing one H100: every remote
# push, atomic and counter read of a spread run goes through nvshmem_* calls on tagged symmetric
# addresses. BFS, owner-computes BFS and PageRank on 2 and 4 ranks, verified. Correctness only.
set -uo pipefail
NV=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nvshmem/lib
export LD_LIBRARY_PATH=$NV:/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"; cd .gpu 2>/dev/null || true
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/device.txt"
t0=$(date +%s)
export ATOS_NVSHMEM_CALLS=1
for n in 2 4; do
  for app in ${APPS:-bfs pagerank bfs-owner}; do for part in vertices random:7; do
    timeout 240 ./atos bench --app $app --graph data/luxembourg_osm.edges --graph kron:14 \
      --devices $n --transport nvshmem --share-gpus --partition $part --aggregation eager,64:20 \
      --worker cta --fetch 64 --runs 1 --warmup 0 --out "$out/calls.jsonl" >> "$out/calls-$n.log" 2>&1
    echo "ranks $n app $app $part rc=$? after $(( $(date +%s) - t0 )) s"
    [ $(( $(date +%s) - t0 )) -gt 500 ] && break 3
  done; done
done
python3 - "$out" <<'PY'
import json,sys,collections
try: rows=[json.loads(l) for l in open(sys.argv[1]+'/calls.jsonl')]
except FileNotFoundError: rows=[]
print(collections.Counter((r['devices'],r['app'],r['status']) for r in rows))
print(set(r['device'] for r in rows))
for r in rows:
    if r['status']!='ok': print('NOT OK', r['devices'], r['app'], r['graph'][-16:], r.get('partition'), r.get('aggregation'), r.get('error'))
print('compile_ms', sorted(set(int(r.get('compile_ms') or 0) for r in rows))[:8])
PY
grep -h -i -E 'error|illegal|fault' "$out"/calls-*.log | head -10
