#!/usr/bin/env bash
# Issue 13 on 2 GPUs (nvidia-h200-x2): the CTA remote stage and per-device idle sweeps over
# NVLink. Correctness and stress first (atos_sweep = HEAD), then timings against atos_nostage
# (HEAD with the CTA remote stage turned off in the code generator) and atos_done (HEAD with
# docs/results/2026-11-24-done-batching-h100/done-batching.patch), alternating, with each
# device's remote element accesses. Every run verified.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
log=/tmp/rs2.log
cd .gpu
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt"
nvidia-smi topo -m > "$out/topo.txt" 2>&1
t0=$(date +%s)
step() { echo "=== $* (t=$(( $(date +%s) - t0 )) s)" | tee -a "$log"; }
c() { timeout 150 ./atos_sweep bench --timeout 20 --quiet "$@" >> "$log" 2>&1; echo "rc=$?" >> "$log"; }
step correctness
for app in bfs bfs-owner pagerank pagerank-rescan; do
  c --app $app --graph kron:16 --graph grid:256x256 --graph data/luxembourg_osm.edges --devices 2 --aggregation eager,256:20 --worker warp,cta --partition edges --runs 2 --warmup 0 --out /tmp/rs2-correct.jsonl
done
step stress
for s in 1 2; do
  c --app bfs --graph kron:14,seed=$s --graph grid:128x128 --devices 2 --aggregation eager,$((s*40)):$s --worker cta --partition random:$s --runs 10 --warmup 0 --out /tmp/rs2-stress.jsonl
done
b() { bin=$1; shift; timeout 120 ./$bin bench --timeout 30 --quiet --out /tmp/rs2-$bin.jsonl "$@" >> "$log" 2>&1; echo "rc=$?" >> "$log"; }
for round in 1 2; do
  for bin in atos_nostage atos_sweep atos_done; do
    step $bin round $round
    b $bin --app bfs --graph kron:22 --devices 1,2 --aggregation eager,1024:20 --worker cta --fetch 64 --partition edges --runs 5
    b $bin --app bfs --graph grid:4096x4096 --devices 1,2 --aggregation eager --worker cta --fetch 64 --partition vertices --runs 3
    b $bin --app pagerank-rescan --graph kron:20 --devices 1,2 --aggregation eager --worker cta --fetch 8 --partition edges --runs 3
  done
done
for bin in atos_nostage atos_sweep; do
  step $bin kron:24, pagerank, owner, grid
  b $bin --app bfs --graph kron:24 --devices 1,2 --aggregation 1024:20 --worker cta --fetch 64 --partition edges --runs 3
  b $bin --app pagerank --graph kron:20 --devices 1,2 --aggregation eager,1024:20 --worker cta --fetch 64 --partition edges --runs 3
  b $bin --app bfs-owner --graph kron:22 --devices 2 --aggregation 1024:20 --worker cta --fetch 64 --partition edges --runs 3
done
step done
python3 - >> "$log" <<'PY'
import json,collections,glob
for f in ['/tmp/rs2-correct.jsonl','/tmp/rs2-stress.jsonl']:
    try: rows=[json.loads(l) for l in open(f)]
    except FileNotFoundError: print(f, 'missing'); continue
    print(f, 'records', len(rows), 'runs', sum(r['runs'] for r in rows), collections.Counter(r['status'] for r in rows))
    for r in rows:
        if r['status']!='ok': print('NOT OK', r['app'], r['graph'][-16:], r['devices'], r.get('partition'), r['worker'], r['aggregation'], r.get('error'))
for b in ['atos_nostage','atos_sweep','atos_done']:
    try: rows=[json.loads(l) for l in open('/tmp/rs2-%s.jsonl' % b)]
    except FileNotFoundError: continue
    for r in rows:
        print(b, r['app'], r['graph'], r['devices'], r['aggregation'], r['status'], 'ms %.2f' % (r.get('median_ms') or 0), 'sent', r.get('remote_items'), 'ops', r.get('device_remote_ops'), 'ratio %.2f' % (r.get('workload_ratio') or 0), 'grid', r['grid'])
PY
cp /tmp/rs2*.jsonl /tmp/rs2.log "$out/"
grep -v "^rc=0" "$log" | grep -v "^graph\|^kron\|^lux\|^grid\|^$\|strong scaling" | tail -c 8000
