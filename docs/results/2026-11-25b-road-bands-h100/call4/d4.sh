#!/usr/bin/env bash
# 2026-11-25, second session, call 4 (issue 12): can a small grid make a band as cheap as a step
# on the small road-like graphs? Priority SSSP with one-step bands (delta x1/64) and x1/16,
# parking off and on, priority BFS, and FIFO SSSP, at 1, 4, 16 and 132 blocks and the default
# grid, CTA workers fetch 64 and 256. Every run verified.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
cp BUILD.txt "$out/build.txt"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt"
t0=$(date +%s); stamp() { echo "$1 after $(( $(date +%s) - t0 )) s" >> "$out/times.txt"; }
bench() { local name=$1; shift; timeout "$@" --out "$out/records.jsonl" > /tmp/b.log 2>&1; echo "rc=$?" >> /tmp/b.log; { echo "== $name"; cat /tmp/b.log; } >> "$out/bench.log"; stamp "$name"; }
S="--graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges --graph data/rome99.gr"
C="--worker cta --fetch 64,256 --runs 3 --timeout 20 --quiet"
for g in 1 4 16 132 0; do
  G=""; [ $g -gt 0 ] && G="--grid $g"
  bench "g$g sssp fifo" 60 ./atos bench --app sssp $S --weights 1000 $C $G
  bench "g$g sssp x1/64 park off" 60 ./atos bench --app sssp-priority --delta-scale 0.015625 --park off $S --weights 1000 $C $G
  bench "g$g sssp x1/64 park on" 60 ./atos bench --app sssp-priority --delta-scale 0.015625 --park on $S --weights 1000 $C $G
  bench "g$g sssp x1/16 park on" 60 ./atos bench --app sssp-priority --delta-scale 0.0625 --park on $S --weights 1000 $C $G
  bench "g$g bfs-priority" 60 ./atos bench --app bfs-priority $S $C $G
done
cat "$out/times.txt"
python3 - "$out/records.jsonl" > "$out/table.txt" <<'PY'
import json,sys
for l in open(sys.argv[1]):
    r=json.loads(l)
    ms=r['median_ms'] or 0; d=r.get('max_depth') or 0
    print(f"{r['app']:14s} grid={r['grid'][0]:<5} park={str(r.get('park')):5s} {r['graph'].split('/')[-1][:14]:14s} f{r['fetch']:<3} {r['status']:5s} ver={r['verified']} {ms:9.3f} ms work {r['workload_ratio'] or 0:6.3f} delta {r.get('delta')} adv {r.get('advances')} depth {d} us/step {1000*ms/d if d else 0:.2f}")
PY
cat "$out/table.txt"
grep -E "^==|rc=|FAIL|WRONG|rror" "$out/bench.log" | grep -v "rc=0" | head -30
