#!/usr/bin/env bash
# Ring claims aggregated over a warp's converged lanes (atos_new) vs one claim per thread group
# (atos): correctness on every strategy x worker first, then timings alternated; all verified.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt"
chk() { local n=$1; shift; timeout 90 ./atos_new bench "$@" --runs 1 --timeout 20 --quiet --out "$out/check.jsonl" > "$out/check-$n.log" 2>&1; echo "check $n rc=$?"; }
chk bfs   --app bfs --graph grid:256x256 --graph kron:16 --graph data/luxembourg_osm.edges --strategy persistent,discrete,bsp --worker thread,warp,cta --fetch 1,8,64
chk sssp  --app sssp --graph grid:256x256,w=100 --graph kron:16,w=1000 --weights 1000 --strategy persistent,discrete --worker thread,warp,cta --fetch 8
chk prio  --app sssp-priority --graph grid:256x256,w=100 --graph data/luxembourg_osm.edges --weights 1000 --strategy persistent --worker thread,warp,cta --fetch 8
chk pr    --app pagerank --graph kron:14 --graph data/delaunay_n16.edges --strategy persistent --worker thread,warp,cta --fetch 8
chk gc    --app coloring --graph kron:14 --graph data/delaunay_n16.edges --strategy persistent --worker thread,warp,cta --fetch 8
for b in atos atos_new atos atos_new; do
  timeout 60 ./$b bench --app bfs --graph data/luxembourg_osm.edges --graph kron:20 --graph grid:2048x2048 --strategy persistent --worker thread,cta --fetch 1,8 --runs 3 --timeout 10 --quiet --out "$out/time-$b.jsonl" > "$out/$b-bfs.log" 2>&1; echo "$b bfs rc=$?"
done
python3 - "$out" <<'PY'
import json,sys,os,collections
rows=[json.loads(l) for l in open(os.path.join(sys.argv[1],"check.jsonl"))]
c=collections.Counter((r['app'],r['status']) for r in rows); print(dict(c))
for r in rows:
    if r['status']!='ok': print("NOT OK", r['app'], r['graph'], r['strategy'], r['worker'], r['fetch'], (r.get('error') or '')[:150])
t={}
for b in ["atos","atos_new"]:
    for l in open(os.path.join(sys.argv[1],f"time-{b}.jsonl")):
        r=json.loads(l); k=(r['graph'].split('/')[-1][:20],r['worker'],r['fetch']); t.setdefault(k,{}).setdefault(b,[]).append((r['status'],r['median_ms']))
for k,v in t.items(): print(k, v)
PY
