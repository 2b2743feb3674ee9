#!/usr/bin/env bash
# deliver_span (one loop for the sweep's deliveries and the drains): gpu_suite --spread-features
# on 2 devices sharing the H100, then PageRank re-scan on 2 shared devices, drain 16 and 0,
# dadcb69 (atos_prev) against this build (atos), alternated.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
nvidia-smi --query-gpu=name,driver_version --format=csv > "$out/device.txt"
t0=$(date +%s); stamp() { echo "$1 after $(( $(date +%s) - t0 )) s" >> "$out/times.txt"; }
bench() { local name=$1 bin=$2; shift 2; timeout 150 ./$bin bench "$@" --quiet --out "$out/$bin.jsonl" > /tmp/b.log 2>&1; echo "rc=$?" >> /tmp/b.log; { echo "== $bin $name"; cat /tmp/b.log; } >> "$out/bench.log"; stamp "$bin $name"; }
timeout 200 ./gpu_suite --spread-features --spread-devices 2 > "$out/suite.log" 2>&1; echo "rc=$?" >> "$out/suite.log"; stamp suite
./atos graph convert kron:22 /tmp/kron22.acsr > /dev/null 2>&1; stamp graph
P="--app pagerank-rescan --share-gpus --combine on --devices 2 --worker cta --fetch 64 --runs 3 --timeout 30 --graph /tmp/kron22.acsr --graph kron:16 --graph data/luxembourg_osm.edges"
for r in 1 2; do for b in atos_prev atos; do for d in 16 0; do
  bench "r$r drain $d" $b $P --combine-drain $d
done; done; done
cat "$out/times.txt"
tail -n 3 "$out/suite.log"; grep -ci "wrong\|fail" "$out/suite.log"
python3 - "$out" <<'PY'
import json,sys,glob,os
for f in sorted(glob.glob(sys.argv[1]+'/*.jsonl')):
    for l in open(f):
        r=json.loads(l)
        print(f"{os.path.basename(f):16s} {r['graph'].split('/')[-1][:14]:14s} dev {r.get('devices')} drain {r.get('combine_drain')} {r['status']} {r['median_ms'] or 0:8.3f} ms work {r['workload_ratio'] or 0:.3f} delivered {r.get('device_delivered')}")
PY
