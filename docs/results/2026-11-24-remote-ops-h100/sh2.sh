#!/usr/bin/env bash
# The devices' remote element accesses (DeviceCounters.remote_ops, bench device_remote_ops):
# verified spread runs on devices sharing this GPU and on NVSHMEM ranks sharing it, with the
# counts, then kron:22 BFS and kron:20 PageRank timings against the build without the count.
set -uo pipefail
NV=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nvshmem/lib
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
log=/tmp/sh2.log
cd .gpu
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/device.txt"
t0=$(date +%s)
step() { echo "=== $* (t=$(( $(date +%s) - t0 )) s)" | tee -a "$log"; }
step shared devices
for app in bfs bfs-owner pagerank pagerank-rescan; do
  timeout 120 ./atos_ops bench --timeout 20 --quiet --share-gpus --app $app --graph kron:16 --graph data/luxembourg_osm.edges --devices 1,2,3 --spread-one --aggregation eager,64:20 --worker warp,cta --partition edges --runs 2 --warmup 0 --out /tmp/sh2-ops.jsonl >> "$log" 2>&1; echo "$app rc=$?" | tee -a "$log"
done
step nvshmem ranks
for calls in 0 1; do
  LD_LIBRARY_PATH=$NV:$LD_LIBRARY_PATH ATOS_NVSHMEM_CALLS=$calls timeout 150 ./atos_ops bench --timeout 20 --quiet --app bfs --graph kron:14 --devices 2 --transport nvshmem --share-gpus --partition random:7 --aggregation eager --worker cta --runs 1 --warmup 0 --out /tmp/sh2-nv.jsonl >> "$log" 2>&1; echo "nvshmem calls=$calls rc=$?" | tee -a "$log"
done
step timings
for round in 1 2; do
  for bin in atos_new atos_ops; do
    timeout 150 ./$bin bench --timeout 30 --quiet --share-gpus --app bfs --graph kron:22 --devices 2 --aggregation eager,1024:20 --worker cta --fetch 64 --partition edges --runs 5 --out /tmp/sh2-t-$bin.jsonl >> "$log" 2>&1; echo "$bin rc=$?" >> "$log"
    timeout 150 ./$bin bench --timeout 30 --quiet --share-gpus --app pagerank --graph kron:20 --devices 2 --aggregation eager --worker cta --fetch 64 --partition edges --runs 3 --out /tmp/sh2-t-$bin.jsonl >> "$log" 2>&1; echo "$bin rc=$?" >> "$log"
  done
done
step done
python3 - >> "$log" <<'PY'
import json,collections,glob
for f in ['/tmp/sh2-ops.jsonl','/tmp/sh2-nv.jsonl']:
    try: rows=[json.loads(l) for l in open(f)]
    except FileNotFoundError: print(f, 'missing'); continue
    print(f, collections.Counter((r['app'], r['devices'], r['status']) for r in rows))
    for r in rows:
        print(' ', r['app'], r['graph'][-16:], r['devices'], r['worker'], r['aggregation'], r['status'], 'sent', r.get('remote_items'), 'remote_ops', r.get('device_remote_ops'), r['device'][:40])
for f in sorted(glob.glob('/tmp/sh2-t-*.jsonl')):
    for l in open(f):
        r=json.loads(l)
        print(f.split('-t-')[1][:-6], r['app'], r['graph'], r['devices'], r['aggregation'], r['status'], 'ms %.2f' % r['median_ms'], 'ops', r.get('device_remote_ops'), 'grid', r['grid'])
PY
cp /tmp/sh2*.jsonl /tmp/sh2.log "$out/"
grep -v "^rc=0" "$log" | grep -v "^graph\|^kron\|^lux\|^$\|strong scaling" | tail -c 9000
