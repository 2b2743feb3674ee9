#!/usr/bin/env bash
# Issue 12: priority SSSP pruning only stale tasks of vertices above D out-edges, D swept, on
# all five graphs (default delta and slack), FIFO beside it on the meshes; every run verified.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"; cd .gpu
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/device.txt"
t0=$(date +%s)
S="--graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges --weights 1000"
L="--graph geo:1000000,w=1000 --graph kron:22,w=1000 --graph grid:4096x4096,w=100"
C="--strategy persistent --worker cta --fetch 8,64 --warmup 1 --timeout 20 --quiet --out $out/prune3.jsonl"
for round in 1 2; do
  timeout 60 ./atos bench --app sssp $S $C --runs 5 >> /tmp/p3.log 2>&1
  for p in on above:8 above:32 above:128 off; do
    timeout 60 ./atos bench --app sssp-priority $S $C --runs 5 --prune-stale $p >> /tmp/p3.log 2>&1
    timeout 120 ./atos bench --app sssp-priority $L $C --runs 3 --prune-stale $p >> /tmp/p3.log 2>&1
    echo "round $round prune $p rc=$? $(( $(date +%s) - t0 )) s"
  done
done
python3 - "$out" <<'PY'
import json,sys,collections,statistics as st
rows=[json.loads(l) for l in open(sys.argv[1]+'/prune3.jsonl')]
print('status', collections.Counter(r['status'] for r in rows))
for r in rows:
    if r['status']!='ok': print('NOT OK', r['app'], r['graph'][-20:], r.get('error'))
tab=collections.defaultdict(list)
for r in rows:
    if r['status']!='ok': continue
    g=r['graph'].split('/')[-1][:20]
    form='fifo' if r['app']=='sssp' else 'prio'
    tab[(g,form,r['prune_stale'],f"cta/{r['fetch']}")].append((r['median_ms'],r['workload_ratio']))
for k in sorted(tab):
    v=tab[k]
    print(*k, 'median', round(st.median([x for x,_ in v]),3), 'rounds', [round(x,3) for x,_ in v], 'work', round(st.median([w for _,w in v]),2))
PY
