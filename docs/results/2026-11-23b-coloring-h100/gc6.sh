#!/usr/bin/env bash
# Session 3, call 6: the committed colouring (degree tie rule, `atos`) against HEAD before it
# (`atos_old`) on the grid and the two meshes, alternated, 2 rounds.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt"
./atos graph convert grid:4096x4096 /tmp/grid.acsr >/dev/null 2>&1
for i in 1 2; do for b in atos_old atos; do
  timeout 60 ./$b bench --app coloring --graph /tmp/grid.acsr --strategy persistent,discrete,bsp --worker thread --fetch 8 --runs 5 --quiet --out "$out/gc-$b.jsonl" >> "$out/gc-$b.log" 2>&1
  timeout 60 ./$b bench --app coloring --graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges --strategy persistent,bsp --worker cta --fetch 16,32 --block 128 --runs 5 --quiet --out "$out/gc-$b.jsonl" >> "$out/gc-$b.log" 2>&1
done; done
python3 - "$out" <<'PY'
import json,sys,collections
d=sys.argv[1]
for b in ('atos_old','atos'):
    t=collections.defaultdict(list)
    for l in open(f'{d}/gc-{b}.jsonl'):
        r=json.loads(l); t[(r['graph'].split('/')[-1][:14],r['strategy'],f"{r['worker']}/{r['fetch']}")].append((r['status'],round(r['median_ms'] or 0,3),round(r['workload_ratio'] or 0,3),r.get('colors')))
    print(b); [print('  ',k,v) for k,v in sorted(t.items())]
PY
