#!/usr/bin/env bash
# Discarded read-modify-writes as PTX `red`: correctness (gpu_suite: features GPU = CPU, program
# stress, faults, tuple items, BFS table) and PageRank timings, the build before (`atos_old`)
# and after (`atos`) alternated in the same call.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt"
t0=$(date +%s); stamp() { echo "$1 done after $(( $(date +%s) - t0 )) s" >> "$out/times.txt"; }
./atos graph convert kron:22 /tmp/kron.acsr >/dev/null 2>&1
./atos graph convert grid:4096x4096 /tmp/grid.acsr >/dev/null 2>&1
stamp graphs
for i in 1 2; do for b in atos_old atos; do
  timeout 60 ./$b bench --app pagerank-rescan --graph /tmp/kron.acsr --worker cta --fetch 8,64 --runs 5 --quiet --out "$out/pr-$b.jsonl" >> "$out/pr.log" 2>&1
  timeout 60 ./$b bench --app pagerank --graph /tmp/grid.acsr --worker cta --fetch 256 --runs 5 --quiet --out "$out/pr-$b.jsonl" >> "$out/pr.log" 2>&1
done; done; stamp pr
timeout 100 ./atos bench --app pagerank-bsp --strategy bsp --graph /tmp/kron.acsr --worker cta --fetch 8 --runs 3 --quiet --out "$out/check.jsonl" >> "$out/check.log" 2>&1
for app in bfs sssp coloring kcore pagerank pagerank-rescan; do
  timeout 60 ./atos bench --app $app --graph kron:14 --graph data/luxembourg_osm.edges --weights 100 --strategy persistent,discrete,bsp --worker thread,warp,cta --fetch 8 --runs 1 --quiet --out "$out/check.jsonl" >> "$out/check.log" 2>&1
done; stamp check
timeout $(( 590 - ($(date +%s) - t0) )) ./gpu_suite --data data --stress 60 --program-stress 200 --runs 2 > "$out/suite.log" 2>&1; echo "suite rc=$?" >> "$out/suite.log"; stamp suite
cat "$out/times.txt"; grep -E "SUMMARY|FAIL|fail" "$out/suite.log" | tail -5
python3 - "$out" <<'PY'
import json,sys,glob,collections
d=sys.argv[1]
for f in sorted(glob.glob(d+'/pr-*.jsonl')):
    t=collections.defaultdict(list)
    for l in open(f):
        r=json.loads(l); t[(r['app'],r['graph'].split('/')[-1],f"{r['worker']}/{r['fetch']}")].append((r['status'],round(r['median_ms'] or 0,2),round(r['workload_ratio'] or 0,3)))
    print(f.split('/')[-1]); [print('  ',k,v) for k,v in t.items()]
rows=[json.loads(l) for l in open(d+'/check.jsonl')]
print('check:', collections.Counter(r['status'] for r in rows), [ (r['app'],r['graph'][-20:],r['strategy'],r['worker'],r.get('error')) for r in rows if r['status']!='ok'][:10])
PY
