#!/usr/bin/env bash
# Issue 13 on 2 GPUs, call 6: `done` counted once per 16 batches in spread units without an
# idle hook (this build): correctness of BFS and colouring spread over both GPUs (every worker,
# eager/4:1/256:20, random and vertices partitions), then the grid and kron:22 BFS against one GPU.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"; log="$out/x2.log"
cd .gpu
nvidia-smi --query-gpu=name,driver_version --format=csv > "$out/device.txt"
t0=$(date +%s)
for app in bfs coloring; do
  for gp in "--graph kron:14 --graph data/luxembourg_osm.edges --partition random:7" "--graph grid:256x256 --graph data/delaunay_n16.edges --partition vertices"; do
    echo "=== $app $gp (t=$(( $(date +%s) - t0 )) s)" >> "$log"
    timeout 50 ./atos bench --app $app $gp --devices 2 --worker thread,warp,cta --fetch 8 --aggregation eager,4:1,256:20 \
      --runs 3 --warmup 1 --timeout 20 --quiet --out "$out/check.jsonl" >> "$log" 2>&1; echo "rc=$? $app" >> "$log"
  done
done
./atos graph convert kron:22 /tmp/kron22.acsr > /dev/null 2>&1; ./atos graph convert grid:4096x4096 /tmp/grid.acsr > /dev/null 2>&1
echo "=== grid (t=$(( $(date +%s) - t0 )) s)" >> "$log"
timeout 50 ./atos bench --app bfs --graph /tmp/grid.acsr --devices 1,2 --worker cta --fetch 64 --partition vertices --runs 5 --timeout 30 --quiet --out "$out/time.jsonl" >> "$log" 2>&1; echo "rc=$? grid" >> "$log"
echo "=== kron (t=$(( $(date +%s) - t0 )) s)" >> "$log"
timeout 50 ./atos bench --app bfs --graph /tmp/kron22.acsr --devices 1,2 --aggregation eager,1024:20 --worker cta --fetch 64 --partition edges --runs 5 --timeout 30 --quiet --out "$out/time.jsonl" >> "$log" 2>&1; echo "rc=$? kron" >> "$log"
python3 - "$out" >> "$log" <<'PY'
import json,sys,collections
c=collections.Counter(); runs=0
for l in open(sys.argv[1]+'/check.jsonl'):
    r=json.loads(l); c[(r['app'],r['status'],r['verified'])]+=1
    if r['status']=='ok': runs+=len(r['times_ms'])+1
print('SUMMARY', dict(c), 'verified runs:', runs)
for l in open(sys.argv[1]+'/time.jsonl'):
    r=json.loads(l)
    print('REC', r['app'], r['graph'][-14:], r.get('devices'), r.get('aggregation'), r['status'], r['verified'], 'ms %.2f' % (r.get('median_ms') or 0))
PY
echo "end t=$(( $(date +%s) - t0 ))" >> "$log"
grep -E "^===|^rc=|^REC|SUMMARY|end t" "$log" | cut -c1-200
