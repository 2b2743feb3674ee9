#!/usr/bin/env bash
# Issue 13, device call 5: aggregation (outboxes forwarded at a batch size or a wait time)
# against eager remote pushes. Correctness of BFS / PageRank / colouring on 2 GPUs both ways
# (every worker kind), a stress loop of aggregated runs, then timings on 1 GPU, 2 GPUs eager
# and 2 GPUs aggregated, same process per table.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
out="${OUT:-.gpu/out}"; mkdir -p "$out"
log="$out/mg5.log"; j="$out/mg5.jsonl"
cd .gpu
export ATOS_CACHE_DIR=/tmp/atos-kernels
t0=$(date +%s)
step() { echo "=== $* (t=$(( $(date +%s) - t0 )) s)" >> "$log"; }
nvidia-smi --query-gpu=name,driver_version --format=csv >> "$log"
step correctness
for app in bfs pagerank coloring; do
  timeout 150 ./atos bench --app $app --graph kron:16 --graph grid:256x256 --graph data/luxembourg_osm.edges --devices 2 --aggregation eager,256:20,1:0 --worker thread,warp,cta --partition random:3 --runs 2 --warmup 1 --timeout 20 --quiet --out "$out/mg5-correct.jsonl" >> "$log" 2>&1; echo "rc=$?" >> "$log"
done
step stress
for s in 1 2 3 4 5; do
  timeout 100 ./atos bench --app bfs --graph kron:14,seed=$s --graph grid:128x128 --devices 2 --aggregation $((s*40)):$s --worker warp,cta --partition random:$s --runs 10 --warmup 0 --timeout 10 --quiet --out "$out/mg5-stress.jsonl" >> "$log" 2>&1; echo "rc=$?" >> "$log"
done
step bfs kron:22
timeout 150 ./atos bench --app bfs --graph kron:22 --devices 1,2 --aggregation eager,1024:20,256:5 --worker cta --fetch 64 --partition edges --runs 5 --timeout 30 --quiet --out "$j" >> "$log" 2>&1; echo "rc=$?" >> "$log"
step bfs grid:4096
timeout 150 ./atos bench --app bfs --graph grid:4096x4096 --devices 1,2 --aggregation eager,1024:20,256:5 --worker cta --fetch 64 --partition vertices --runs 3 --timeout 30 --quiet --out "$j" >> "$log" 2>&1; echo "rc=$?" >> "$log"
step pagerank kron:22
timeout 200 ./atos bench --app pagerank --graph kron:22 --devices 1,2 --aggregation eager,1024:20 --worker cta --fetch 64 --partition edges --runs 3 --timeout 30 --quiet --out "$j" >> "$log" 2>&1; echo "rc=$?" >> "$log"
step bfs kron:24
timeout 200 ./atos bench --app bfs --graph kron:24 --devices 1,2 --aggregation eager,1024:20 --worker cta --fetch 64 --partition edges --runs 3 --timeout 30 --quiet --out "$j" >> "$log" 2>&1; echo "rc=$?" >> "$log"
step done
grep -c '"status":"ok"' "$out/mg5-correct.jsonl" "$out/mg5-stress.jsonl" >> "$log"
grep -vc '"status":"ok"' "$out/mg5-correct.jsonl" "$out/mg5-stress.jsonl" >> "$log"
tail -c 7000 "$log"
