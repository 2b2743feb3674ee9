#!/usr/bin/env bash
# Session 4, call 1: verify the range-check hoisting (atos::index_range) on a GPU: faults (mode 8
# on every worker), features GPU = CPU with a short stress, a bench check of every app, BFS of
# this build (`atos`) against the one before (`atos_prev`, no hoisting), alternated; and the
# persistent grid at 792 blocks (6/SM, as at 409a600) against the default, alternated.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt"; cat "$out/device.txt"
t0=$(date +%s); stamp() { echo "$1 done after $(( $(date +%s) - t0 )) s" | tee -a "$out/times.txt"; }
timeout 60 ./gpu_suite --data data --dsl-only > "$out/dsl.log" 2>&1; echo "rc=$?" >> "$out/dsl.log"; stamp dsl
timeout 90 ./gpu_suite --data data --stress 20 --program-stress 40 --flag-tasks 100000 --runs 1 --only cta/64 --strategies persistent > "$out/suite.log" 2>&1; echo "rc=$?" >> "$out/suite.log"; stamp suite
for app in bfs sssp coloring kcore pagerank pagerank-rescan; do
  timeout 25 ./atos bench --app $app --graph kron:12 --weights 100 --strategy persistent,discrete,bsp --worker thread,warp,cta --fetch 8 --runs 1 --warmup 0 --quiet --out "$out/check.jsonl" >> "$out/check.log" 2>&1
done; stamp check
./atos graph convert kron:22 /tmp/kron.acsr >/dev/null 2>&1
./atos graph convert grid:4096x4096 /tmp/grid.acsr >/dev/null 2>&1; stamp graphs
for i in 1 2; do for b in atos_prev atos; do
  export ATOS_CACHE_DIR=/tmp/cache-$b
  timeout 30 ./$b bench --graph /tmp/grid.acsr --graph data/luxembourg_osm.edges --strategy persistent --worker cta --fetch 64 --runs 5 --quiet --out "$out/bfs-$b.jsonl" >> "$out/bfs-$b.log" 2>&1
  timeout 30 ./$b bench --graph /tmp/kron.acsr --strategy discrete --worker cta --fetch 64 --runs 5 --quiet --out "$out/bfs-$b.jsonl" >> "$out/bfs-$b.log" 2>&1
done; done; stamp bfs
export ATOS_CACHE_DIR=/tmp/atos-kernels
for i in 1 2; do for g in 792 default; do
  extra=(); [ $g = default ] || extra=(--blocks $g)
  timeout 60 ./gpu_suite --bfs-only --graph /tmp/grid.acsr --graph /tmp/kron.acsr --only cta/64 --strategies persistent --runs 5 "${extra[@]}" >> "$out/grid-$g.log" 2>&1
done; done; stamp grid
grep -E "SUMMARY|mode 8|identical|stress:|rc=" "$out/dsl.log" "$out/suite.log" | head -30
python3 - "$out" <<'PY'
import json,sys,collections
d=sys.argv[1]
rows=[json.loads(l) for l in open(d+'/check.jsonl')]
print('check:', collections.Counter(r['status'] for r in rows), [(r['app'],r['strategy'],r['worker'],r.get('error')) for r in rows if r['status']!='ok'][:8])
for b in ('atos_prev','atos'):
    t=collections.defaultdict(list)
    for l in open(f'{d}/bfs-{b}.jsonl'):
        r=json.loads(l); t[r['graph'].split('/')[-1][:14]].append((r['status'], round(r['median_ms'] or 0,3)))
    print(b, dict(t))
PY
for g in 792 default; do echo "== grid $g"; grep -vE '^\s*$' "$out/grid-$g.log" | grep -iE 'cta|grid|kron|loaded|block' | head -20; done
