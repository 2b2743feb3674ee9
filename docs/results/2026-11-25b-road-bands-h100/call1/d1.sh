#!/usr/bin/env bash
# 2026-11-25, second session, call 1 (issue 12): priority SSSP with narrower bands on large
# road-like graphs (grid:4096x4096 w=100, geo:4M w=1000) and on the three small ones
# (luxembourg_osm, delaunay_n16 with --weights 1000; rome99.gr), FIFO in the same run; BFS on
# the small ones. Records now carry max_depth for SSSP (the fewest-edge shortest paths' most
# edges), so time / max_depth is the time per dependent step. Every run verified.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
cp BUILD.txt "$out/build.txt"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt"
t0=$(date +%s); stamp() { echo "$1 after $(( $(date +%s) - t0 )) s" >> "$out/times.txt"; }
bench() { local name=$1; shift; timeout "$@" --out "$out/records.jsonl" > /tmp/b.log 2>&1; echo "rc=$?" >> /tmp/b.log; { echo "== $name"; cat /tmp/b.log; } >> "$out/bench.log"; stamp "$name"; }
./atos graph convert grid:4096x4096,w=100 /tmp/gridw.acsr > /dev/null 2>&1
./atos graph convert geo:4000000,w=1000 /tmp/geow.acsr > "$out/convert.txt" 2>&1; stamp graphs
W="--graph /tmp/gridw.acsr --graph /tmp/geow.acsr --graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges --graph data/rome99.gr --weights 1000"
C="--worker cta --fetch 8,64 --runs 3 --timeout 20 --quiet"
bench "sssp fifo" 150 ./atos bench --app sssp $W $C
for s in 1 0.25 0.125 0.0625 0.015625; do
  bench "sssp priority x$s" 100 ./atos bench --app sssp-priority --delta-scale $s $W $C
done
bench "bfs small" 60 ./atos bench --app bfs --graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges --graph data/rome99.gr $C
cat "$out/times.txt"
python3 - "$out/records.jsonl" > "$out/table.txt" <<'PY'
import json,sys
for l in open(sys.argv[1]):
    r=json.loads(l)
    ms=r['median_ms'] or 0; d=r.get('max_depth') or 0
    print(f"{r['app']:14s} {r['graph'].split('/')[-1][:14]:14s} f{r['fetch']:<3} {r['status']:5s} ver={r['verified']} {ms:9.3f} ms work {r['workload_ratio'] or 0:6.3f} delta {r.get('delta')} adv {r.get('advances')} depth {d} us/step {1000*ms/d if d else 0:.2f}")
PY
cat "$out/table.txt"
grep -E "^==|rc=|FAIL|WRONG|rror" "$out/bench.log" | head -30
