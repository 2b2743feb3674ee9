#!/usr/bin/env bash
# Call 6: the final build (`atos`) against `new` (`atos_new`: the same push, no register target)
# at their defaults, alternated, 2 rounds: SSSP FIFO and priority, priority BFS and k-core, warp/4
# and cta/64 (k-core cta/8). Then priority SSSP at the bench's new ring capacity
# (max(V, E) + 1) on all five graphs, persistent, discrete and bsp (every run verified; an
# overflow would fail the record).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
{ nvidia-smi --query-gpu=name,driver_version --format=csv; cat BUILD.txt BUILD_new.txt; } > "$out/builds.txt"
t0=$(date +%s); stamp() { echo "$1 after $(( $(date +%s) - t0 )) s" >> "$out/checks.log"; }
./atos graph convert kron:20,w=1000 /tmp/kron20w.acsr > /dev/null 2>&1
./atos graph convert kron:18 /tmp/kron18.acsr > /dev/null 2>&1
./atos graph convert grid:4096x4096,w=100 /tmp/gridw.acsr > /dev/null 2>&1
./atos graph convert kron:22,w=1000 /tmp/kronw.acsr > /dev/null 2>&1; stamp graphs
L=data/luxembourg_osm.edges; D=data/delaunay_n16.edges
for r in 1 2; do
  for b in _new ""; do
    run() { timeout 90 ./atos$b bench "$@" --runs 3 --quiet --timeout 20 --out "$out/d$b.jsonl" > /tmp/s.log 2>&1; echo "== $b $2 r$r rc=$?" >> "$out/checks.log"; grep -iE "fail|wrong|error" /tmp/s.log >> "$out/checks.log"; }
    run --app sssp-priority --graph /tmp/kron20w.acsr --graph $L --weights 1000 --worker warp,cta --fetch 4,64
    run --app sssp --graph /tmp/kron20w.acsr --graph $L --weights 1000 --worker warp,cta --fetch 4,64
    run --app bfs-priority --graph $L --graph $D --worker warp,cta --fetch 4,64
    run --app kcore --graph /tmp/kron18.acsr --graph $L --worker warp,cta --fetch 4,8
    stamp "d$b r$r"
  done
done
timeout 200 ./atos bench --app sssp-priority --graph /tmp/gridw.acsr --graph /tmp/kronw.acsr --graph $L --graph $D --graph data/rome99.gr --weights 1000 --strategy persistent,discrete,bsp --worker cta --fetch 64 --runs 2 --quiet --timeout 30 --out "$out/cap.jsonl" > /tmp/s.log 2>&1; echo "== cap rc=$?" >> "$out/checks.log"; grep -iE "fail|wrong|error|overflow" /tmp/s.log >> "$out/checks.log"; stamp cap
grep -v "rc=0$" "$out/checks.log"
python3 - "$out" <<'PY' | tee "$out/summary.txt"
import json,sys,glob,os
rows={}
for f in sorted(glob.glob(sys.argv[1]+'/d*.jsonl')):
    b=os.path.basename(f)[:-6]
    for l in open(f):
        r=json.loads(l)
        k=(r['app'],r['graph'].split('/')[-1][:14],f"{r['worker']}/{r['fetch']}")
        rows.setdefault(k,{}).setdefault(b,[]).append((r['median_ms'] if r['status']=='ok' else float('nan'), r['status'], r.get('registers'), r.get('local_bytes'), r.get('blocks_per_sm')))
for k,v in rows.items():
    cells=[f"{b}: {'/'.join(f'{x[0]:.3f}' for x in xs)} {xs[0][2:]} {set(x[1] for x in xs)}" for b,xs in sorted(v.items())]
    print(' '.join(k), '|', ' | '.join(cells))
print('-- capacity check')
for l in open(sys.argv[1]+'/cap.jsonl'):
    r=json.loads(l)
    print(r['app'], r['strategy'], r['graph'].split('/')[-1][:14], r['status'], r['median_ms'], 'peak', r['queue_peak'], 'dev', r['device_bytes'], 'reg', r['registers'], r['blocks_per_sm'])
PY
