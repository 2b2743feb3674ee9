#!/usr/bin/env bash
# 2026-11-25, second session, call 6: the cost of one dependent step alone. BFS and FIFO SSSP on
# a path (grid:100000x1: each level one vertex), a ladder (grid:50000x2) and luxembourg_osm, every
# worker kind and fetch, so time / max_depth is the step's cost without width. Every run verified.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
cp BUILD.txt "$out/build.txt"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt"
t0=$(date +%s); stamp() { echo "$1 after $(( $(date +%s) - t0 )) s" >> "$out/times.txt"; }
bench() { local name=$1; shift; timeout "$@" --out "$out/records.jsonl" > /tmp/b.log 2>&1; echo "rc=$?" >> /tmp/b.log; { echo "== $name"; cat /tmp/b.log; } >> "$out/bench.log"; stamp "$name"; }
G="--graph grid:100000x1 --graph grid:50000x2 --graph data/luxembourg_osm.edges"
R="--runs 3 --timeout 30 --quiet"
bench "bfs cta" 120 ./atos bench --app bfs $G --worker cta --fetch 1,8,64 $R
bench "bfs warp thread" 120 ./atos bench --app bfs $G --worker warp,thread --fetch 1,8 $R
bench "bfs cta grid132" 60 ./atos bench --app bfs $G --worker cta --fetch 1,8,64 --grid 132 $R
bench "sssp cta" 120 ./atos bench --app sssp $G --weights 1000 --worker cta --fetch 1,8,64 $R
bench "bfs discrete" 60 ./atos bench --app bfs --graph grid:100000x1 --strategy discrete,bsp --worker cta --fetch 64 --runs 2 --timeout 60 --quiet
cat "$out/times.txt"
python3 - "$out/records.jsonl" > "$out/table.txt" <<'PY'
import json,sys
for l in open(sys.argv[1]):
    r=json.loads(l)
    ms=r['median_ms'] or 0; d=r.get('max_depth') or 0
    print(f"{r['app']:5s} {r['strategy']:10s} grid={r['grid'][0] if r.get('grid') else '-':<5} {r['worker']:6s}/{r['fetch']:<3} {r['graph'].split('/')[-1][:14]:14s} {r['status']:5s} ver={r['verified']} {ms:9.3f} ms work {r['workload_ratio'] or 0:6.3f} depth {d} us/step {1000*ms/d if d else 0:.2f}")
PY
cat "$out/table.txt"
grep -E "^==|rc=|FAIL|WRONG|rror" "$out/bench.log" | grep -v "rc=0" | head -30
