#!/usr/bin/env bash
# Issue 13, filter copies (lower/raise): correctness and stress of BFS (and owner BFS) on 2 GPUs,
# eager and aggregated, then timings against 1 GPU in the same process.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
out="${OUT:-.gpu/out}"; mkdir -p "$out"
log="$out/fc1.log"; j="$out/fc1.jsonl"
cd .gpu
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt"
nvidia-smi topo -m > "$out/topo.txt" 2>&1
export ATOS_CACHE_DIR=/tmp/atos-kernels
t0=$(date +%s)
step() { echo "=== $* (t=$(( $(date +%s) - t0 )) s)" >> "$log"; }
step correctness
for app in bfs bfs-owner; do
  timeout 150 ./atos bench --app $app --graph kron:16 --graph grid:256x256 --graph data/luxembourg_osm.edges --devices 2 --aggregation eager,256:20 --worker warp,cta --partition random:5 --runs 3 --warmup 1 --timeout 20 --quiet --out "$out/fc1-correct.jsonl" >> "$log" 2>&1; echo "rc=$?" >> "$log"
done
timeout 100 ./atos bench --app bfs --graph kron:14 --graph grid:128x128 --devices 2 --aggregation eager --worker thread --partition edges --runs 3 --warmup 1 --timeout 20 --quiet --out "$out/fc1-correct.jsonl" >> "$log" 2>&1; echo "rc=$?" >> "$log"
step stress
for s in 1 2 3; do
  timeout 100 ./atos bench --app bfs --graph kron:14,seed=$s --graph grid:128x128 --devices 2 --aggregation eager,$((s*40)):$s --worker warp,cta --partition random:$s --runs 10 --warmup 0 --timeout 10 --quiet --out "$out/fc1-stress.jsonl" >> "$log" 2>&1; echo "rc=$?" >> "$log"
done
step bfs kron:22
timeout 150 ./atos bench --app bfs --graph kron:22 --devices 1,2 --spread-one --aggregation eager,1024:20 --worker cta --fetch 64 --partition edges --runs 5 --timeout 30 --quiet --out "$j" >> "$log" 2>&1; echo "rc=$?" >> "$log"
step bfs kron:24
timeout 150 ./atos bench --app bfs --graph kron:24 --devices 1,2 --aggregation eager,1024:20 --worker cta --fetch 64 --partition edges --runs 3 --timeout 30 --quiet --out "$j" >> "$log" 2>&1; echo "rc=$?" >> "$log"
step bfs grid:4096
timeout 120 ./atos bench --app bfs --graph grid:4096x4096 --devices 1,2 --aggregation eager --worker cta --fetch 64 --partition vertices --runs 3 --timeout 30 --quiet --out "$j" >> "$log" 2>&1; echo "rc=$?" >> "$log"
step done
echo "ok: $(cat $out/fc1-correct.jsonl $out/fc1-stress.jsonl | grep -c '"status":"ok"') not ok: $(cat $out/fc1-correct.jsonl $out/fc1-stress.jsonl | grep -vc '"status":"ok"')" >> "$log"
python3 - "$j" >> "$log" <<'PY'
import json,sys
for l in open(sys.argv[1]):
    r=json.loads(l)
    print(r.get('app'), r.get('graph'), r.get('devices'), r.get('spread_one'), r.get('aggregation'), r.get('status'), 'ms', r.get('median_ms'), 'remote_items', r.get('remote_items'), 'ratio', r.get('workload_ratio'))
PY
tail -c 5000 "$log"
