#!/usr/bin/env bash
# FIFO SSSP (the priority queue unordered: the same kernel) against priority SSSP at the default
# delta and at delta / 16 and / 8, on the three small road-like graphs: the landed build
# (`atos_fused`) and the baseline (`atos_prev`), alternated, two rounds.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
{ nvidia-smi --query-gpu=name,driver_version --format=csv; cat BUILD_fused.txt BUILD_prev.txt; } > "$out/device.txt" 2>&1
t0=$(date +%s); stamp() { echo "$1 after $(( $(date +%s) - t0 )) s" >> "$out/times.txt"; }
bench() { local name=$1 to=$2 bin=$3; shift 3; timeout $to ./$bin bench "$@" --quiet --out "$out/$bin.jsonl" > /tmp/b.log 2>&1; echo "rc=$?" >> /tmp/b.log; { echo "== $bin $name"; cat /tmp/b.log; } >> "$out/bench.log"; stamp "$bin $name"; }
T="--worker cta --fetch 8,64 --runs 5 --timeout 20"
SM="--graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges --graph data/rome99.gr --weights 1000"
for r in 1 2; do for b in atos_prev atos_fused; do
  bench "sssp fifo r$r" 60 $b --app sssp $SM $T
  bench "sssp-priority default r$r" 60 $b --app sssp-priority $SM $T
  bench "sssp-priority /8 r$r" 60 $b --app sssp-priority $SM $T --delta-scale 0.125
  bench "sssp-priority /16 r$r" 60 $b --app sssp-priority $SM $T --delta-scale 0.0625
done; done
grep -E "rc=" "$out/bench.log" | sort | uniq -c
python3 - "$out" <<'PY'
import json,sys,glob,os
for f in sorted(glob.glob(sys.argv[1]+'/*.jsonl')):
    bad=0; n=0
    for l in open(f):
        r=json.loads(l); n+=1
        if r['status']!='ok': bad+=1
    print(os.path.basename(f), n, 'records', bad, 'not ok')
PY
