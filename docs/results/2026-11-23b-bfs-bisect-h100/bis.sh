#!/usr/bin/env bash
# Session 3, call 8: where atos's BFS lost 6-9% since 409a600. The best configuration per graph
# at five builds (409a600, e2d5351, e4dc796, 5c92f9a, HEAD), alternated, two rounds.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt"
t0=$(date +%s); stamp() { echo "$1 done after $(( $(date +%s) - t0 )) s" >> "$out/times.txt"; }
./atos graph convert kron:22 /tmp/kron.acsr >/dev/null 2>&1
./atos graph convert grid:4096x4096 /tmp/grid.acsr >/dev/null 2>&1; stamp graphs
for i in 1 2; do for b in 409a600 e2d5351 e4dc796 5c92f9a head; do
  bin=./atos-$b; [ $b = head ] && bin=./atos
  export ATOS_CACHE_DIR=/tmp/cache-$b
  timeout 40 $bin bench --graph /tmp/grid.acsr --graph data/luxembourg_osm.edges --strategy persistent --worker cta --fetch 64 --runs 5 --quiet --out "$out/$b.jsonl" >> "$out/$b.log" 2>&1
  timeout 40 $bin bench --graph /tmp/kron.acsr --strategy discrete --worker cta --fetch 64 --runs 5 --quiet --out "$out/$b.jsonl" >> "$out/$b.log" 2>&1
done; stamp "round $i"; done
cat "$out/times.txt"
python3 - "$out" <<'PY'
import json,sys,collections
d=sys.argv[1]
for b in ('409a600','e2d5351','e4dc796','5c92f9a','head'):
    t=collections.defaultdict(list)
    try:
        for l in open(f'{d}/{b}.jsonl'):
            r=json.loads(l); t[r['graph'].split('/')[-1][:14]].append((r['status'], round(r['median_ms'] or 0,3)))
    except Exception as e: print(b, 'no records', e); continue
    print(b, dict(t))
PY
