#!/usr/bin/env bash
# Issue 13, device call 7: owner-computes BFS and PageRank (inline tasks). Correctness of both
# on 1 and 2 GPUs (every worker, eager and aggregated, random partitions), then timings on
# kron:22, kron:24 and grids against the plain programs on 1 GPU, in the same call.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
out="${OUT:-.gpu/out}"; mkdir -p "$out"
log="$out/oc1.log"; j="$out/oc1.jsonl"
cd .gpu
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt"
nvidia-smi topo -m > "$out/topo.txt" 2>&1
export ATOS_CACHE_DIR=/tmp/atos-kernels
t0=$(date +%s)
step() { echo "=== $* (t=$(( $(date +%s) - t0 )) s)" >> "$log"; }
step correctness
for app in bfs-owner pagerank-owner; do
  timeout 100 ./atos bench --app $app --graph kron:16 --graph grid:256x256 --graph data/luxembourg_osm.edges --devices 1,2 --aggregation eager,256:20 --worker warp,cta --partition random:5 --runs 3 --warmup 1 --timeout 20 --quiet --out "$out/oc1-correct.jsonl" >> "$log" 2>&1; echo "rc=$?" >> "$log"
done
timeout 60 ./atos bench --app bfs-owner --graph kron:14 --graph grid:128x128 --devices 1,2 --worker thread --runs 3 --warmup 0 --timeout 10 --quiet --out "$out/oc1-correct.jsonl" >> "$log" 2>&1; echo "rc=$?" >> "$log"
for s in 1 2 3; do
  timeout 60 ./atos bench --app bfs-owner --graph kron:14,seed=$s --graph grid:128x128 --devices 2 --aggregation eager,$((s*40)):$s --worker warp,cta --partition random:$s --runs 10 --warmup 0 --timeout 10 --quiet --out "$out/oc1-stress.jsonl" >> "$log" 2>&1; echo "rc=$?" >> "$log"
done
step kron:22 bfs
timeout 120 ./atos bench --app bfs --graph kron:22 --devices 1 --worker cta --fetch 64 --runs 5 --timeout 30 --quiet --out "$j" >> "$log" 2>&1; echo "rc=$?" >> "$log"
timeout 150 ./atos bench --app bfs-owner --graph kron:22 --devices 1,2 --aggregation eager,1024:20 --worker cta --fetch 64 --partition edges --runs 5 --timeout 30 --quiet --out "$j" >> "$log" 2>&1; echo "rc=$?" >> "$log"
step kron:22 pagerank
timeout 150 ./atos bench --app pagerank --graph kron:22 --devices 1 --worker cta --fetch 64 --runs 3 --timeout 30 --quiet --out "$j" >> "$log" 2>&1; echo "rc=$?" >> "$log"
timeout 150 ./atos bench --app pagerank-owner --graph kron:22 --devices 1,2 --aggregation eager,1024:20 --worker cta --fetch 64 --partition edges --runs 3 --timeout 30 --quiet --out "$j" >> "$log" 2>&1; echo "rc=$?" >> "$log"
step grid:4096 bfs
timeout 100 ./atos bench --app bfs --graph grid:4096x4096 --devices 1 --worker cta --fetch 64 --runs 3 --timeout 30 --quiet --out "$j" >> "$log" 2>&1; echo "rc=$?" >> "$log"
timeout 120 ./atos bench --app bfs-owner --graph grid:4096x4096 --devices 1,2 --aggregation eager --worker cta --fetch 64 --partition vertices --runs 3 --timeout 30 --quiet --out "$j" >> "$log" 2>&1; echo "rc=$?" >> "$log"
step done
echo "ok: $(cat $out/oc1-correct.jsonl $out/oc1-stress.jsonl | grep -c '"status":"ok"') not ok: $(cat $out/oc1-correct.jsonl $out/oc1-stress.jsonl | grep -vc '"status":"ok"')" >> "$log"
tail -c 5000 "$log"
