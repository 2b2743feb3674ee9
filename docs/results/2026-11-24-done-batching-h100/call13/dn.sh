#!/usr/bin/env bash
# `done` counted once per 16 batches (and before a group looks for the end) in spread units:
# verified spread runs on 2-4 devices sharing the GPU (with and without idle hooks, stress),
# then --spread-one and 2 shared devices against the build before (atos_sweep) and the
# experiment with a device-scope release (atos_doneg, wrong across devices).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
log=/tmp/dn.log
cd .gpu
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/device.txt"
for app in bfs pagerank coloring; do for part in edges random:5; do
  timeout 150 ./atos_done2 bench --timeout 20 --quiet --share-gpus --app $app --graph kron:16 --graph grid:256x256 --graph data/luxembourg_osm.edges --devices 2,3,4 --aggregation eager,64:20 --worker warp,cta --partition $part --runs 2 --warmup 0 --out /tmp/dn-ok.jsonl >> "$log" 2>&1; echo "$app $part rc=$?"
done; done
for s in 1 2; do
  timeout 150 ./atos_done2 bench --timeout 20 --quiet --share-gpus --app bfs --graph kron:14,seed=$s --graph grid:128x128 --devices 2,4 --aggregation eager,$((s*40)):$s --worker cta,thread --partition random:$s --runs 10 --warmup 0 --out /tmp/dn-stress.jsonl >> "$log" 2>&1; echo "stress $s rc=$?"
done
for round in 1 2; do
  for bin in atos_sweep atos_done atos_done2; do
    timeout 200 ./$bin bench --timeout 30 --quiet --share-gpus --app bfs --graph grid:4096x4096 --graph data/luxembourg_osm.edges --graph kron:22 --devices 1,2 --spread-one --aggregation eager --worker cta --fetch 64 --partition vertices --runs 5 --out /tmp/dn-$bin.jsonl >> "$log" 2>&1; echo "$bin round $round rc=$?"
  done
done
python3 - <<'PY'
import json,glob,collections
for f in ['/tmp/dn-ok.jsonl','/tmp/dn-stress.jsonl']:
    rows=[json.loads(l) for l in open(f)]
    print(f, 'records', len(rows), 'runs', sum(r['runs'] for r in rows), collections.Counter(r['status'] for r in rows))
    for r in rows:
        if r['status']!='ok': print('NOT OK', r['app'], r['graph'][-16:], r['devices'], r.get('partition'), r['worker'], r['aggregation'], r.get('error'))
for b in ["atos_sweep","atos_done","atos_done2"]:
    t=collections.defaultdict(list)
    for l in open('/tmp/dn-%s.jsonl' % b):
        r=json.loads(l)
        t[(r['graph'][-16:], r['devices'])].append('%.2f %s' % (r['median_ms'], r['status']))
    for k,v in sorted(t.items(), key=str): print(b, k, v)
PY
cp /tmp/dn*.jsonl /tmp/dn.log "$out/"
