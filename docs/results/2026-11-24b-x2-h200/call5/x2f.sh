#!/usr/bin/env bash
# Issue 13 on 2 GPUs, call 5: the done-batching patch (docs/results/2026-11-24-done-batching-h100/
# done-batching.patch: spread units count `done` once per 16 batches and before looking for the
# end; `atos_done`) against HEAD (`atos`, bca0d43) over NVLink, alternated: BFS on the grid and
# kron:22, PageRank re-scan on kron:22, 2 GPUs. Every run verified.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"; log="$out/x2.log"
cd .gpu
nvidia-smi --query-gpu=name,driver_version --format=csv > "$out/device.txt"
t0=$(date +%s)
left() { echo $(( 300 - ($(date +%s) - t0) )); }
b() { tag=$1; bin=$2; lim=$3; shift 3; [ "$(left)" -lt 15 ] && { echo "skip $tag" >> "$log"; return; }; [ "$lim" -gt "$(left)" ] && lim=$(left); echo "=== $tag $bin (t=$(( $(date +%s) - t0 )) s)" >> "$log"; timeout $lim ./$bin bench --timeout 30 --quiet --out "$out/$bin.jsonl" "$@" >> "$log" 2>&1; echo "rc=$? $tag $bin" >> "$log"; }
./atos graph convert kron:22 /tmp/kron22.acsr > /dev/null 2>&1; ./atos graph convert grid:4096x4096 /tmp/grid.acsr > /dev/null 2>&1
for r in 1 2; do for bin in atos atos_done; do
  b grid $bin 40 --app bfs --graph /tmp/grid.acsr --devices 2 --worker cta --fetch 64 --partition vertices --runs 5
  b bfs $bin 40 --app bfs --graph /tmp/kron22.acsr --devices 2 --aggregation eager,1024:20 --worker cta --fetch 64 --partition edges --runs 5
done; done
for bin in atos atos_done; do
  b pr $bin 60 --app pagerank-rescan --graph /tmp/kron22.acsr --devices 2 --worker cta --fetch 64 --partition edges --runs 5
done
python3 - "$out" >> "$log" <<'PY'
import json,sys,glob,os
for f in sorted(glob.glob(sys.argv[1]+'/*.jsonl')):
    for l in open(f):
        r=json.loads(l)
        print('REC', os.path.basename(f)[:-6], r['app'], r['graph'][-14:], r.get('aggregation'), r['status'], r['verified'], 'ms %.2f' % (r.get('median_ms') or 0), 'wl %.2f' % (r.get('workload_ratio') or 0))
PY
echo "end t=$(( $(date +%s) - t0 ))" >> "$log"
grep -E "^===|^rc=|^REC|skip|end t" "$log" | cut -c1-200
