#!/usr/bin/env bash
# Re-measuring two earlier build comparisons whose new `atos` may have been stale (builds made by
# scripts/gpu-bundle.sh in worktrees, headers checked):
#  (A) hoisted index checks: 8d3b2a4 (before) against e33524e (after), BFS as in
#      2026-11-23c-hoist-h100 (rc2.sh): grid and luxembourg persistent cta/64, kron:22 discrete cta/64;
#  (B) deliveries first in a device's sweep: e7f9548 (before) against 7948944 (after), PageRank
#      re-scan on 2 devices sharing the GPU as in 2026-11-24c-h100-call1 (h1.sh), cta/8, kron:20/22.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
cp BUILD_8d3b2a4.txt BUILD_e33524e.txt BUILD_e7f9548.txt BUILD_7948944.txt "$out/"
nvidia-smi --query-gpu=name,driver_version --format=csv > "$out/device.txt"
t0=$(date +%s); stamp() { echo "$1 after $(( $(date +%s) - t0 )) s" >> "$out/times.txt"; }
for g in kron:20 kron:22 grid:4096x4096; do ./atos_e33524e graph convert $g /tmp/${g/:/}.acsr > /dev/null 2>&1; done; stamp graphs
bench() { local name=$1 to=$2 bin=$3; shift 3; ATOS_CACHE_DIR=/tmp/k-$bin timeout $to ./$bin bench "$@" --quiet --out "$out/$name-$bin.jsonl" > /tmp/b.log 2>&1; echo "rc=$?" >> /tmp/b.log; { echo "== $bin $name"; cat /tmp/b.log; } >> "$out/bench.log"; stamp "$bin $name"; }
for r in 1 2 3; do for b in atos_8d3b2a4 atos_e33524e; do
  bench hoist 40 $b --graph /tmp/grid4096x4096.acsr --graph data/luxembourg_osm.edges --strategy persistent --worker cta --fetch 64 --runs 5
  bench hoist 40 $b --graph /tmp/kron22.acsr --strategy discrete --worker cta --fetch 64 --runs 5
done; done
P="--app pagerank-rescan --devices 2 --share-gpus --combine on --worker cta --fetch 8 --runs 3 --timeout 30 --graph /tmp/kron20.acsr --graph /tmp/kron22.acsr"
for r in 1 2 3; do for b in atos_e7f9548 atos_7948944; do bench first 90 $b $P; done; done
cat "$out/times.txt"; grep -c "rc=0" "$out/bench.log"; grep "rc=" "$out/bench.log" | sort | uniq -c
python3 - "$out" <<'PY'
import json,sys,glob,os,collections
t=collections.defaultdict(list)
for f in sorted(glob.glob(sys.argv[1]+'/*.jsonl')):
    b=os.path.basename(f)[:-6]
    for l in open(f):
        r=json.loads(l)
        t[(b.split('-')[0], r['graph'].split('/')[-1][:16], r['strategy'])].append((b.split('-')[1][5:], r['status'], r['verified'], round(r['median_ms'] or 0,3), round(r['workload_ratio'] or 0,3)))
for k,v in sorted(t.items()): print(k); [print('   ',x) for x in v]
PY
