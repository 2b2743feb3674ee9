#!/usr/bin/env bash
# (Rerun 2026-11-24, sixth session, call 10, at the next ring: the landed build 81d3c12, whose device code HEAD ff98015 still has.)
# Issue 12's table at the current build, one H100 call: SSSP FIFO, priority and bulk-synchronous
# (Bellman-Ford by levels; delta-stepping by levels), and BFS against priority BFS, on
# grid:4096x4096 (w=100), kron:22 (w=1000), luxembourg_osm (--weights 1000), delaunay_n16
# (--weights 1000) and rome99.gr (a whole DIMACS road graph, its own weights); every run
# verified against Dijkstra / the CPU BFS.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt"
t0=$(date +%s); stamp() { echo "$1 after $(( $(date +%s) - t0 )) s" >> "$out/times.txt"; }
bench() { local name=$1; shift; timeout "$@" --out "$out/records.jsonl" > /tmp/b.log 2>&1; echo "rc=$?" >> /tmp/b.log; { echo "== $name"; cat /tmp/b.log; } >> "$out/bench.log"; stamp "$name"; }
./atos graph convert grid:4096x4096,w=100 /tmp/gridw.acsr > /dev/null 2>&1
./atos graph convert kron:22,w=1000 /tmp/kronw.acsr > /dev/null 2>&1; stamp graphs
W="--graph /tmp/gridw.acsr --graph /tmp/kronw.acsr --graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges --graph data/rome99.gr --weights 1000"
C="--worker cta --fetch 8,64 --runs 3 --timeout 20 --quiet"
bench "sssp fifo" 120 ./atos bench --app sssp $W $C
bench "sssp priority" 120 ./atos bench --app sssp-priority $W $C
bench "sssp bellman-ford levels" 150 ./atos bench --app sssp --strategy bsp $W $C
bench "sssp delta-stepping levels" 150 ./atos bench --app sssp-priority --strategy bsp $W $C
B="--graph /tmp/gridw.acsr --graph /tmp/kronw.acsr --graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges --graph data/rome99.gr"
bench "bfs" 90 ./atos bench --app bfs $B $C
bench "bfs priority" 90 ./atos bench --app bfs-priority $B $C
cat "$out/times.txt"
python3 - "$out/records.jsonl" <<'PY'
import json,sys
for l in open(sys.argv[1]):
    r=json.loads(l)
    print(f"{r['app']:14s} {r['strategy']:10s} {r['graph'].split('/')[-1][:20]:20s} f{r['fetch']:<3} {r['status']:5s} {r['median_ms'] or 0:10.3f} ms  work {r['workload_ratio'] or 0:7.3f}  adv {r.get('advances')} lv {r.get('levels')}")
PY
grep -E "^==|rc=|FAIL|WRONG|rror" "$out/bench.log" | head -30
