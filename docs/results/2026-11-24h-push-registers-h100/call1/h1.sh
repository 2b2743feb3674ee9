#!/usr/bin/env bash
# Call 1 (2026-11-24, eighth session): (1) gpu_suite --state-only: one upload run many times,
# a priority state uploaded by a discrete program then run persistent (the next ring on
# demand), persistent grids of 4x the resident blocks; (2) gpu_suite --priority-only (windowed
# priority runs now hold a small next ring); (3) SSSP FIFO and priority, cta/8 and cta/64, this
# build against `_prev` (1aa1684, before the push fix), alternated, 2 rounds: the records now
# carry registers, local_bytes, blocks_per_sm and device_bytes; (4) priority SSSP discrete on
# kron:22 for its device_bytes.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt"
cp BUILD.txt "$out/build.txt"; cp BUILD_prev.txt "$out/build_prev.txt"
t0=$(date +%s); stamp() { echo "$1 after $(( $(date +%s) - t0 )) s" >> "$out/times.txt"; }
timeout 150 ./gpu_suite --state-only > "$out/state.log" 2>&1; echo "rc=$?" >> "$out/state.log"; stamp state
timeout 200 ./gpu_suite --priority-only > "$out/priority.log" 2>&1; echo "rc=$?" >> "$out/priority.log"; stamp priority
./atos graph convert grid:4096x4096,w=100 /tmp/gridw.acsr > /dev/null 2>&1
./atos graph convert kron:22,w=1000 /tmp/kronw.acsr > /dev/null 2>&1; stamp graphs
W="--graph /tmp/gridw.acsr --graph /tmp/kronw.acsr --graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges --graph data/rome99.gr --weights 1000"
for r in 1 2; do
  for b in _prev ""; do
    for app in sssp-priority sssp; do
      timeout 150 ./atos$b bench --app $app $W --worker cta --fetch 8,64 --runs 3 --quiet --timeout 20 --out "$out/sssp$b.jsonl" > /tmp/s.log 2>&1; echo "== $b $app r$r rc=$?" >> "$out/sssp.log"; cat /tmp/s.log >> "$out/sssp.log"; stamp "sssp$b $app r$r"
    done
  done
done
timeout 100 ./atos bench --app sssp-priority --graph /tmp/kronw.acsr --graph data/luxembourg_osm.edges --weights 1000 --strategy discrete,bsp --worker cta --fetch 64 --runs 2 --quiet --timeout 20 --out "$out/windowed.jsonl" > /tmp/s.log 2>&1; echo "== windowed rc=$?" >> "$out/sssp.log"; cat /tmp/s.log >> "$out/sssp.log"; stamp windowed
cat "$out/times.txt"
tr '\r' '\n' < "$out/state.log" | grep -v "^ *$" | tail -22
tr '\r' '\n' < "$out/priority.log" | grep -E "WRONG|SUMMARY|rc=|HUNG"
grep -E "rc=|FAIL|WRONG|rror" "$out/sssp.log" | head -20
python3 - "$out" <<'PY'
import json,sys,glob,os
for f in sorted(glob.glob(sys.argv[1]+'/*.jsonl')):
    print('--', os.path.basename(f))
    for l in open(f):
        r=json.loads(l)
        print(f"{r['app']:14s} {r['strategy'][:4]} {r['graph'].split('/')[-1][:14]:14s} {r['worker']}/{r['fetch']:<3} {r['status']:4s} {r['median_ms'] or 0:9.3f} ms work {r['workload_ratio'] or 0:6.2f} reg {r.get('registers')} local {r.get('local_bytes')} bpsm {r.get('blocks_per_sm')} grid {r.get('grid')} dev {r.get('device_bytes')}")
PY
