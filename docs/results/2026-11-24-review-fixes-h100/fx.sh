#!/usr/bin/env bash
# Review fixes: a barrier before a kept batch pushes again (every persistent CTA group with
# keep), the remote stage's fence only where a thread stored. One-GPU BFS side by side with
# the build before (atos_sweep), then verified spread runs on 2-4 devices sharing the GPU.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
log=/tmp/fx.log
cd .gpu
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/device.txt"
for round in 1 2 3 4; do
  for bin in atos_sweep atos_fix; do
    timeout 200 ./$bin bench --timeout 30 --quiet --app bfs --graph kron:22 --graph grid:4096x4096 --graph data/luxembourg_osm.edges --worker cta --fetch 64 --runs 5 --out /tmp/fx-$bin.jsonl >> "$log" 2>&1; echo "$bin round $round rc=$?"
  done
done
for app in bfs pagerank; do for part in random:5; do
  timeout 150 ./atos_fix bench --timeout 20 --quiet --share-gpus --app $app --graph kron:16 --graph grid:256x256 --graph data/luxembourg_osm.edges --devices 2,3,4 --aggregation eager,64:20 --worker warp,cta --partition $part --runs 2 --warmup 0 --out /tmp/fx-ok.jsonl >> "$log" 2>&1; echo "$app $part spread rc=$?"
done; done
python3 - <<'PY'
import json,collections,statistics
rows=[json.loads(l) for l in open('/tmp/fx-ok.jsonl')]
print('spread', len(rows), 'configurations', sum(r['runs'] for r in rows), 'runs', collections.Counter(r['status'] for r in rows))
for r in rows:
    if r['status']!='ok': print('NOT OK', r['app'], r['graph'][-16:], r['devices'], r.get('partition'), r['worker'], r['aggregation'], r.get('error'))
for b in ['atos_sweep','atos_fix']:
    t=collections.defaultdict(list)
    for l in open('/tmp/fx-%s.jsonl' % b):
        r=json.loads(l); t[r['graph'][-16:]].append((r['median_ms'], r['status']))
    for g,v in t.items(): print(b, g, ['%.3f %s' % x for x in v])
PY
cp /tmp/fx*.jsonl /tmp/fx.log "$out/"
