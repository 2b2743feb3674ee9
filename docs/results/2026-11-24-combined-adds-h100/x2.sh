#!/usr/bin/env bash
# Issue 13 on 2 GPUs (nvidia-h200-x2): correctness, then PageRank re-scan with and without
# combined adds (atos_comb --combine on|off) and the previous HEAD (atos_sweep), plus BFS and
# PageRank against one GPU. Every run verified. Logs and records under $OUT.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"; log="$out/x2.log"
cd .gpu
nvidia-smi --query-gpu=name,driver_version --format=csv > "$out/device.txt"; nvidia-smi topo -m > "$out/topo.txt" 2>&1
t0=$(date +%s)
b() { tag=$1; bin=$2; shift 2; echo "=== $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; timeout 240 ./$bin bench --timeout 30 --quiet --out "$out/x2-$tag.jsonl" "$@" >> "$log" 2>&1; echo "rc=$? $tag" >> "$log"; }
for app in pagerank-rescan pagerank bfs; do
  b correct-$app atos_comb --app $app --graph kron:16 --graph grid:256x256 --graph data/luxembourg_osm.edges --devices 2 --aggregation eager,256:20 --worker warp,cta --partition edges --runs 2 --warmup 0
done
b pr-on atos_comb --app pagerank-rescan --graph kron:22 --devices 1,2 --worker cta --fetch 8 --partition edges --runs 5 --combine on
b pr-off atos_comb --app pagerank-rescan --graph kron:22 --devices 2 --worker cta --fetch 8 --partition edges --runs 5 --combine off
b pr-old atos_sweep --app pagerank-rescan --graph kron:22 --devices 2 --worker cta --fetch 8 --partition edges --runs 5
b bfs atos_comb --app bfs --graph kron:22 --devices 1,2 --aggregation eager,1024:20 --worker cta --fetch 64 --partition edges --runs 5
b grid atos_comb --app bfs --graph grid:4096x4096 --devices 1,2 --worker cta --fetch 64 --partition vertices --runs 3
OUTDIR="$out" python3 - >> "$log" <<'PY'
import json,glob,os
for f in sorted(glob.glob(os.environ['OUTDIR']+'/x2-*.jsonl')):
    for l in open(f):
        r=json.loads(l)
        print(os.path.basename(f)[3:-6], r['app'], r['graph'][-16:], r.get('devices'), r.get('aggregation'), r['status'], 'ms %.2f' % (r.get('median_ms') or 0), 'ops', r.get('device_remote_ops'), 'delivered', r.get('device_delivered'), 'combining', r.get('combining'), 'grid', r['grid'])
PY
grep -v "^graph\|^kron\|^lux\|^grid\|^$\|strong scaling" "$log" | tail -c 8000
