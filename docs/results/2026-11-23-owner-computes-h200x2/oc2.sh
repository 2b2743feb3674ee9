#!/usr/bin/env bash
# Issue 13, device call 8: owner-computes BFS against the plain spread BFS in one call: kron:22
# and grid:4096 on 1 and 2 GPUs, eager and aggregated, every run verified.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
out="${OUT:-.gpu/out}"; mkdir -p "$out"
log="$out/oc2.log"; j="$out/oc2.jsonl"
cd .gpu
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt"
export ATOS_CACHE_DIR=/tmp/atos-kernels
t0=$(date +%s)
step() { echo "=== $* (t=$(( $(date +%s) - t0 )) s)" >> "$log"; }
for app in bfs bfs-owner; do
  step $app kron:22
  timeout 150 ./atos bench --app $app --graph kron:22 --devices 1,2 --aggregation eager,1024:20 --worker cta --fetch 64 --partition edges --runs 5 --timeout 30 --quiet --out "$j" >> "$log" 2>&1; echo "rc=$?" >> "$log"
done
for app in bfs bfs-owner; do
  step $app grid:4096
  timeout 100 ./atos bench --app $app --graph grid:4096x4096 --devices 1,2 --aggregation eager --worker cta --fetch 64 --partition vertices --runs 3 --timeout 30 --quiet --out "$j" >> "$log" 2>&1; echo "rc=$?" >> "$log"
done
step done
python3 - "$j" >> "$log" <<'PY'
import json,sys
for l in open(sys.argv[1]):
    r=json.loads(l)
    print(r.get('app'), r.get('graph'), r.get('devices'), r.get('aggregation'), r.get('status'), 'ms', r.get('median_ms'), 'remote_items', r.get('remote_items'), 'remote_bytes', r.get('remote_bytes'), 'device_tasks', r.get('device_tasks'))
PY
tail -c 5000 "$log"
