#!/usr/bin/env bash
# Issue 13, filter copies, second call: where the 2-GPU time goes (aggregation batch sizes,
# partitions, workers), PageRank and the grid for the scaling table. Every run verified.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
out="${OUT:-.gpu/out}"; mkdir -p "$out"
log="$out/fc2.log"; j="$out/fc2.jsonl"
cd .gpu
export ATOS_CACHE_DIR=/tmp/atos-kernels
t0=$(date +%s)
step() { echo "=== $* (t=$(( $(date +%s) - t0 )) s)" >> "$log"; }
b() { timeout 150 ./atos bench --timeout 30 --quiet --out "$j" "$@" >> "$log" 2>&1; echo "rc=$?" >> "$log"; }
step bfs kron:22 batches
b --app bfs --graph kron:22 --devices 1,2 --aggregation eager,256:5,1024:20,4096:20,4096:100,16384:100 --worker cta --fetch 64 --partition edges --runs 5
step bfs kron:22 partitions and workers
b --app bfs --graph kron:22 --devices 2 --aggregation 1024:20 --worker cta --fetch 64 --partition vertices,random:1 --runs 5
b --app bfs --graph kron:22 --devices 1,2 --aggregation 1024:20 --worker warp,cta --fetch 32,128 --partition edges --runs 5
step bfs-owner kron:22
b --app bfs-owner --graph kron:22 --devices 1,2 --aggregation 1024:20 --worker cta --fetch 64 --partition edges --runs 5
step pagerank kron:22
b --app pagerank --graph kron:22 --devices 1,2 --aggregation eager,1024:20 --worker cta --fetch 64 --partition edges --runs 3
step grid random partition
b --app bfs --graph grid:4096x4096 --devices 2 --aggregation eager,1024:20 --worker cta --fetch 64 --partition random:1 --runs 3
step done
python3 - "$j" >> "$log" <<'PY'
import json,sys
for l in open(sys.argv[1]):
    r=json.loads(l)
    print(r.get('app'), r.get('graph'), r.get('devices'), r.get('partition'), r.get('worker'), r.get('fetch'), r.get('aggregation'), r.get('status'), 'ms %.2f' % (r.get('median_ms') or 0), 'remote', r.get('remote_items'), 'ratio %.2f' % (r.get('workload_ratio') or 0), 'tasks', r.get('device_tasks'))
PY
tail -c 6000 "$log"
