#!/usr/bin/env bash
# Session 3, call 4: colouring with the degree tie rule alone (vertex order), `atos`,
# against the build before (`atos_old`, vertex order, id tie rule), alternated in one call.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt"
t0=$(date +%s); stamp() { echo "$1 done after $(( $(date +%s) - t0 )) s" >> "$out/times.txt"; }
./atos graph convert kron:22 /tmp/kron.acsr >/dev/null 2>&1
for i in 1; do for b in atos_old atos; do
  timeout 100 ./$b bench --app coloring --graph /tmp/kron.acsr --strategy persistent,bsp --worker cta --fetch 8,64 --runs 3 --quiet --out "$out/gc-$b.jsonl" >> "$out/gc-$b.log" 2>&1
  stamp "$b round $i"
done; done
timeout 60 ./atos bench --app coloring --graph /tmp/kron.acsr --strategy persistent --worker cta --fetch 64 --runs 1 --timeline --quiet --out "$out/tl.jsonl" > "$out/tl.log" 2>&1
cat "$out/times.txt"
python3 - "$out" <<'PY'
import json,sys,collections,statistics
d=sys.argv[1]
for b in ('atos_old','atos'):
    t=collections.defaultdict(list)
    for l in open(f'{d}/gc-{b}.jsonl'):
        r=json.loads(l); t[(r['graph'].split('/')[-1][:14],r['strategy'],f"{r['worker']}/{r['fetch']}")].append((r['status'],round(r['median_ms'] or 0,3),round(r['workload_ratio'] or 0,3),r.get('colors')))
    print(b); [print('  ',k,v) for k,v in sorted(t.items())]
for l in open(d+'/tl.jsonl'):
    r=json.loads(l); t=r['timeline']; tot=t[-1][1]
    print('timeline',r['worker'],r['fetch'],r['median_ms'],' '.join(f"{f}:{next(p for p in t if p[1]>=f*tot)[0]/1000:.2f}" for f in (0.5,0.9,0.99,0.999,1.0)))
PY
