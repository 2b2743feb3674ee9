#!/usr/bin/env bash
# Call 1 (2026-11-24, seventh session): (a) gpu_suite --priority-only: priority rings that
# overflow inside band-by-band programs, every worker kind and strategy, then a correct run;
# (b) does a smaller grid (fewer groups polling the queue counters) shorten a threshold advance?
# Priority BFS, priority SSSP (default delta, and delta / 8) and FIFO SSSP on the three small
# road-like graphs, persistent cta/8 and cta/64, grids default / 528 / 264 / 132 blocks,
# alternated over 2 rounds; every run verified.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt"
cp BUILD.txt "$out/build.txt"
t0=$(date +%s); stamp() { echo "$1 after $(( $(date +%s) - t0 )) s" >> "$out/times.txt"; }
timeout 300 ./gpu_suite --priority-only > "$out/suite.log" 2>&1; echo "suite rc=$?" >> "$out/suite.log"; stamp suite
bench() { local name=$1; shift; timeout "$@" --out "$out/records.jsonl" > /tmp/b.log 2>&1; echo "rc=$?" >> /tmp/b.log; { echo "== $name"; cat /tmp/b.log; } >> "$out/bench.log"; stamp "$name"; }
G="--graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges --graph data/rome99.gr"
C="--worker cta --fetch 8,64 --runs 3 --timeout 20 --quiet"
for round in 1 2; do
  for grid in default 528 264 132; do
    g=""; [ "$grid" != default ] && g="--grid $grid"
    bench "r$round grid $grid bfs-priority" 60 ./atos bench --app bfs-priority $G $C $g
    bench "r$round grid $grid sssp-priority" 60 ./atos bench --app sssp-priority $G --weights 1000 $C $g
    bench "r$round grid $grid sssp-priority d/8" 60 ./atos bench --app sssp-priority --delta-scale 0.125 $G --weights 1000 $C $g
    bench "r$round grid $grid sssp fifo" 60 ./atos bench --app sssp $G --weights 1000 $C $g
  done
done
cat "$out/times.txt"
grep -E "SUMMARY|WRONG|rc=" "$out/suite.log"
python3 - "$out/records.jsonl" <<'PY'
import json,sys,collections
rows=collections.defaultdict(list)
for l in open(sys.argv[1]):
    r=json.loads(l)
    if r['status']!='ok': print('NOT OK', r['app'], r['graph'], r['status']); continue
    key=(r['app'], r.get('delta'), r['graph'].split('/')[-1][:14], r['fetch'], (r.get('grid') or [0])[0])
    rows[key].append((r['median_ms'], r['workload_ratio'], r.get('advances')))
for k in sorted(rows): print(k, rows[k])
PY
grep -E "^==|rc=[^0]|FAIL|WRONG|rror" "$out/bench.log" | grep -v "^==" | head -30
