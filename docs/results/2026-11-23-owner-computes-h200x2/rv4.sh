#!/usr/bin/env bash
# Review re-check after the stats refactor (one counting function for both executors): BFS,
# owner BFS and PageRank on 1 and 2 GPUs; every record's pushes and pops must balance.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
out="${OUT:-.gpu/out}"; mkdir -p "$out"; log="$out/rv4.log"; j="$out/rv4.jsonl"
cd .gpu
nvidia-smi --query-gpu=name,driver_version --format=csv > "$out/device.txt"
export ATOS_CACHE_DIR=/tmp/atos-kernels
for app in bfs bfs-owner pagerank; do
  timeout 100 ./atos bench --app $app --graph kron:16 --graph grid:256x256 --devices 1,2 --aggregation eager,256:20 --worker warp,cta --runs 2 --timeout 20 --quiet --out "$j" >> "$log" 2>&1; echo "rc=$?" >> "$log"
done
python3 - "$j" >> "$log" <<'PY'
import json,sys
bad=0;n=0
for l in open(sys.argv[1]):
    r=json.loads(l); n+=1
    ok = r['status']=='ok' and r['verified']
    if r['app']!='pagerank': ok = ok and r['popped']==r['pushed']+1
    if not ok: bad+=1; print('BAD', r['app'], r['graph'], r.get('devices'), r['status'], r['popped'], r['pushed'])
print('records', n, 'bad', bad)
PY
tail -c 3000 "$log"
