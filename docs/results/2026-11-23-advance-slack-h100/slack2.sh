#!/usr/bin/env bash
# Issue 12: GPU correctness of advance slack on every strategy x worker (every run verified).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt"
S="--graph grid:256x256,w=100 --graph kron:16,w=1000 --graph data/luxembourg_osm.edges --weights 1000"
run() { local name=$1; shift; timeout 120 ./atos bench "$@" --runs 1 --timeout 20 --quiet --out "$out/check.jsonl" > "$out/$name.log" 2>&1; echo "$name rc=$?"; }
run default   --app sssp-priority $S --strategy persistent,discrete,bsp --worker thread,warp,cta --fetch 8,64
run slack1    --app sssp-priority $S --advance-slack 1 --strategy persistent --worker thread,warp,cta --fetch 8,64
run slackbig  --app sssp-priority $S --advance-slack 1000000 --strategy persistent --worker thread,warp,cta --fetch 8,64
run float     --app sssp-priority $S --float-weights --strategy persistent --worker thread,warp,cta --fetch 8,64
run bfs       --app bfs-priority --graph grid:256x256 --graph kron:16 --graph data/luxembourg_osm.edges --advance-slack 64 --strategy persistent --worker thread,warp,cta --fetch 8,64
python3 - "$out/check.jsonl" <<'PY'
import json,sys,collections
rows=[json.loads(l) for l in open(sys.argv[1])]
c=collections.Counter((r['app'],r.get('advance_slack'),r['status']) for r in rows)
for k,v in sorted(c.items(), key=str): print(k, v)
bad=[r for r in rows if r['status']!='ok']
for r in bad: print("NOT OK", r['app'], r['graph'], r['strategy'], r['worker'], r['fetch'], r.get('advance_slack'), r['status'], (r.get('error') or '')[:200])
print(len(rows), "configurations,", len(bad), "not ok")
PY
