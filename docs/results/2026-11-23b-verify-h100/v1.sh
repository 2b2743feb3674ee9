#!/usr/bin/env bash
# Session 3, call 1: gpu_suite on the review-mend build (features GPU = CPU on every worker,
# program stress, faults), a bench check of every app, and colouring re-timed with assign's
# worker.sync() (kron:22 at block 256; the meshes at block 128).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt"
t0=$(date +%s); stamp() { echo "$1 done after $(( $(date +%s) - t0 )) s" >> "$out/times.txt"; }
./atos graph convert kron:22 /tmp/kron.acsr >/dev/null 2>&1; stamp graphs
timeout 120 ./atos bench --app coloring --graph /tmp/kron.acsr --strategy persistent,bsp --worker cta --fetch 8,64 --runs 5 --quiet --out "$out/gc.jsonl" > "$out/gc.log" 2>&1
timeout 120 ./atos bench --app coloring --graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges --strategy persistent,bsp --worker cta --fetch 16,32 --block 128 --runs 5 --quiet --out "$out/gc.jsonl" >> "$out/gc.log" 2>&1; stamp gc
for app in bfs sssp coloring kcore pagerank pagerank-rescan; do
  timeout 60 ./atos bench --app $app --graph kron:14 --graph data/luxembourg_osm.edges --weights 100 --strategy persistent,discrete,bsp --worker thread,warp,cta --fetch 8 --runs 1 --warmup 0 --quiet --out "$out/check.jsonl" >> "$out/check.log" 2>&1
done; stamp check
timeout $(( 590 - ($(date +%s) - t0) )) ./gpu_suite --data data --stress 60 --program-stress 200 --runs 2 > "$out/suite.log" 2>&1; echo "suite rc=$?" >> "$out/suite.log"; stamp suite
cat "$out/times.txt"; grep -E "SUMMARY|identical|stress|FAIL|fail" "$out/suite.log" | tail -12
python3 - "$out" <<'PY'
import json,sys,collections
d=sys.argv[1]
rows=[json.loads(l) for l in open(d+'/check.jsonl')]
print('check:', collections.Counter(r['status'] for r in rows), [(r['app'],r['strategy'],r['worker'],r.get('error')) for r in rows if r['status']!='ok'][:8])
for l in open(d+'/gc.jsonl'):
    r=json.loads(l); print('gc', r['graph'].split('/')[-1], r['strategy'], f"{r['worker']}/{r['fetch']}", r['status'], r['median_ms'], r.get('workload_ratio'))
PY
