#!/usr/bin/env bash
# Call 7: the fix (push_lanes: the lanes wait for room together; make_room_group for a mesh
# forward) against HEAD 1aa1684 (`_prev`). (1) gpu_suite --priority-only, every worker/strategy
# case in a process of its own; (2) gpu_suite --spread-features on 2 devices sharing this GPU
# (a mesh forward runs make_room_group); (3) the BFS table, persistent, rows that push through
# push_lanes (thread/1, warp/1, warp/32) and cta/64, prev and new alternated, 2 rounds;
# (4) SSSP FIFO and priority, warp/4 and thread/4, kron:20,w=1000 and luxembourg_osm,
# prev and new alternated, 2 rounds.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
cp BUILD.txt "$out/build.txt"; cp BUILD_prev.txt "$out/build_prev.txt"
t0=$(date +%s); stamp() { echo "$1 after $(( $(date +%s) - t0 )) s" >> "$out/times.txt"; }
for s in persistent discrete bsp; do
  for w in thread warp cta; do
    echo "=== $w/$s" >> "$out/priority.log"
    timeout 100 ./gpu_suite --priority-only --priority-cases "$w/$s" >> "$out/priority.log" 2>&1
    echo "rc=$?" >> "$out/priority.log"
  done
done
stamp priority
timeout 200 ./gpu_suite --spread-features --spread-devices 2 > "$out/spread.log" 2>&1; echo "rc=$?" >> "$out/spread.log"; stamp spread
for r in 1 2; do
  for b in _prev ""; do
    timeout 150 ./gpu_suite$b --bfs-only --strategies persistent --only thread/1,warp/1,warp/32,cta/64 --runs 5 > "$out/bfs$b.r$r.log" 2>&1; echo "rc=$?" >> "$out/bfs$b.r$r.log"; stamp "bfs$b r$r"
  done
done
for r in 1 2; do
  for b in _prev ""; do
    for app in sssp sssp-priority; do
      timeout 120 ./atos$b bench --app $app --graph kron:20,w=1000 --graph data/luxembourg_osm.edges --weights 1000 --worker warp,thread --fetch 4 --runs 3 --quiet --timeout 20 --out "$out/sssp$b.jsonl" > /tmp/s.log 2>&1; echo "== $b $app r$r rc=$?" >> "$out/sssp.log"; cat /tmp/s.log >> "$out/sssp.log"; stamp "sssp$b $app r$r"
    done
  done
done
cat "$out/times.txt"
tr '\r' '\n' < "$out/priority.log" | grep -E "===|WRONG|SUMMARY|rc="
grep -E "SUMMARY|FAIL|WRONG|rc=" "$out/spread.log" | tail -5
for f in "$out"/bfs*.log; do echo "-- $f"; grep -E "ms|SUMMARY|WRONG" "$f" | grep -v "^loaded" | tail -14; done
python3 - "$out" <<'PY'
import json,sys,glob,os
for f in sorted(glob.glob(sys.argv[1]+'/sssp*.jsonl')):
    print('--', os.path.basename(f))
    for l in open(f):
        r=json.loads(l)
        print(f"{r['app']:14s} {r['graph'].split('/')[-1][:16]:16s} {r['worker']}/{r['fetch']} {r['status']:5s} {r['median_ms'] or 0:9.3f} ms work {r['workload_ratio'] or 0:6.2f}")
PY
