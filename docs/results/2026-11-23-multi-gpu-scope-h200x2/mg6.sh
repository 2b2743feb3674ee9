#!/usr/bin/env bash
# Issue 13, device call 6: one termination poller per device (block 0's first group reads the
# peers' counters; the other idle groups read a local word). Correctness and stress of BFS and
# colouring on 2 GPUs (eager and aggregated), then timings against 1 GPU in the same process.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
out="${OUT:-.gpu/out}"; mkdir -p "$out"
log="$out/mg6.log"; j="$out/mg6.jsonl"
cd .gpu
export ATOS_CACHE_DIR=/tmp/atos-kernels
t0=$(date +%s)
step() { echo "=== $* (t=$(( $(date +%s) - t0 )) s)" >> "$log"; }
step correctness and stress
for app in bfs coloring pagerank; do
  timeout 150 ./atos bench --app $app --graph kron:16 --graph grid:256x256 --graph data/luxembourg_osm.edges --devices 2 --aggregation eager,256:20 --worker thread,warp,cta --partition random:5 --runs 3 --warmup 1 --timeout 20 --quiet --out "$out/mg6-correct.jsonl" >> "$log" 2>&1; echo "rc=$?" >> "$log"
done
for s in 1 2 3; do
  timeout 100 ./atos bench --app bfs --graph kron:14,seed=$s --graph grid:128x128 --devices 2 --aggregation eager,$((s*40)):$s --worker warp,cta --partition random:$s --runs 10 --warmup 0 --timeout 10 --quiet --out "$out/mg6-stress.jsonl" >> "$log" 2>&1; echo "rc=$?" >> "$log"
done
step bfs kron:22
timeout 150 ./atos bench --app bfs --graph kron:22 --devices 1,2 --spread-one --aggregation eager,1024:20 --worker cta --fetch 64 --partition edges --runs 5 --timeout 30 --quiet --out "$j" >> "$log" 2>&1; echo "rc=$?" >> "$log"
step bfs grid:4096
timeout 150 ./atos bench --app bfs --graph grid:4096x4096 --devices 1,2 --spread-one --aggregation eager,1024:20 --worker cta --fetch 64 --partition vertices --runs 3 --timeout 30 --quiet --out "$j" >> "$log" 2>&1; echo "rc=$?" >> "$log"
step bfs grid:8192
timeout 200 ./atos bench --app bfs --graph grid:8192x8192 --devices 1,2 --aggregation eager,1024:20 --worker cta --fetch 64 --partition vertices --runs 3 --timeout 30 --quiet --out "$j" >> "$log" 2>&1; echo "rc=$?" >> "$log"
step done
echo "ok: $(cat $out/mg6-correct.jsonl $out/mg6-stress.jsonl | grep -c '"status":"ok"') not ok: $(cat $out/mg6-correct.jsonl $out/mg6-stress.jsonl | grep -vc '"status":"ok"')" >> "$log"
tail -c 3500 "$log"
