#!/usr/bin/env bash
# Uniform code keeps the fetch form of dropped results; a lanes loop after a leader store
# starts with worker.sync(). gpu_suite (features GPU = CPU on every worker, stress), a bench
# check of every app, and the re-scan PageRank time.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt"
t0=$(date +%s); stamp() { echo "$1 done after $(( $(date +%s) - t0 )) s" >> "$out/times.txt"; }
timeout 100 ./gpu_suite --data data --stress 30 --program-stress 60 --runs 1 --only cta/64 --strategies persistent > "$out/suite.log" 2>&1; echo "suite rc=$?" >> "$out/suite.log"; stamp suite
for app in bfs sssp coloring kcore pagerank pagerank-rescan; do
  timeout 25 ./atos bench --app $app --graph kron:12 --weights 100 --strategy persistent,discrete,bsp --worker thread,warp,cta --fetch 8 --runs 1 --warmup 0 --quiet --out "$out/check.jsonl" >> "$out/check.log" 2>&1
done; stamp check
timeout 40 ./atos bench --app pagerank-rescan --graph kron:22 --worker cta --fetch 8 --runs 3 --quiet --out "$out/pr.jsonl" >> "$out/pr.log" 2>&1; stamp pr
cat "$out/times.txt"; grep -E "SUMMARY|identical|stress:" "$out/suite.log" | tail -8
python3 - "$out" <<'PY'
import json,sys,collections
d=sys.argv[1]
rows=[json.loads(l) for l in open(d+'/check.jsonl')]
print('check:', collections.Counter(r['status'] for r in rows), [(r['app'],r['strategy'],r['worker'],r.get('error')) for r in rows if r['status'] not in ('ok',)][:8])
for l in open(d+'/pr.jsonl'): r=json.loads(l); print('pr', r['status'], r['median_ms'])
PY
