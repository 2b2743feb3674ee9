#!/usr/bin/env bash
# Issue 13, remote stage, on one GPU: the CTA-staged remote pushes over NVSHMEM ranks sharing
# the GPU (mappings, then calls): BFS, owner BFS, PageRank verified; then the feature task
# spread over 2 ranks both ways (scripts/gpu-check.sh PART=spread). Correctness only.
set -uo pipefail
NV=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nvshmem/lib
export LD_LIBRARY_PATH=$NV:/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
t0=$(date +%s)
(cd .gpu
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/device.txt"
for calls in 0 1; do
  for n in 2 3; do
    [ $calls = 1 ] && [ $n = 3 ] && continue
    parts="edges random:7"; apps="bfs bfs-owner pagerank"; workers=warp,cta
    [ $calls = 1 ] && { parts=random:7; apps="bfs pagerank"; workers=cta; }
    for part in $parts; do
      for app in $apps; do
      ATOS_NVSHMEM_CALLS=$calls timeout 120 ./atos_new bench --app $app --graph data/luxembourg_osm.edges --graph kron:14 --graph grid:128x128 \
        --devices $n --transport nvshmem --share-gpus --partition $part --aggregation eager,64:20 \
        --worker $workers --fetch 64 --runs 1 --warmup 0 --quiet --out /tmp/rs-c$calls.jsonl >> /tmp/rs-$n-c$calls.log 2>&1
      echo "calls $calls ranks $n $part $app rc=$? after $(( $(date +%s) - t0 )) s"; done
    done
  done
done
python3 - <<'PY'
import json,collections,glob
for f in sorted(glob.glob('/tmp/rs-c*.jsonl')):
    rows=[json.loads(l) for l in open(f)]
    print(f, collections.Counter((r['devices'],r['app'],r['status']) for r in rows))
    for r in rows:
        if r['status']!='ok': print('NOT OK', r['devices'], r['app'], r['graph'][-16:], r.get('partition'), r.get('aggregation'), r.get('worker'), r.get('error'))
    print('remote items', sum(r.get('remote_items') or 0 for r in rows))
PY
grep -h -i -E 'error|illegal|fault' /tmp/rs-*.log | head -10
cp /tmp/rs-c*.jsonl "$out/" )
echo "spread check at $(( $(date +%s) - t0 )) s"
PART=spread RANKS=2 timeout $(( 590 - ($(date +%s) - t0) )) bash scripts/gpu-check.sh 2>&1 | tail -8
echo "end at $(( $(date +%s) - t0 )) s"
