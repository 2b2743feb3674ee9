#!/usr/bin/env bash
# Devices sharing one GPU side by side (Gpus::shared, bench --share-gpus, peer-to-peer in one
# process): correctness and stress of BFS, owner BFS and PageRank over 2-4 devices, the feature
# task over 2 and 3 devices, then kron:22 timings with and without the CTA remote stage.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
log=/tmp/sh1.log
cd .gpu
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/device.txt"
t0=$(date +%s)
step() { echo "=== $* (t=$(( $(date +%s) - t0 )) s)" | tee -a "$log"; }
c() { timeout 200 ./atos_new bench --timeout 20 --quiet --share-gpus "$@" >> "$log" 2>&1; echo "rc=$?" | tee -a "$log"; }
step correctness
for app in bfs bfs-owner pagerank; do
  c --app $app --graph kron:16 --graph grid:256x256 --graph data/luxembourg_osm.edges --devices 2,3,4 --aggregation eager,256:20 --worker warp,cta --partition edges --runs 2 --warmup 0 --out /tmp/sh1-correct.jsonl
  c --app $app --graph kron:16 --graph grid:256x256 --devices 2,3 --aggregation eager,256:20 --worker cta --partition random:5 --runs 2 --warmup 0 --out /tmp/sh1-correct.jsonl
done
step stress
for s in 1 2 3; do
  c --app bfs --graph kron:14,seed=$s --graph grid:128x128 --devices 2,4 --aggregation eager,$((s*40)):$s --worker cta,thread --partition random:$s --runs 10 --warmup 0 --out /tmp/sh1-stress.jsonl
done
python3 - >> "$log" <<'PY'
import json,collections
for f in ['/tmp/sh1-correct.jsonl','/tmp/sh1-stress.jsonl']:
    rows=[json.loads(l) for l in open(f)]
    print(f, 'records', len(rows), 'runs', sum(r['runs'] for r in rows), collections.Counter((r['devices'],r['status']) for r in rows))
    for r in rows:
        if r['status']!='ok': print('NOT OK', r['devices'], r['app'], r['graph'][-16:], r.get('partition'), r.get('aggregation'), r.get('worker'), r.get('error'))
    print(set(r['device'] for r in rows))
PY
step features
for n in 2 3; do timeout 120 ./gpu_suite --spread-features --spread-devices $n > /tmp/feat$n.log 2>&1; echo "features $n devices rc=$? $(grep -c identical /tmp/feat$n.log) identical $(grep -c FAIL /tmp/feat$n.log) failed" | tee -a "$log"; head -1 /tmp/feat$n.log >> "$log"; done
step timings
for round in 1 2; do
  for bin in atos_nostage atos_new; do
    timeout 150 ./$bin bench --timeout 30 --quiet --share-gpus --app bfs --graph kron:22 --devices 1,2 --spread-one --aggregation eager,1024:20 --worker cta --fetch 64 --partition edges --runs 5 --out /tmp/sh1-$bin.jsonl >> "$log" 2>&1; echo "$bin rc=$?" >> "$log"
  done
done
for bin in atos_nostage atos_new; do
  timeout 150 ./$bin bench --timeout 30 --quiet --share-gpus --app pagerank --graph kron:20 --devices 1,2 --aggregation eager,1024:20 --worker cta --fetch 64 --partition edges --runs 3 --out /tmp/sh1-$bin.jsonl >> "$log" 2>&1; echo "$bin rc=$?" >> "$log"
done
step done
python3 - >> "$log" <<'PY'
import json
for b in ['atos_nostage','atos_new']:
  for l in open('/tmp/sh1-%s.jsonl' % b):
    r=json.loads(l)
    print(b, r['app'], r['graph'], r['devices'], r.get('spread_one'), r['aggregation'], r['status'], 'ms %.2f' % (r.get('median_ms') or 0), 'remote', r.get('remote_items'), 'ratio %.2f' % (r.get('workload_ratio') or 0), 'grid', r['grid'], 'tasks', r.get('device_tasks'))
PY
cp /tmp/sh1*.jsonl /tmp/sh1.log "$out/"
grep -v "^rc=0" "$log" | tail -c 6000
