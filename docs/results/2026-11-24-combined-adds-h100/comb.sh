#!/usr/bin/env bash
# Combined adds (accumulate) on devices sharing one GPU: correctness (the feature task, exact
# in-degrees with the delivered counts, the quiet residual push; PageRank both forms over p2p
# and NVSHMEM ranks, every run verified), then PageRank re-scan timings: atos_sweep (the
# previous HEAD, a remote fetch_add per edge) against atos_comb (this change), alternating.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
log="$out/comb.log"
cd .gpu
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/device.txt"
t0=$(date +%s)
step() { echo "=== $* (t=$(( $(date +%s) - t0 )) s)" | tee -a "$log"; }
step correctness p2p
c() { timeout 200 ./atos_comb bench --timeout 20 --quiet "$@" >> "$log" 2>&1; echo "rc=$? $*" | cut -c1-80 >> "$log"; }
for app in pagerank-rescan pagerank; do
  c --app $app --graph kron:16 --graph grid:256x256 --graph data/luxembourg_osm.edges --share-gpus --devices 2,3 --aggregation eager,256:20 --worker warp,cta --partition edges --runs 2 --warmup 0 --out "$out"/comb-correct.jsonl
done
c --app pagerank-rescan --graph kron:16 --share-gpus --devices 4 --worker cta --partition random:3 --runs 3 --warmup 0 --out "$out"/comb-correct.jsonl
step correctness nvshmem
export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nvshmem/lib
for calls in 0 1; do
  ATOS_NVSHMEM_CALLS=$calls c --app pagerank-rescan --graph kron:14 --graph grid:128x128 --transport nvshmem --share-gpus --devices 2 --worker cta --partition edges --runs 2 --warmup 0 --out "$out"/comb-nvshmem.jsonl
done
step timings
b() { bin=$1; shift; timeout 200 ./$bin bench --timeout 30 --quiet --share-gpus --out "$out"/comb-$bin.jsonl "$@" >> "$log" 2>&1; echo "rc=$? $bin $*" | cut -c1-80 >> "$log"; }
for bin in atos_sweep atos_comb; do
  step $bin
  b $bin --app pagerank-rescan --graph kron:22 --devices 1,2,4 --aggregation eager --worker cta --fetch 8 --partition edges --runs 3
done
for bin in atos_comb atos_sweep; do
  step $bin grid
  b $bin --app pagerank-rescan --graph grid:2048x2048 --devices 1,2 --aggregation eager --worker cta --fetch 8 --partition vertices --runs 3
done
step done
OUTDIR="$out" python3 - >> "$log" <<'PY'
import json,collections,os
out=os.environ['OUTDIR']
for f in [out+'/comb-correct.jsonl',out+'/comb-nvshmem.jsonl']:
    try: rows=[json.loads(l) for l in open(f)]
    except FileNotFoundError: print(f, 'missing'); continue
    print(f, 'records', len(rows), 'runs', sum(r['runs'] for r in rows), collections.Counter(r['status'] for r in rows))
    for r in rows:
        if r['status']!='ok': print('NOT OK', r['app'], r['graph'][-16:], r['devices'], r.get('partition'), r['worker'], r['aggregation'], r.get('error'))
        elif r['app']=='pagerank-rescan' and r.get('devices',1)>1: print('  ', r['app'], r['graph'][-16:], r['devices'], r['worker'], r['aggregation'], 'delivered', r.get('device_delivered'))
for b in ['atos_sweep','atos_comb']:
    try: rows=[json.loads(l) for l in open(out+'/comb-%s.jsonl' % b)]
    except FileNotFoundError: continue
    for r in rows:
        print(b, r['app'], r['graph'][-16:], r['devices'], r['status'], 'ms %.2f' % (r.get('median_ms') or 0), 'sweeps', r.get('idle_sweeps'), 'ops', r.get('device_remote_ops'), 'delivered', r.get('device_delivered'), 'ratio %.2f' % (r.get('workload_ratio') or 0), 'grid', r['grid'])
PY
grep -v "^rc=0" "$log" | grep -v "^graph\|^kron\|^lux\|^grid\|^$\|strong scaling" | tail -c 7000
