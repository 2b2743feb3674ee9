#!/usr/bin/env bash
# Diagnosis: why the spread program on one device (--spread-one) costs 1.3x on meshes. Builds:
# atos_sweep (as committed; also with --min-blocks 8), atos_doneg (experiment: a batch's done
# counted with a device-scope release), atos_atomg (experiment: every ATOS_ATOMIC at device
# scope). The experiments are wrong across devices; on one device they only remove cost.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
log=/tmp/so.log
cd .gpu
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/device.txt"
for round in 1 2; do
  for v in "atos_sweep 0" "atos_sweep 8" "atos_doneg 0" "atos_atomg 0"; do
    set -- $v
    timeout 200 ./$1 bench --timeout 30 --quiet --min-blocks $2 --app bfs --graph grid:4096x4096 --graph data/luxembourg_osm.edges --devices 1 --spread-one --worker cta --fetch 64 --runs 5 --out /tmp/so-$1-$2.jsonl >> "$log" 2>&1; echo "$1 mb=$2 round $round rc=$?"
  done
done
python3 - <<'PY'
import json,glob,collections
for f in sorted(glob.glob('/tmp/so-*.jsonl')):
    t=collections.defaultdict(list)
    for l in open(f):
        r=json.loads(l)
        t[(r['graph'][-16:], 'spread' if r.get('devices') else 'plain')].append('%.2f %s g%d' % (r['median_ms'], r['status'], r['grid'][0]))
    for k,v in sorted(t.items()): print(f[8:-6], k, v)
PY
cp /tmp/so*.jsonl /tmp/so.log "$out/"
