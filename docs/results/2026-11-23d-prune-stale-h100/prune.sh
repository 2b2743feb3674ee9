#!/usr/bin/env bash
# Issue 12: pruning stale tasks on and off, FIFO and priority SSSP, on the two small meshes
# (--weights 1000); persistent CTA workers, fetch 8 and 64; three rounds alternated; every run
# verified against Dijkstra. Also: the one-process spread feature check.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"; cd .gpu
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/device.txt"
echo "== one process, one GPU: the feature task as a spread program"
timeout 200 ./gpu_suite --spread-features 2>&1 | grep -v "^    " | tail -15
t0=$(date +%s)
G="--graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges --weights 1000"
C="--strategy persistent --worker cta --fetch 8,64 --runs 5 --warmup 1 --quiet --out $out/prune.jsonl"
for round in 1 2 3; do
  for p in off on; do
    timeout 120 ./atos bench --app sssp $G $C --prune-stale $p >> /tmp/prune.log 2>&1
  done
  for scale in 0.25 1; do for slack in 512 4096; do for p in on off; do
    timeout 120 ./atos bench --app sssp-priority $G $C --delta-scale $scale --advance-slack $slack --prune-stale $p >> /tmp/prune.log 2>&1
  done; done; done
  echo "round $round $(( $(date +%s) - t0 )) s"
done
python3 - "$out" <<'PY'
import json,sys,collections,statistics as st
rows=[json.loads(l) for l in open(sys.argv[1]+'/prune.jsonl')]
print('status', collections.Counter(r['status'] for r in rows))
for r in rows:
    if r['status']!='ok': print('NOT OK', r['app'], r['graph'][-20:], r.get('error'))
tab=collections.defaultdict(list)
for r in rows:
    if r['status']!='ok': continue
    g=r['graph'].split('/')[-1][:12]
    form='fifo' if r['app']=='sssp' else f"prio d{r.get('delta'):.0f} s{r.get('advance_slack')}"
    tab[(g,form,'prune '+str(r['prune_stale']),f"cta/{r['fetch']}")].append((r['median_ms'],r['workload_ratio']))
for k in sorted(tab):
    v=tab[k]
    print(*k, 'median of rounds', round(st.median([x for x,_ in v]),3), 'rounds', [round(x,3) for x,_ in v], 'work', round(st.median([w for _,w in v]),2))
PY
