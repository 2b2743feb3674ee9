#!/usr/bin/env bash
# Issue 12: pruning on and off for priority SSSP (default delta and slack) on the large graphs.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"; cd .gpu
t0=$(date +%s)
G="--graph geo:1000000,w=1000 --graph kron:22,w=1000 --graph grid:4096x4096,w=100"
C="--strategy persistent --worker cta --fetch 8,64 --runs 3 --warmup 1 --timeout 20 --quiet --out $out/prune2.jsonl"
for round in 1 2; do for p in on off; do
  timeout 250 ./atos bench --app sssp-priority $G $C --prune-stale $p >> /tmp/prune2.log 2>&1
  echo "round $round prune $p rc=$? $(( $(date +%s) - t0 )) s"
done; done
python3 - "$out" <<'PY'
import json,sys,collections,statistics as st
rows=[json.loads(l) for l in open(sys.argv[1]+'/prune2.jsonl')]
print('status', collections.Counter(r['status'] for r in rows))
for r in rows:
    if r['status']!='ok': print('NOT OK', r['app'], r['graph'][-20:], r.get('error'))
tab=collections.defaultdict(list)
for r in rows:
    if r['status']!='ok': continue
    tab[(r['graph'][:22],'prune '+str(r['prune_stale']),f"cta/{r['fetch']}")].append((r['median_ms'],r['workload_ratio']))
for k in sorted(tab):
    v=tab[k]
    print(*k, 'median', round(st.median([x for x,_ in v]),3), 'rounds', [round(x,3) for x,_ in v], 'work', round(st.median([w for _,w in v]),2))
PY
