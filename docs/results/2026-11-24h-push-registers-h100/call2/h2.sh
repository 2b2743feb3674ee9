#!/usr/bin/env bash
# Call 2: the push's first look taken with the reservation (`wait_for_room_group`, this build)
# against HEAD 5091013's device code (`_head`, the group wait as landed) and 1aa1684 (`_prev`,
# before the group wait). (1) gpu_suite --state-only (the next ring's small slots now freed),
# --priority-only (every worker/strategy, overflow and room) and --spread-features on 2 devices
# sharing this GPU (a mesh forward waits the new way); (2) alternated, 2 rounds: SSSP FIFO and
# priority, cta/8 and cta/64 on kron:22,w=1000, luxembourg_osm and delaunay_n16 (--weights
# 1000), warp/4 on kron:20,w=1000 and luxembourg_osm; the BFS table's push_lanes rows
# (warp/32) and cta/64 on grid:4096x4096 and kron:20.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt"
cat BUILD.txt BUILD_head.txt BUILD_prev.txt > "$out/builds.txt"
t0=$(date +%s); stamp() { echo "$1 after $(( $(date +%s) - t0 )) s" >> "$out/checks.log"; }
{ timeout 120 ./gpu_suite --state-only; echo "rc=$?"; } > "$out/state.log" 2>&1; stamp state
{ timeout 150 ./gpu_suite --priority-only; echo "rc=$?"; } > "$out/priority.log" 2>&1; stamp priority
{ timeout 100 ./gpu_suite --spread-features --spread-devices 2; echo "rc=$?"; } > "$out/spread.log" 2>&1; stamp spread
./atos graph convert kron:22,w=1000 /tmp/kronw.acsr > /dev/null 2>&1
./atos graph convert kron:20,w=1000 /tmp/kron20w.acsr > /dev/null 2>&1; stamp graphs
C="--graph /tmp/kronw.acsr --graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges --weights 1000 --worker cta --fetch 8,64"
Wp="--graph /tmp/kron20w.acsr --graph data/luxembourg_osm.edges --weights 1000 --worker warp --fetch 4"
for r in 1 2; do
  for b in _prev _head ""; do
    for app in sssp-priority sssp; do
      for set in C Wp; do
        timeout 60 ./atos$b bench --app $app ${!set} --runs 3 --quiet --timeout 20 --out "$out/sssp$b.jsonl" > /tmp/s.log 2>&1; echo "== $b $app $set r$r rc=$?" >> "$out/checks.log"; grep -iE "fail|wrong|error" /tmp/s.log >> "$out/checks.log"
      done
    done
    stamp "sssp$b r$r"
    timeout 60 ./gpu_suite$b --bfs-only --graph grid:4096x4096 --graph kron:20 --strategies persistent --only warp/32,cta/64 --runs 3 > "$out/bfs$b.r$r.log" 2>&1; echo "rc=$?" >> "$out/bfs$b.r$r.log"; stamp "bfs$b r$r"
  done
done
cat "$out/checks.log" | grep -v "^== .*rc=0$"
tr '\r' '\n' < "$out/state.log" | grep -v "^ *$" | tail -16
tr '\r' '\n' < "$out/priority.log" | grep -E "WRONG|SUMMARY|rc=|HUNG"
grep -E "SUMMARY|rc=" "$out/spread.log" | tail -3
python3 - "$out" <<'PY'
import json,sys,glob,os,statistics as st
rows={}
for f in sorted(glob.glob(sys.argv[1]+'/sssp*.jsonl')):
    b=os.path.basename(f)[4:-6] or 'new'
    for l in open(f):
        r=json.loads(l)
        k=(r['app'],r['graph'].split('/')[-1][:14],f"{r['worker']}/{r['fetch']}")
        rows.setdefault(k,{}).setdefault(b,[]).append((r['median_ms'] if r['status']=='ok' else float('nan'), r.get('registers'), r.get('local_bytes'), r.get('blocks_per_sm')))
print(f"{'app':14s} {'graph':14s} {'cfg':7s} | prev r1/r2 | head r1/r2 | new r1/r2 | new/head new/prev | res head, new")
for k,v in rows.items():
    g=lambda b: [x[0] for x in v.get(b,[])]
    m=lambda b: min(g(b)) if g(b) else float('nan')
    res=lambda b: v[b][0][1:] if b in v else None
    print(f"{k[0]:14s} {k[1]:14s} {k[2]:7s} | {'/'.join(f'{x:.3f}' for x in g('_prev'))} | {'/'.join(f'{x:.3f}' for x in g('_head'))} | {'/'.join(f'{x:.3f}' for x in g('new'))} | {m('new')/m('_head'):.3f} {m('new')/m('_prev'):.3f} | {res('_head')} {res('new')}")
PY
for f in "$out"/bfs*.log; do echo "-- $(basename $f)"; grep -E " ms|SUMMARY|WRONG|rc=" "$f" | grep -v "^loaded" | tail -12; done
