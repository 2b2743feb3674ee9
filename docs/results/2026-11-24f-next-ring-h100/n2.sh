#!/usr/bin/env bash
# Next ring, second round: the next ring's items claimed from an `open` count (no CAS loop),
# the pusher's three bounds loaded together. Two variants: `atos` (the next ring has a server of
# its own) and `atos_fused` (the near ring's server runs them). Correctness of both, then prev
# (HEAD) against both, alternated; min-blocks 8 (32 registers, 8 blocks per SM as at HEAD) on
# the programs that lost a block per SM.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
{ nvidia-smi --query-gpu=name,driver_version --format=csv; cat BUILD.txt BUILD_fused.txt BUILD_prev.txt; } > "$out/device.txt" 2>&1
t0=$(date +%s); stamp() { echo "$1 after $(( $(date +%s) - t0 )) s" >> "$out/times.txt"; }
bench() { local name=$1 to=$2 bin=$3; shift 3; timeout $to ./$bin bench "$@" --quiet --out "$out/$bin.jsonl" > /tmp/b.log 2>&1; echo "rc=$?" >> /tmp/b.log; { echo "== $bin $name"; cat /tmp/b.log; } >> "$out/bench.log"; stamp "$bin $name"; }
./atos graph convert grid:4096x4096,w=100 /tmp/gridw.acsr > /dev/null 2>&1
./atos graph convert kron:22,w=1000 /tmp/kronw.acsr > /dev/null 2>&1; stamp graphs
S="--graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges --graph data/rome99.gr --graph kron:16,w=100 --graph grid:256x256,w=50 --weights 1000"
V="--worker thread,warp,cta --fetch 1,8,64 --runs 1 --warmup 1 --timeout 20"
for b in atos atos_fused; do
  bench "check sssp-priority" 150 $b --app sssp-priority $S $V
  bench "check sssp-priority slack0 narrow float" 150 $b --app sssp-priority $S $V --advance-slack 0 --delta-scale 0.0625 --float-weights
  bench "check bfs-priority" 100 $b --app bfs-priority --graph data/luxembourg_osm.edges --graph data/rome99.gr --graph kron:16 --graph grid:256x256 $V
  bench "check kcore" 100 $b --app kcore --graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges --graph kron:16 $V
done
W="--worker warp,cta --fetch 8 --runs 1 --warmup 1 --timeout 20"
bench "check windowed sssp-priority" 100 atos --app sssp-priority --strategy discrete,bsp $S $W
bench "check windowed kcore" 100 atos --app kcore --strategy discrete,bsp --graph data/delaunay_n16.edges --graph kron:16 $W
stamp checks
T="--worker cta --fetch 8,64 --runs 3 --timeout 20"
SM="--graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges --graph data/rome99.gr --weights 1000"
for r in 1 2; do for b in atos_prev atos atos_fused; do
  bench "bfs-priority r$r" 100 $b --app bfs-priority --graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges --graph data/rome99.gr --graph grid:1024x1024 $T
  bench "sssp-priority default r$r" 60 $b --app sssp-priority $SM $T
  bench "sssp-priority /16 r$r" 60 $b --app sssp-priority $SM $T --delta-scale 0.0625
  bench "kcore r$r" 60 $b --app kcore --graph kron:18 --graph data/luxembourg_osm.edges $T
done; done
for b in atos atos_fused; do
  bench "bfs-priority mb8" 100 $b --app bfs-priority --graph data/luxembourg_osm.edges --graph grid:1024x1024 $T --min-blocks 8
  bench "kcore mb8" 60 $b --app kcore --graph kron:18 --graph data/luxembourg_osm.edges $T --min-blocks 8
done
for b in atos_prev atos atos_fused; do
  bench "sssp-priority large" 150 $b --app sssp-priority --graph /tmp/gridw.acsr --graph /tmp/kronw.acsr $T
done
bench "sssp fifo small" 60 atos --app sssp $SM $T
cat "$out/times.txt" | tail -3
grep -E "rc=" "$out/bench.log" | sort | uniq -c
python3 - "$out" <<'PY'
import json,sys,glob,os
for f in sorted(glob.glob(sys.argv[1]+'/*.jsonl')):
    bad=0; n=0
    for l in open(f):
        r=json.loads(l); n+=1
        if r['status']!='ok': bad+=1; print('NOT OK', os.path.basename(f), r['app'], r['graph'], r['worker'], r['fetch'], r['strategy'], r['status'])
    print(os.path.basename(f), n, 'records', bad, 'not ok')
PY
