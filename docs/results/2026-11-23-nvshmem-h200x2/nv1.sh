#!/usr/bin/env bash
# Issue 14: NVSHMEM transport, first GPU runs: check kernel, watchdog, a killed rank, correctness
# of spread BFS / PageRank over NVSHMEM, then timings against P2P and 1 GPU in the same call.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
out="${OUT:-.gpu/out}"; mkdir -p "$out"
log="$out/nv1.log"; j="$out/nv1.jsonl"; c="$out/nv1-correct.jsonl"
cd .gpu
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt"
nvidia-smi topo -m > "$out/topo.txt" 2>&1
export ATOS_CACHE_DIR=/tmp/atos-kernels
t0=$(date +%s)
step() { echo "=== $* (t=$(( $(date +%s) - t0 )) s)" >> "$log"; }
step check
timeout 90 ./atos run --np 2 --bootstrap-timeout 60 nvshmem-check >> "$log" 2>&1; echo "rc=$?" >> "$log"
step watchdog: rank 0 alone of 2
rm -f /tmp/atos-lonely
( time ATOS_RANK=0 ATOS_RANKS=2 ATOS_RENDEZVOUS=/tmp/atos-lonely ATOS_BOOTSTRAP_TIMEOUT=15 timeout 60 ./atos nvshmem-check ) >> "$log" 2>&1; echo "rc=$? (75 = watchdog)" >> "$log"
export NVSHMEM_SYMMETRIC_SIZE=20G
step correctness
for app in bfs bfs-owner; do
  timeout 200 ./atos bench --app $app --graph kron:16 --graph grid:256x256 --graph data/luxembourg_osm.edges --devices 2 --transport nvshmem --aggregation eager,256:20 --worker warp,cta --partition random:5 --runs 3 --warmup 1 --timeout 20 --quiet --out "$c" >> "$log" 2>&1; echo "rc=$?" >> "$log"
done
timeout 150 ./atos bench --app pagerank --graph kron:16 --graph data/luxembourg_osm.edges --devices 2 --transport nvshmem --aggregation eager,256:20 --worker cta --runs 2 --warmup 1 --timeout 20 --quiet --out "$c" >> "$log" 2>&1; echo "rc=$?" >> "$log"
step kill a rank mid-run
( ./atos bench --app bfs --graph kron:18 --devices 2 --transport nvshmem --runs 3000 --warmup 0 --timeout 20 --quiet > "$out/nv1-kill.log" 2>&1; echo "launcher rc=$?" >> "$out/nv1-kill.log" ) &
sleep 25
l=$(pgrep -f "atos bench --app bfs --graph kron:18" | head -1); kids=$(pgrep -P "$l" | tr '\n' ' ')
echo "launcher $l ranks $kids; killing the last" >> "$log"
k0=$(date +%s%N); kill -9 $(echo $kids | awk '{print $NF}'); wait; k1=$(date +%s%N)
echo "all ended $(( (k1-k0)/1000000 )) ms after the kill" >> "$log"; tail -5 "$out/nv1-kill.log" >> "$log"
step bfs kron:22 nvshmem vs p2p vs 1 GPU
timeout 200 ./atos bench --app bfs --graph kron:22 --devices 1,2 --transport nvshmem --aggregation eager,1024:20 --worker cta --fetch 64 --partition edges --runs 5 --timeout 30 --quiet --out "$j" >> "$log" 2>&1; echo "rc=$?" >> "$log"
timeout 200 ./atos bench --app bfs --graph kron:22 --devices 2 --aggregation eager,1024:20 --worker cta --fetch 64 --partition edges --runs 5 --timeout 30 --quiet --out "$j" >> "$log" 2>&1; echo "rc=$?" >> "$log"
step pagerank kron:20
timeout 200 ./atos bench --app pagerank --graph kron:20 --devices 1,2 --transport nvshmem --aggregation eager,1024:20 --worker cta --partition edges --runs 3 --timeout 30 --quiet --out "$j" >> "$log" 2>&1; echo "rc=$?" >> "$log"
timeout 200 ./atos bench --app pagerank --graph kron:20 --devices 2 --aggregation eager,1024:20 --worker cta --partition edges --runs 3 --timeout 30 --quiet --out "$j" >> "$log" 2>&1; echo "rc=$?" >> "$log"
step done
echo "correct ok: $(grep -c '"status":"ok"' $c) not ok: $(grep -vc '"status":"ok"' $c)" >> "$log"
python3 - "$j" >> "$log" <<'PY'
import json,sys
for l in open(sys.argv[1]):
    r=json.loads(l)
    print(r.get('app'), r.get('graph'), r.get('device'), r.get('devices'), r.get('aggregation'), r.get('status'), 'ms', r.get('median_ms'), 'times', r.get('times_ms'), 'remote', r.get('remote_items'), 'ratio', r.get('workload_ratio'), (r.get('error') or '')[:200])
PY
tail -c 9000 "$log"
