#!/usr/bin/env bash
# Several NVSHMEM ranks sharing one GPU (`--share-gpus`): the device-linked check on 3 and 4
# ranks, then BFS, owner-computes BFS and PageRank spread over 2, 3 and 4 ranks on one H100,
# every partition, eager and aggregated, warp and CTA workers; every run verified. Correctness
# only: the ranks time-slice the GPU.
set -uo pipefail
NV=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nvshmem/lib
export LD_LIBRARY_PATH=$NV:/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"; cd .gpu
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/device.txt"
t0=$(date +%s)
for n in 4; do timeout 60 ./atos run --np $n --share-gpus nvshmem-check 2>&1 | tail -n $n; done | tee "$out/check.log"
./atos run --np 2 nvshmem-check 2>&1 | tail -2 | tee -a "$out/check.log"   # refused: 2 ranks, 1 GPU
for n in 2 3 4; do
  for app in bfs bfs-owner pagerank; do for part in vertices edges random:7; do
    timeout 60 ./atos bench --app $app --graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges --graph kron:14 \
      --devices $n --transport nvshmem --share-gpus --partition $part --aggregation eager,64:20 \
      --worker warp,cta --fetch 64 --runs 1 --warmup 0 --quiet --out "$out/share.jsonl" >> "$out/share-$n.log" 2>&1
    echo "ranks $n app $app $part rc=$? after $(( $(date +%s) - t0 )) s"
  done; done
done
python3 - "$out" <<'PY'
import json,sys,collections
rows=[json.loads(l) for l in open(sys.argv[1]+'/share.jsonl')]
c=collections.Counter((r.get('devices'),r['app'],r['status']) for r in rows)
for k in sorted(c, key=str): print(k, c[k])
bad=[(r.get('devices'),r['app'],r['graph'][-20:],r.get('partition'),r.get('aggregation'),r['worker'],r.get('error')) for r in rows if r['status']!='ok']
print('not ok:', len(bad)); [print(b) for b in bad[:10]]
PY
