#!/usr/bin/env bash
# Session 2026-11-23b, call 1.
# Issue 11: the atomic floor of a PageRank sweep on kron:22 (atomics.cu) and ncu sections of
# the re-scan PageRank and async colouring kernels on kron:22.
# Issue 12: priority vs FIFO SSSP on the two small meshes over workers, fetches, delta scales
# and slacks; thread-worker priority SSSP on luxembourg_osm.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt"
t0=$(date +%s); stamp() { echo "$1 done after $(( $(date +%s) - t0 )) s" >> "$out/times.txt"; }
NCU=/usr/local/cuda/bin/ncu
./atos graph convert kron:22 /tmp/k22.acsr > "$out/floor.log" 2>&1
/usr/local/cuda/bin/nvcc -O3 -arch=sm_90 -std=c++17 atomics.cu -o /tmp/atomics >> "$out/floor.log" 2>&1
/tmp/atomics /tmp/k22.acsr >> "$out/floor.log" 2>&1; stamp floor
S="--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy"
timeout 120 $NCU $S -k regex:'^(sweep|vertex)$' -c 2 /tmp/atomics /tmp/k22.acsr > "$out/ncu-floor.txt" 2>&1; stamp ncu-floor
timeout 150 $NCU $S ./atos bench --app pagerank-rescan --graph /tmp/k22.acsr --epsilon 0.01 --strategy persistent \
  --worker cta --fetch 8 --runs 1 --warmup 0 --quiet > "$out/ncu-pr.txt" 2>&1; stamp ncu-pr
timeout 100 $NCU $S ./atos bench --app coloring --graph /tmp/k22.acsr --strategy persistent \
  --worker cta --fetch 64 --runs 1 --warmup 0 --quiet > "$out/ncu-gc.txt" 2>&1; stamp ncu-gc
M="--graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges --weights 1000"
B="--strategy persistent --runs 5 --timeout 20 --quiet --out $out/sssp.jsonl"
timeout 80 ./atos bench --app sssp $M --worker warp,cta --fetch 4,16,64 $B >> "$out/sssp.log" 2>&1; stamp fifo
for ds in 0.5 1 2 4; do for sl in 512 4096; do
  [ $(( $(date +%s) - t0 )) -gt 500 ] && break 2
  timeout 60 ./atos bench --app sssp-priority $M --delta-scale $ds --advance-slack $sl --worker warp,cta --fetch 4,16,64 $B >> "$out/sssp.log" 2>&1
  stamp "prio ds $ds slack $sl"
done; done
[ $(( $(date +%s) - t0 )) -lt 540 ] && timeout 50 ./atos bench --app sssp-priority --graph data/luxembourg_osm.edges --weights 1000 --worker thread --fetch 1,4 --runs 3 --timeout 20 --quiet --out "$out/sssp.jsonl" >> "$out/sssp.log" 2>&1
stamp thread
cat "$out/times.txt" "$out/floor.log"
python3 - "$out/sssp.jsonl" <<'PY' > "$out/sssp-table.txt"
import json,sys
rows=[json.loads(l) for l in open(sys.argv[1])]
for r in rows:
    print(f"{r['app']:14s} {r['graph'].split('/')[-1][:18]:18s} {r['worker']}/{r['fetch']:<3} ds {str(r.get('delta_scale')):4s} d {str(r.get('delta')):8s} slack {str(r.get('advance_slack')):5s} {r['status']:5s} {r['median_ms'] or 0:8.3f} ms work {r['workload_ratio'] or 0:7.3f}")
PY
cat "$out/sssp-table.txt" | sort -k2,2 -k8,8n | head -150
