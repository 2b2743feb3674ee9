#!/usr/bin/env bash
# Issue 13 on 2 GPUs, call 4: the same verified sweep as call 3 with the vertices and edges partitions, on grid:256x256 and delaunay_n16, then BFS and PageRank re-scan over the NVSHMEM transport.
# combined adds and deferred fences, on real GPUs over NVLink: the feature task spread over both
# GPUs against the CPU executor (gpu_suite --spread-features), then BFS, PageRank (both forms)
# and colouring spread over both GPUs on every worker kind, eager and aggregated (4:1 and 256:20),
# a random partition: every run (warm-up included) verified.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"; log="$out/x2.log"
cd .gpu
nvidia-smi --query-gpu=name,driver_version --format=csv > "$out/device.txt"
t0=$(date +%s)
: no suite this call
echo "suite t=$(( $(date +%s) - t0 ))" >> "$log"
for part in vertices edges; do for app in bfs pagerank-rescan pagerank coloring; do
  echo "=== $app (t=$(( $(date +%s) - t0 )) s)" >> "$log"
  timeout 55 ./atos bench --app $app --graph grid:256x256 --graph data/delaunay_n16.edges --devices 2 --worker thread,warp,cta \
    --fetch 8 --aggregation eager,4:1,256:20 --partition $part --runs 3 --warmup 1 --timeout 20 --quiet \
    --out "$out/records.jsonl" >> "$log" 2>&1; echo "rc=$? $app" >> "$log"
done; done
NV=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nvshmem/lib
for app in bfs pagerank-rescan; do
  echo "=== nvshmem $app (t=$(( $(date +%s) - t0 )) s)" >> "$log"
  LD_LIBRARY_PATH="$NV:$LD_LIBRARY_PATH" timeout 60 ./atos bench --app $app --graph kron:14 --graph data/luxembourg_osm.edges --devices 2 --transport nvshmem \
    --worker warp,cta --fetch 8 --aggregation eager,256:20 --partition edges --runs 3 --warmup 1 --timeout 20 --quiet \
    --out "$out/records.jsonl" >> "$log" 2>&1; echo "rc=$? nvshmem $app" >> "$log"
done
OUTDIR="$out" python3 - >> "$log" <<'PY'
import json,os,collections
c=collections.Counter(); runs=0
for l in open(os.environ['OUTDIR']+'/records.jsonl'):
    r=json.loads(l); c[(r['app'],r['status'],r['verified'])]+=1
    if r['status']=='ok': runs+=len(r['times_ms'])+1
print('SUMMARY', dict(c), 'verified runs (timed + warm-up):', runs)
PY
echo "end t=$(( $(date +%s) - t0 ))" >> "$log"
grep -E "^===|^rc=|SUMMARY|FAIL|WRONG|error|end t|suite t" "$log" | cut -c1-250
