#!/usr/bin/env bash
# Priority SSSP at the landed build (81d3c12): the default (48 registers, 5 blocks per SM) against
# --min-blocks 6 (at most 40 registers: 6 blocks per SM, as before the next ring), alternated,
# two rounds; FIFO (the same kernel, unordered) likewise.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
{ nvidia-smi --query-gpu=name,driver_version --format=csv; cat BUILD.txt; } > "$out/device.txt" 2>&1
bench() { local name=$1 to=$2; shift 2; timeout $to ./atos bench "$@" --quiet --out "$out/records.jsonl" > /tmp/b.log 2>&1; echo "rc=$?" >> /tmp/b.log; { echo "== $name"; cat /tmp/b.log; } >> "$out/bench.log"; }
./atos graph convert grid:4096x4096,w=100 /tmp/gridw.acsr > /dev/null 2>&1
./atos graph convert kron:22,w=1000 /tmp/kronw.acsr > /dev/null 2>&1
G="--graph /tmp/gridw.acsr --graph /tmp/kronw.acsr --graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges --graph data/rome99.gr --weights 1000"
T="--worker cta --fetch 8,64 --runs 3 --timeout 20"
for r in 1 2; do for mb in 0 6; do
  bench "sssp-priority mb$mb r$r" 200 --app sssp-priority $G $T --min-blocks $mb
  bench "sssp fifo mb$mb r$r" 200 --app sssp $G $T --min-blocks $mb
done; done
grep -E "rc=" "$out/bench.log" | sort | uniq -c
python3 - "$out/records.jsonl" <<'PY'
import json,sys,collections
d=collections.defaultdict(list)
for l in open(sys.argv[1]):
    r=json.loads(l)
    d[(r['app'],r['graph'].split('/')[-1],r['fetch'],r['min_blocks'])].append((r['median_ms'],r['grid'][0],r['status']))
for k in sorted(d): print(k, d[k])
PY
