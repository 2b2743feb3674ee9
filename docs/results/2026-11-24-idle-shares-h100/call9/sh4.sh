#!/usr/bin/env bash
# Idle sweep shares written by the host into each device's counters (Placement::sweep_share,
# one function for both executors) instead of computed on the device: the checks of sh3.sh
# with this build (atos_share), then one round of kron:20 PageRank timings beside atos_sweep
# (the build of a4004a4, which computed the shares on the device).
set -uo pipefail
NV=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nvshmem/lib
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
log=/tmp/sh4.log
cd .gpu
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/device.txt"
t0=$(date +%s)
step() { echo "=== $* (t=$(( $(date +%s) - t0 )) s)" | tee -a "$log"; }
step shared devices
for app in pagerank pagerank-rescan coloring; do
  for part in edges random:3; do
    timeout 150 ./atos_share bench --timeout 20 --quiet --share-gpus --app $app --graph kron:16 --graph grid:256x256 --graph data/luxembourg_osm.edges --devices 2,3,4 --aggregation eager,64:20 --worker warp,cta --partition $part --runs 2 --warmup 0 --out /tmp/sh4-ok.jsonl >> "$log" 2>&1; echo "$app $part rc=$?" | tee -a "$log"
  done
done
step stress
for s in 1 2 3; do
  timeout 150 ./atos_share bench --timeout 20 --quiet --share-gpus --app pagerank --graph kron:14,seed=$s --graph grid:128x128 --devices 2,4 --aggregation eager,$((s*40)):$s --worker cta,thread --partition random:$s --runs 5 --warmup 0 --out /tmp/sh4-stress.jsonl >> "$log" 2>&1; echo "stress $s rc=$?" | tee -a "$log"
done
step nvshmem ranks
for calls in 0 1; do
  LD_LIBRARY_PATH=$NV:$LD_LIBRARY_PATH ATOS_NVSHMEM_CALLS=$calls timeout 150 ./atos_share bench --timeout 20 --quiet --app pagerank --graph kron:14 --graph data/luxembourg_osm.edges --devices 2 --transport nvshmem --share-gpus --partition random:7 --aggregation eager --worker cta --runs 1 --warmup 0 --out /tmp/sh4-nv.jsonl >> "$log" 2>&1; echo "nvshmem calls=$calls rc=$?" | tee -a "$log"
done
step timings
for round in 1; do
  for bin in atos_sweep atos_share; do
    timeout 150 ./$bin bench --timeout 30 --quiet --share-gpus --app pagerank --graph kron:20 --devices 1,2 --aggregation eager --worker cta --fetch 64 --partition edges --runs 3 --out /tmp/sh4-t-$bin.jsonl >> "$log" 2>&1; echo "$bin rc=$?" >> "$log"
    timeout 150 ./$bin bench --timeout 30 --quiet --share-gpus --app pagerank-rescan --graph kron:20 --devices 2 --aggregation eager --worker cta --fetch 8 --partition edges --runs 3 --out /tmp/sh4-t-$bin.jsonl >> "$log" 2>&1; echo "$bin rc=$?" >> "$log"
  done
done
step done
python3 - >> "$log" <<'PY'
import json,collections,glob
for f in ['/tmp/sh4-ok.jsonl','/tmp/sh4-stress.jsonl','/tmp/sh4-nv.jsonl']:
    try: rows=[json.loads(l) for l in open(f)]
    except FileNotFoundError: print(f, 'missing'); continue
    print(f, 'records', len(rows), 'runs', sum(r['runs'] for r in rows), collections.Counter((r['app'], r['devices'], r['status']) for r in rows))
    for r in rows:
        if r['status']!='ok': print('NOT OK', r['app'], r['graph'][-16:], r['devices'], r.get('partition'), r['worker'], r['aggregation'], r.get('error'))
    print(set(r['device'] for r in rows))
for f in sorted(glob.glob('/tmp/sh4-t-*.jsonl')):
    for l in open(f):
        r=json.loads(l)
        print(f.split('-t-')[1][:-6], r['app'], r['graph'], r['devices'], r['worker'], r['fetch'], r['status'], 'ms %.2f' % r['median_ms'], 'ratio %.2f' % r['workload_ratio'], 'sent', r.get('remote_items'), 'ops', r.get('device_remote_ops'), 'grid', r['grid'])
PY
cp /tmp/sh4*.jsonl /tmp/sh4.log "$out/"
grep -v "^rc=0" "$log" | grep -v "^graph\|^kron\|^lux\|^grid\|^$\|strong scaling" | tail -c 7000
