#!/usr/bin/env bash
# 2026-11-25, second session, call 2 (issue 12): narrower bands on more large road-like graphs:
# grid:4096x4096 with a quarter of its edges dropped (w=100) and a sparse geometric graph
# (geo:4M, expected degree 5, w=1000), with grid:4096x4096 w=100 again for the bulk-synchronous
# forms at the band that kept the work under 2x in call 1 (delta / 16). FIFO, priority at delta
# x1, x1/4, x1/16, x1/64, Bellman-Ford by levels and delta-stepping by levels (x1, x1/16). Every
# run verified against Dijkstra.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
cp BUILD.txt "$out/build.txt"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt"
t0=$(date +%s); stamp() { echo "$1 after $(( $(date +%s) - t0 )) s" >> "$out/times.txt"; }
bench() { local name=$1; shift; timeout "$@" --out "$out/records.jsonl" > /tmp/b.log 2>&1; echo "rc=$?" >> /tmp/b.log; { echo "== $name"; cat /tmp/b.log; } >> "$out/bench.log"; stamp "$name"; }
./atos graph convert grid:4096x4096,w=100 /tmp/gridw.acsr > "$out/convert.txt" 2>&1
./atos graph convert grid:4096x4096,drop=0.25,w=100 /tmp/gridd.acsr >> "$out/convert.txt" 2>&1
./atos graph convert geo:4000000,deg=5,w=1000 /tmp/geo5.acsr >> "$out/convert.txt" 2>&1; stamp graphs
N="--graph /tmp/gridd.acsr --graph /tmp/geo5.acsr"
C="--worker cta --fetch 8,64 --runs 3 --timeout 30 --quiet"
bench "sssp fifo" 120 ./atos bench --app sssp $N $C
for s in 1 0.25 0.0625 0.015625; do
  bench "sssp priority x$s" 90 ./atos bench --app sssp-priority --delta-scale $s $N $C
done
A="--graph /tmp/gridw.acsr --graph /tmp/gridd.acsr --graph /tmp/geo5.acsr"
B="--worker cta --fetch 8,64 --runs 2 --timeout 30 --quiet --strategy bsp"
bench "bellman-ford levels" 120 ./atos bench --app sssp $A $B
bench "delta-stepping levels x1" 90 ./atos bench --app sssp-priority $A $B
bench "delta-stepping levels x0.0625" 90 ./atos bench --app sssp-priority --delta-scale 0.0625 $A $B
cat "$out/times.txt"
python3 - "$out/records.jsonl" > "$out/table.txt" <<'PY'
import json,sys
for l in open(sys.argv[1]):
    r=json.loads(l)
    ms=r['median_ms'] or 0; d=r.get('max_depth') or 0
    print(f"{r['app']:14s} {r['strategy']:10s} {r['graph'].split('/')[-1][:14]:14s} f{r['fetch']:<3} {r['status']:5s} ver={r['verified']} {ms:9.3f} ms work {r['workload_ratio'] or 0:6.3f} delta {r.get('delta')} adv {r.get('advances')} lv {r.get('levels')} reached {r['reached']} depth {d} us/step {1000*ms/d if d else 0:.2f}")
PY
cat "$out/table.txt"
grep -E "^==|rc=|FAIL|WRONG|rror" "$out/bench.log" | head -30
