#!/usr/bin/env bash
# Issue 12 on the two small meshes: FIFO SSSP against priority SSSP over a sweep of delta scale
# x advance slack, thread/warp/cta workers, fetch 8 and 64; every run verified against Dijkstra.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"; cd .gpu
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/device.txt"
t0=$(date +%s)
G="--graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges --weights 1000"
C="--strategy persistent --worker thread,warp,cta --fetch 8,64 --runs 5 --warmup 1 --quiet --out $out/mesh.jsonl"
for round in 1 2; do
  timeout 120 ./atos bench --app sssp $G $C >> "$out/mesh.log" 2>&1; echo "fifo round $round rc=$? $(( $(date +%s) - t0 )) s"
  for scale in 0.25 1 4 16; do for slack in 512 4096 100000000; do
    timeout 120 ./atos bench --app sssp-priority $G $C --delta-scale $scale --advance-slack $slack >> "$out/mesh.log" 2>&1
  done; echo "priority scale $scale rc=$? $(( $(date +%s) - t0 )) s"; done
done
python3 - "$out" <<'PY'
import json,sys,collections,statistics as st
rows=[json.loads(l) for l in open(sys.argv[1]+'/mesh.jsonl')]
print('status', collections.Counter(r['status'] for r in rows))
best=collections.defaultdict(lambda: (1e9,None))
tab=collections.defaultdict(list)
for r in rows:
    if r['status']!='ok': continue
    g=r['graph'].split('/')[-1][:12]
    form='fifo' if r['app']=='sssp' else f"d{r.get('delta')} s{r.get('advance_slack')}"
    key=(g,form)
    tab[(g,form,r['worker'],r['fetch'])].append((r['median_ms'],r['workload_ratio']))
for (g,form,w,f),v in tab.items():
    m=st.median([x for x,_ in v])
    if m<best[(g,form)][0]: best[(g,form)]=(m,f"{w}/{f} {[round(x,3) for x,_ in v]} work {v[0][1]:.2f}")
for k in sorted(best): print(k, round(best[k][0],3), best[k][1])
PY
