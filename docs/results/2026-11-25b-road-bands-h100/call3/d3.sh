#!/usr/bin/env bash
# 2026-11-25, second session, call 3 (issue 12): parking (--park on, off by default for SSSP)
# with the narrow bands that keep SSSP's work under 2x: delta x1/16 and x1/64 on the three small
# road-like graphs and grid:4096x4096 drop=0.25 w=100, parking off and on alternated, 2 rounds.
# Every run verified against Dijkstra.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
cp BUILD.txt "$out/build.txt"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt"
t0=$(date +%s); stamp() { echo "$1 after $(( $(date +%s) - t0 )) s" >> "$out/times.txt"; }
bench() { local name=$1; shift; timeout "$@" --out "$out/records.jsonl" > /tmp/b.log 2>&1; echo "rc=$?" >> /tmp/b.log; { echo "== $name"; cat /tmp/b.log; } >> "$out/bench.log"; stamp "$name"; }
./atos graph convert grid:4096x4096,drop=0.25,w=100 /tmp/gridd.acsr > "$out/convert.txt" 2>&1; stamp graphs
W="--graph /tmp/gridd.acsr --graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges --graph data/rome99.gr --weights 1000"
C="--worker cta --fetch 8,64 --runs 3 --timeout 30 --quiet"
for round in 1 2; do
  for s in 0.0625 0.015625; do
    for p in off on; do
      bench "r$round x$s park $p" 90 ./atos bench --app sssp-priority --delta-scale $s --park $p $W $C
    done
  done
done
cat "$out/times.txt"
python3 - "$out/records.jsonl" > "$out/table.txt" <<'PY'
import json,sys
for l in open(sys.argv[1]):
    r=json.loads(l)
    ms=r['median_ms'] or 0; d=r.get('max_depth') or 0
    print(f"{r['app']:14s} park={r.get('park')} {r['graph'].split('/')[-1][:14]:14s} f{r['fetch']:<3} {r['status']:5s} ver={r['verified']} {ms:9.3f} ms work {r['workload_ratio'] or 0:6.3f} delta {r.get('delta')} adv {r.get('advances')} depth {d} us/step {1000*ms/d if d else 0:.2f}")
PY
cat "$out/table.txt"
grep -E "^==|rc=|FAIL|WRONG|rror" "$out/bench.log" | head -30
