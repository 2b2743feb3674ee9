#!/usr/bin/env bash
# Overhead of spreading as the device count grows, with the links taken out: 1, 2 and 4 devices
# sharing one GPU (each on 1/k of its SMs, so the GPU's compute is the same in every row).
# Every run verified.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
log=/tmp/sc.log
cd .gpu
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/device.txt"
b() { timeout 200 ./atos_sweep bench --timeout 30 --quiet --share-gpus --out /tmp/sc.jsonl "$@" >> "$log" 2>&1; echo "rc=$? $*" | cut -c1-60; }
b --app bfs --graph kron:22 --devices 1,2,4 --spread-one --aggregation eager,1024:20 --worker cta --fetch 64 --partition edges --runs 5
b --app bfs --graph grid:4096x4096 --devices 1,2,4 --spread-one --aggregation eager --worker cta --fetch 64 --partition vertices --runs 3
b --app bfs --graph data/luxembourg_osm.edges --devices 1,2,4 --spread-one --aggregation eager --worker cta --fetch 64 --partition vertices --runs 5
b --app pagerank-rescan --graph kron:20 --devices 1,2,4 --spread-one --aggregation eager --worker cta --fetch 8 --partition edges --runs 3
python3 - <<'PY'
import json
for l in open('/tmp/sc.jsonl'):
    r=json.loads(l)
    print(r['app'], r['graph'][-16:], r['devices'], r['aggregation'], r['status'], 'ms %.2f' % r['median_ms'], 'ratio %.2f' % r['workload_ratio'], 'sent', r.get('remote_items'), 'ops', r.get('device_remote_ops'), 'grid', r['grid'][0])
PY
cp /tmp/sc.jsonl /tmp/sc.log "$out/"
