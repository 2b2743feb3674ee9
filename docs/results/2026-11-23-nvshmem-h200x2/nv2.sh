#!/usr/bin/env bash
# Issue 14: NVSHMEM vs peer-to-peer vs 1 GPU, same call: BFS kron:22, kron:24, grid:4096^2; PageRank kron:22.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 NVSHMEM_SYMMETRIC_SIZE=20G
out="${OUT:-.gpu/out}"; mkdir -p "$out"
log="$out/nv2.log"; j="$out/nv2.jsonl"
cd .gpu
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt"
export ATOS_CACHE_DIR=/tmp/atos-kernels
t0=$(date +%s)
step() { echo "=== $* (t=$(( $(date +%s) - t0 )) s)" >> "$log"; }
b() { timeout 200 ./atos bench "$@" --worker cta --fetch 64 --timeout 30 --quiet --out "$j" >> "$log" 2>&1; echo "rc=$?" >> "$log"; }
step bfs kron:22
b --app bfs --graph kron:22 --devices 1,2 --transport nvshmem --aggregation eager,1024:20 --partition edges --runs 5
b --app bfs --graph kron:22 --devices 2 --aggregation eager,1024:20 --partition edges --runs 5
step bfs kron:24
b --app bfs --graph kron:24 --devices 1,2 --transport nvshmem --aggregation eager,1024:20 --partition edges --runs 3
b --app bfs --graph kron:24 --devices 2 --aggregation eager,1024:20 --partition edges --runs 3
step bfs grid:4096
b --app bfs --graph grid:4096x4096 --devices 1,2 --transport nvshmem --aggregation eager --partition vertices --runs 3
b --app bfs --graph grid:4096x4096 --devices 2 --aggregation eager --partition vertices --runs 3
step pagerank kron:22
b --app pagerank --graph kron:22 --devices 1,2 --transport nvshmem --aggregation eager,1024:20 --partition edges --runs 3
b --app pagerank --graph kron:22 --devices 2 --aggregation eager,1024:20 --partition edges --runs 3
step done
python3 - "$j" >> "$log" <<'PY'
import json,sys
for l in open(sys.argv[1]):
    r=json.loads(l)
    print(r.get('app'), r.get('graph'), r.get('device'), r.get('devices'), r.get('aggregation'), r.get('status'), 'ms', r.get('median_ms'), 'times', r.get('times_ms'), 'wall', r.get('wall_ms'), 'remote', r.get('remote_items'), 'ratio', r.get('workload_ratio'), (r.get('error') or '')[:200])
PY
tail -c 7000 "$log"
