#!/usr/bin/env bash
# A build's check: every priority program on every worker and fetch verified, and
# priority BFS timed once (the status poll must not cost).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
{ nvidia-smi --query-gpu=name,driver_version --format=csv; cat BUILD.txt; } > "$out/device.txt" 2>&1
bench() { local name=$1 to=$2 bin=$3; shift 3; timeout $to ./$bin bench "$@" --quiet --out "$out/$bin.jsonl" > /tmp/b.log 2>&1; echo "rc=$?" >> /tmp/b.log; { echo "== $bin $name"; cat /tmp/b.log; } >> "$out/bench.log"; }
S="--graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges --graph data/rome99.gr --graph kron:16,w=100 --graph grid:256x256,w=50 --weights 1000"
V="--worker thread,warp,cta --fetch 1,8,64 --runs 1 --warmup 1 --timeout 20"
bench "check sssp-priority" 150 atos --app sssp-priority $S $V
bench "check bfs-priority" 100 atos --app bfs-priority --graph data/luxembourg_osm.edges --graph data/rome99.gr --graph kron:16 --graph grid:256x256 $V
bench "check kcore" 100 atos --app kcore --graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges --graph kron:16 --graph kron:18 $V
bench "check windowed" 100 atos --app kcore --strategy discrete,bsp --graph kron:16 --worker cta --fetch 8 --runs 1
bench "bfs-priority time" 100 atos --app bfs-priority --graph data/luxembourg_osm.edges --graph grid:1024x1024 --worker cta --fetch 8,64 --runs 3
grep -E "rc=" "$out/bench.log" | sort | uniq -c
python3 - "$out" <<'PY'
import json,sys,glob,os
for f in sorted(glob.glob(sys.argv[1]+'/*.jsonl')):
    bad=0; n=0
    for l in open(f):
        r=json.loads(l); n+=1
        if r['status']!='ok': bad+=1; print('NOT OK', r['app'], r['graph'], r['worker'], r['fetch'], r['strategy'], r['status'])
        elif r['runs']==3: print(r['app'], r['graph'], r['worker'], r['fetch'], r['median_ms'])
    print(os.path.basename(f), n, 'records', bad, 'not ok')
PY
