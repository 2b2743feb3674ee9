#!/usr/bin/env bash
# Issue 13/14 on 2 GPUs (nvidia-h200-x2): topology, correctness of the spread apps, then
# PageRank re-scan with and without combined adds, BFS eager and aggregated, the grid, and the
# NVSHMEM transport, each against one GPU in the same bench run. Every run verified.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"; log="$out/x2.log"
cd .gpu
nvidia-smi --query-gpu=name,driver_version --format=csv > "$out/device.txt"; nvidia-smi topo -m > "$out/topo.txt" 2>&1
t0=$(date +%s)
left() { echo $(( 530 - ($(date +%s) - t0) )); }
b() { tag=$1; lim=$2; shift 2; [ "$(left)" -lt 20 ] && { echo "skip $tag" >> "$log"; return; }; [ "$lim" -gt "$(left)" ] && lim=$(left); echo "=== $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; timeout $lim ./atos bench --timeout 30 --quiet --out "$out/records.jsonl" "$@" >> "$log" 2>&1; echo "rc=$? $tag" >> "$log"; }
./atos graph convert kron:22 /tmp/kron22.acsr > /dev/null 2>&1; ./atos graph convert grid:4096x4096 /tmp/grid.acsr > /dev/null 2>&1
echo "graphs t=$(( $(date +%s) - t0 ))" >> "$log"
for app in pagerank-rescan bfs; do
  b correct-$app 60 --app $app --graph kron:16 --graph data/luxembourg_osm.edges --devices 2 --aggregation eager,256:20 --worker warp,cta --partition edges --runs 1 --warmup 0
done
b pr 120 --app pagerank-rescan --graph /tmp/kron22.acsr --devices 1,2 --worker cta --fetch 8 --partition edges --runs 5 --combine on
b pr-off 60 --app pagerank-rescan --graph /tmp/kron22.acsr --devices 2 --worker cta --fetch 8 --partition edges --runs 5 --combine off
b bfs 80 --app bfs --graph /tmp/kron22.acsr --devices 1,2 --aggregation eager,1024:20 --worker cta --fetch 64 --partition edges --runs 5
b grid 80 --app bfs --graph /tmp/grid.acsr --devices 1,2 --worker cta --fetch 64 --partition vertices --runs 3
NV=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nvshmem/lib
LD_LIBRARY_PATH="$NV:$LD_LIBRARY_PATH" b nvshmem 90 --app bfs --graph /tmp/kron22.acsr --devices 2 --transport nvshmem --worker cta --fetch 64 --partition edges --runs 3
OUTDIR="$out" python3 - >> "$log" <<'PY'
import json,os
for l in open(os.environ['OUTDIR']+'/records.jsonl'):
    r=json.loads(l)
    print('REC', r['app'], r['graph'][-14:], r.get('devices'), r.get('aggregation'), r.get('combining'), r['strategy'], r['worker'], r['fetch'], r['status'], 'ms %.2f' % (r.get('median_ms') or 0), 'ops', r.get('device_remote_ops'), 'dlv', r.get('device_delivered'), 'wl %.2f' % (r.get('workload_ratio') or 0))
PY
echo "end t=$(( $(date +%s) - t0 ))" >> "$log"
cat "$out/topo.txt" | head -8
grep -E "^===|^rc=|^REC|FAIL|WRONG|error|skip|end t|graphs t" "$log" | cut -c1-220
