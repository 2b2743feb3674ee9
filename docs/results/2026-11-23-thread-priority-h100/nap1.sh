#!/usr/bin/env bash
# Issue 12: thread-worker priority programs with the 256 ns idle-nap cap (atos, before) and
# with the default cap (atos_new), same call; every run verified.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt"
for b in atos atos_new; do
  timeout 60 ./$b bench --app kcore --graph kron:10 --graph kron:12 --strategy persistent --worker thread --fetch 8 --runs 3 --timeout 10 --quiet --out "$out/$b.jsonl" > "$out/$b-kcore-thread.log" 2>&1; echo "$b kcore thread rc=$?"
  timeout 60 ./$b bench --app kcore --graph kron:10 --graph kron:12 --strategy persistent --worker cta --fetch 64 --runs 3 --timeout 10 --quiet --out "$out/$b.jsonl" > "$out/$b-kcore-cta.log" 2>&1; echo "$b kcore cta rc=$?"
  timeout 90 ./$b bench --app sssp-priority --graph data/luxembourg_osm.edges --graph grid:1024x1024,w=100 --weights 1000 --strategy persistent --worker thread,warp --fetch 8 --runs 3 --timeout 10 --quiet --out "$out/$b.jsonl" > "$out/$b-sssp.log" 2>&1; echo "$b sssp rc=$?"
done
python3 - "$out" <<'PY'
import json,sys,os
for b in ["atos","atos_new"]:
    p=os.path.join(sys.argv[1],b+".jsonl")
    if not os.path.exists(p): continue
    for l in open(p):
        r=json.loads(l)
        print(f"{b:9s} {r['app']:14s} {r['graph'].split('/')[-1][:22]:22s} {r['worker']:6s} f{r['fetch']:<3} {r['status']:7s} {(r['median_ms'] or 0):10.3f} ms adv {r['advances']} {(r.get('error') or '')[:80]}")
PY
