#!/usr/bin/env bash
# Call 3: the other apps whose kernels ptxas allocates differently with the push's first look
# taken with the reservation (this build, device code c4b26d556e3a7ebe) than at HEAD 5091013
# (`_head`, 5856ca7ff82cfeab; tests/kernel_resources.rs lists both): colouring cta/64,
# priority BFS warp/4 and cta/64, PageRank re-scan cta/8, k-core cta/8, BFS cta/64 as a spread
# program on one device; alternated, 2 rounds, every run verified. Then SSSP warp/4 with
# --min-blocks 5 (this build) against the default, 2 rounds.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
{ nvidia-smi --query-gpu=name,driver_version --format=csv; cat BUILD.txt BUILD_head.txt; } > "$out/builds.txt"
t0=$(date +%s); stamp() { echo "$1 after $(( $(date +%s) - t0 )) s" >> "$out/checks.log"; }
./atos graph convert kron:22 /tmp/kron22.acsr > /dev/null 2>&1
./atos graph convert kron:18 /tmp/kron18.acsr > /dev/null 2>&1
./atos graph convert kron:20,w=1000 /tmp/kron20w.acsr > /dev/null 2>&1; stamp graphs
L=data/luxembourg_osm.edges
for r in 1 2; do
  for b in _head ""; do
    run() { timeout 90 ./atos$b bench "$@" --runs 3 --quiet --timeout 20 --out "$out/r$b.jsonl" > /tmp/s.log 2>&1; echo "== $b $1 $2 r$r rc=$?" >> "$out/checks.log"; grep -iE "fail|wrong|error" /tmp/s.log >> "$out/checks.log"; }
    run --app coloring --graph /tmp/kron22.acsr --graph $L --worker cta --fetch 64
    run --app bfs-priority --graph $L --graph data/delaunay_n16.edges --worker warp --fetch 4
    run --app bfs-priority --graph $L --graph data/delaunay_n16.edges --worker cta --fetch 64
    run --app pagerank-rescan --graph /tmp/kron22.acsr --worker cta --fetch 8 --epsilon 0.01
    run --app kcore --graph /tmp/kron18.acsr --graph $L --worker cta --fetch 8
    run --app bfs --graph /tmp/kron22.acsr --worker cta --fetch 64 --spread-one
    stamp "apps$b r$r"
  done
done
for r in 1 2; do
  for mb in 0 5; do
    timeout 90 ./atos bench --app sssp-priority --graph /tmp/kron20w.acsr --graph $L --weights 1000 --worker warp --fetch 4 --min-blocks $mb --runs 3 --quiet --timeout 20 --out "$out/mb$mb.jsonl" > /tmp/s.log 2>&1; echo "== mb$mb r$r rc=$?" >> "$out/checks.log"
  done
done
stamp mb
grep -v "rc=0$" "$out/checks.log"
python3 - "$out" <<'PY' | tee "$out/summary.txt"
import json,sys,glob,os
rows={}
for f in sorted(glob.glob(sys.argv[1]+'/*.jsonl')):
    b=os.path.basename(f)[:-6]
    for l in open(f):
        r=json.loads(l)
        k=(r['app'],r['graph'].split('/')[-1][:14],f"{r['worker']}/{r['fetch']}",'spread' if r.get('devices') else '')
        rows.setdefault(k,{}).setdefault(b,[]).append((r['median_ms'] if r['status']=='ok' else float('nan'), r['status'], r.get('registers'), r.get('local_bytes'), r.get('blocks_per_sm')))
for k,v in rows.items():
    cells=[]
    for b,xs in sorted(v.items()):
        cells.append(f"{b}: {'/'.join(f'{x[0]:.3f}' for x in xs)} {xs[0][2:]} {set(x[1] for x in xs)}")
    print(' '.join(k), '|', ' | '.join(cells))
PY
