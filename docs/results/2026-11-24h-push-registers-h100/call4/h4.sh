#!/usr/bin/env bash
# Call 4: this build (device code c4b26d556e3a7ebe), the priority programs at --min-blocks 5
# (5 blocks of 256 per SM: at most 51 registers, the allocation the fast priority kernels had)
# against the default, and colouring at --min-blocks 8 (at most 32 registers, as at HEAD)
# against the default; alternated, 2 rounds, every run verified.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
{ nvidia-smi --query-gpu=name,driver_version --format=csv; cat BUILD.txt; } > "$out/builds.txt"
t0=$(date +%s); stamp() { echo "$1 after $(( $(date +%s) - t0 )) s" >> "$out/checks.log"; }
./atos graph convert kron:22 /tmp/kron22.acsr > /dev/null 2>&1
./atos graph convert kron:18 /tmp/kron18.acsr > /dev/null 2>&1
./atos graph convert kron:22,w=1000 /tmp/kronw.acsr > /dev/null 2>&1; stamp graphs
L=data/luxembourg_osm.edges; D=data/delaunay_n16.edges
for r in 1 2; do
  for mb in 0 5; do
    run() { timeout 90 ./atos bench "$@" --min-blocks $mb --runs 3 --quiet --timeout 20 --out "$out/mb$mb.jsonl" > /tmp/s.log 2>&1; echo "== mb$mb $2 r$r rc=$?" >> "$out/checks.log"; grep -iE "fail|wrong|error" /tmp/s.log >> "$out/checks.log"; }
    run --app bfs-priority --graph $L --graph $D --worker warp,cta --fetch 4,64
    run --app kcore --graph /tmp/kron18.acsr --graph $L --worker warp,cta --fetch 4,8
    run --app sssp-priority --graph /tmp/kronw.acsr --graph $L --graph $D --weights 1000 --worker cta --fetch 8,64
    run --app sssp --graph /tmp/kronw.acsr --graph $L --weights 1000 --worker warp,cta --fetch 4,64
  done
  stamp "prio r$r"
  for mb in 0 8; do
    timeout 90 ./atos bench --app coloring --graph /tmp/kron22.acsr --graph $L --graph $D --worker cta --fetch 64 --min-blocks $mb --runs 3 --quiet --timeout 20 --out "$out/col$mb.jsonl" > /tmp/s.log 2>&1; echo "== col mb$mb r$r rc=$?" >> "$out/checks.log"
  done
  stamp "col r$r"
done
grep -v "rc=0$" "$out/checks.log"
python3 - "$out" <<'PY' | tee "$out/summary.txt"
import json,sys,glob,os
rows={}
for f in sorted(glob.glob(sys.argv[1]+'/*.jsonl')):
    b=os.path.basename(f)[:-6]
    for l in open(f):
        r=json.loads(l)
        k=(r['app'],r['graph'].split('/')[-1][:14],f"{r['worker']}/{r['fetch']}")
        rows.setdefault(k,{}).setdefault(b,[]).append((r['median_ms'] if r['status']=='ok' else float('nan'), r['status'], r.get('registers'), r.get('local_bytes'), r.get('blocks_per_sm')))
for k,v in rows.items():
    cells=[]
    for b,xs in sorted(v.items()):
        cells.append(f"{b}: {'/'.join(f'{x[0]:.3f}' for x in xs)} {xs[0][2:]} {set(x[1] for x in xs)}")
    print(' '.join(k), '|', ' | '.join(cells))
PY
