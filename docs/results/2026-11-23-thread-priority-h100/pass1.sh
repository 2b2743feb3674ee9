#!/usr/bin/env bash
# Issue 12: take_pass aggregated over a warp's converged lanes (atos_new) vs one swap per thread
# group (atos); correctness of every strategy x worker first; every run verified.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt"
S="--graph grid:256x256,w=100 --graph kron:16,w=1000 --graph data/luxembourg_osm.edges --weights 1000"
timeout 120 ./atos_new bench --app sssp-priority $S --strategy persistent,discrete,bsp --worker thread,warp,cta --fetch 8,64 --runs 1 --timeout 20 --quiet --out "$out/check.jsonl" > "$out/check-sssp.log" 2>&1; echo "check sssp rc=$?"
timeout 60 ./atos_new bench --app kcore --graph kron:12 --graph grid:256x256 --strategy persistent --worker thread,warp,cta --fetch 8,64 --runs 1 --timeout 20 --quiet --out "$out/check.jsonl" > "$out/check-kcore.log" 2>&1; echo "check kcore rc=$?"
timeout 60 ./atos_new bench --app bfs-priority --graph kron:16 --graph grid:256x256 --strategy persistent --worker thread,warp,cta --fetch 8,64 --runs 1 --timeout 20 --quiet --out "$out/check.jsonl" > "$out/check-bfs.log" 2>&1; echo "check bfs rc=$?"
for b in atos atos_new atos atos_new; do
  timeout 60 ./$b bench --app kcore --graph kron:10 --graph kron:12 --strategy persistent --worker thread --fetch 8 --runs 3 --timeout 10 --quiet --out "$out/time.jsonl" > "$out/$b-kcore.log" 2>&1; echo "$b kcore rc=$?"
  timeout 60 ./$b bench --app sssp-priority --graph data/luxembourg_osm.edges --graph grid:1024x1024,w=100 --weights 1000 --strategy persistent --worker thread,cta --fetch 8 --runs 3 --timeout 10 --quiet --out "$out/time.jsonl" > "$out/$b-sssp.log" 2>&1; echo "$b sssp rc=$?"
done
python3 - "$out" <<'PY'
import json,sys,os,collections
rows=[json.loads(l) for l in open(os.path.join(sys.argv[1],"check.jsonl"))]
c=collections.Counter((r['app'],r['status']) for r in rows); print(dict(c))
for r in rows:
    if r['status']!='ok': print("NOT OK", r['app'], r['graph'], r['strategy'], r['worker'], r['fetch'], (r.get('error') or '')[:150])
for l in open(os.path.join(sys.argv[1],"time.jsonl")):
    r=json.loads(l)
    print(f"{r['app']:14s} {r['graph'].split('/')[-1][:22]:22s} {r['worker']:6s} f{r['fetch']:<3} {r['status']:7s} {(r['median_ms'] or 0):10.3f} ms adv {r['advances']}")
PY
