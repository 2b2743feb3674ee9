#!/usr/bin/env bash
# One call site for the near ring's and the next ring's batches (`atos`: serve_band, the task
# inlined once, 40 registers for SSSP) against the landed two-site form (`atos_head`, 81d3c12,
# 48 registers for SSSP): correctness of `atos` on every priority program, worker and fetch,
# then the two alternated, two rounds.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
{ nvidia-smi --query-gpu=name,driver_version --format=csv; cat BUILD.txt BUILD_head.txt; } > "$out/device.txt" 2>&1
t0=$(date +%s); stamp() { echo "$1 after $(( $(date +%s) - t0 )) s" >> "$out/times.txt"; }
bench() { local name=$1 to=$2 bin=$3; shift 3; timeout $to ./$bin bench "$@" --quiet --out "$out/$bin.jsonl" > /tmp/b.log 2>&1; echo "rc=$?" >> /tmp/b.log; { echo "== $bin $name"; cat /tmp/b.log; } >> "$out/bench.log"; stamp "$bin $name"; }
./atos graph convert grid:4096x4096,w=100 /tmp/gridw.acsr > /dev/null 2>&1
./atos graph convert kron:22,w=1000 /tmp/kronw.acsr > /dev/null 2>&1; stamp graphs
S="--graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges --graph data/rome99.gr --graph kron:16,w=100 --graph grid:256x256,w=50 --weights 1000"
V="--worker thread,warp,cta --fetch 1,8,64 --runs 1 --warmup 1 --timeout 20"
bench "check sssp-priority" 150 atos --app sssp-priority $S $V
bench "check sssp-priority slack0 narrow float" 150 atos --app sssp-priority $S $V --advance-slack 0 --delta-scale 0.0625 --float-weights
bench "check bfs-priority" 100 atos --app bfs-priority --graph data/luxembourg_osm.edges --graph data/rome99.gr --graph kron:16 --graph grid:256x256 $V
bench "check kcore" 100 atos --app kcore --graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges --graph kron:16 --graph kron:18 $V
bench "check windowed" 100 atos --app sssp-priority --strategy discrete,bsp $S --worker warp,cta --fetch 8 --runs 1
stamp checks
T="--worker cta --fetch 8,64 --runs 3 --timeout 20"
SM="--graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges --graph data/rome99.gr --weights 1000"
for r in 1 2; do for b in atos_head atos; do
  bench "bfs-priority r$r" 100 $b --app bfs-priority --graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges --graph data/rome99.gr --graph grid:1024x1024 $T
  bench "kcore r$r" 60 $b --app kcore --graph kron:18 --graph data/luxembourg_osm.edges $T
  bench "sssp-priority default r$r" 60 $b --app sssp-priority $SM $T
  bench "sssp-priority /16 r$r" 60 $b --app sssp-priority $SM $T --delta-scale 0.0625
  bench "sssp fifo r$r" 60 $b --app sssp $SM $T
  bench "sssp-priority large r$r" 150 $b --app sssp-priority --graph /tmp/gridw.acsr --graph /tmp/kronw.acsr $T
done; done
grep -E "rc=" "$out/bench.log" | sort | uniq -c
python3 - "$out" <<'PY'
import json,sys,glob,os
for f in sorted(glob.glob(sys.argv[1]+'/*.jsonl')):
    bad=0; n=0
    for l in open(f):
        r=json.loads(l); n+=1
        if r['status']!='ok': bad+=1; print('NOT OK', r['app'], r['graph'], r['worker'], r['fetch'], r['strategy'], r['status'])
    print(os.path.basename(f), n, 'records', bad, 'not ok')
PY
