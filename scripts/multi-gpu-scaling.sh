#!/usr/bin/env bash
# Multi-GPU scaling at the sizes issue 13 asks for, for the next machine with several GPUs
# (nvidia-h200-x2, or x4 with DEVS=1,2,4): kron:24 and grid:8192x8192, BFS and PageRank, one GPU
# against DEVS in the same bench runs, peer-to-peer eager and aggregated, combine drains 16 (the
# default) and 0, then the NVSHMEM transport. Every run verified against the CPU reference.
# Written 2026-11-24 (third session). Not run as a whole yet: on 2026-11-28 a session with 418 s
# of device time ran its kron:24 and grid:8192x8192 BFS and PageRank steps, and kron:22, on 1, 2
# and 4 GPUs (docs/results/2026-11-28-x4-h200.md). `atos report $OUT/records.jsonl --plots DIR`
# prints the tables and draws the scaling plots from the records afterwards.
# Run on the device machine from the repository root with this commit's release `atos` in .gpu/
# (built by scripts/gpu-bundle.sh; carry [".gpu"]); BUDGET is the script's own time limit in
# seconds (default 560).
set -uo pipefail
DEVS="${DEVS:-1,2}"; NMAX="${DEVS##*,}"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
NVL=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nvshmem/lib
out="${OUT:-.gpu/out}"; mkdir -p "$out"; log="$out/xs.log"
cd .gpu
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt"; nvidia-smi topo -m > "$out/topo.txt" 2>&1
t0=$(date +%s)
left() { echo $(( ${BUDGET:-560} - ($(date +%s) - t0) )); }
b() { tag=$1; lim=$2; shift 2; [ "$(left)" -lt 25 ] && { echo "skip $tag" >> "$log"; return; }; [ "$lim" -gt "$(left)" ] && lim=$(left); echo "=== $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; timeout $lim ./atos bench --timeout 30 --quiet --out "$out/records.jsonl" "$@" >> "$log" 2>&1; echo "rc=$? $tag" >> "$log"; }
./atos graph convert kron:24 /tmp/kron24.acsr > "$out/convert.txt" 2>&1; ./atos graph convert grid:8192x8192 /tmp/grid8192.acsr >> "$out/convert.txt" 2>&1
echo "graphs t=$(( $(date +%s) - t0 ))" >> "$log"
K=/tmp/kron24.acsr; G=/tmp/grid8192.acsr
b bfs-kron 90 --app bfs --graph $K --devices $DEVS --partition edges --aggregation eager,1024:20 --worker cta --fetch 64 --runs 3
b pr-kron 150 --app pagerank-rescan --graph $K --devices $DEVS --partition edges --worker cta --fetch 8,64 --runs 3
b pr-kron-drain0 120 --app pagerank-rescan --graph $K --devices $NMAX --partition edges --worker cta --fetch 8,64 --combine-drain 0 --runs 3
b bfs-grid 90 --app bfs --graph $G --devices $DEVS --partition vertices --worker cta --fetch 8,64 --runs 3
b pr-grid 120 --app pagerank --graph $G --devices $DEVS --partition vertices --worker cta --fetch 64 --runs 3
LD_LIBRARY_PATH="$NVL:$LD_LIBRARY_PATH" b bfs-kron-nvshmem 60 --app bfs --graph $K --devices $NMAX --transport nvshmem --partition edges --aggregation eager,1024:20 --worker cta --fetch 64 --runs 3
LD_LIBRARY_PATH="$NVL:$LD_LIBRARY_PATH" b pr-kron-nvshmem 90 --app pagerank-rescan --graph $K --devices $NMAX --transport nvshmem --partition edges --worker cta --fetch 8 --runs 3
OUTDIR="$out" python3 - >> "$log" <<'PY'
import json,os,collections
c=collections.Counter()
for l in open(os.environ['OUTDIR']+'/records.jsonl'):
    r=json.loads(l); c[(r['status'],r['verified'])]+=1
    print('REC', r['app'], r['graph'][-14:], r.get('devices'), r.get('aggregation'), r.get('combining'), r.get('combine_drain'), r['worker'], r['fetch'], r['status'], 'ms %.2f' % (r.get('median_ms') or 0), 'wl %.2f' % (r.get('workload_ratio') or 0), 'ops', r.get('device_remote_ops'), 'items', r.get('remote_items'))
print('SUMMARY', dict(c))
PY
echo "end t=$(( $(date +%s) - t0 ))" >> "$log"
head -8 "$out/topo.txt"; grep -E "generate" "$out/convert.txt"
grep -E "^===|^rc=|^REC|SUMMARY|FAIL|WRONG|rror|skip|end t|graphs t" "$log" | cut -c1-230
