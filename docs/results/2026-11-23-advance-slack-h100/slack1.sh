#!/usr/bin/env bash
# Issue 12: priority SSSP with --advance-slack (advance while at most N near items are in
# flight) against FIFO in the same call; every run checked against Dijkstra.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt"
t0=$(date +%s); stamp() { echo "$1 done after $(( $(date +%s) - t0 )) s" >> "$out/times.txt"; }
M="--graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges --graph geo:1000000,w=1000 --graph kron:22,w=1000 --graph grid:4096x4096,w=100 --weights 1000"
timeout 100 ./atos bench --app sssp $M --strategy persistent --worker cta --fetch 8,64 \
  --runs 3 --timeout 20 --quiet --out "$out/main.jsonl" >> "$out/fifo.log" 2>&1; echo "fifo rc=$?" >> "$out/fifo.log"; stamp fifo
for sl in 0 64 512 4096 32768; do
  timeout 100 ./atos bench --app sssp-priority $M --advance-slack $sl --strategy persistent --worker cta --fetch 8,64 \
    --runs 3 --timeout 20 --quiet --out "$out/main.jsonl" >> "$out/prio.log" 2>&1; echo "slack $sl rc=$?" >> "$out/prio.log"; stamp "slack $sl"
done
cat "$out/times.txt"
python3 - "$out/main.jsonl" <<'PY'
import json,sys
rows=[json.loads(l) for l in open(sys.argv[1])]
for r in rows:
    print(f"{r['app']:14s} {r['graph'].split('/')[-1][:24]:24s} f{r['fetch']:<3} slack {str(r.get('advance_slack')):6s} {r['status']:5s} {r['median_ms'] or 0:9.3f} ms  work {r['workload_ratio'] or 0:7.3f}  adv {r['advances']}")
PY
