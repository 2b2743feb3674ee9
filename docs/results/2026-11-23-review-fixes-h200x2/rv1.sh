#!/usr/bin/env bash
# Review fixes, device check: (1) priority queues with pass_min lowered by far pushes: k-core on
# the 12-vertex graph that made the old threshold skip a level (data/k4k5.edges), on kron:16
# and the meshes, SSSP and priority BFS, every worker kind, persistent/discrete/bsp, verified;
# (2) spread runs after the outbox stamp and poller changes: BFS, PageRank, colouring on 2
# GPUs eager and aggregated, verified.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
out="${OUT:-.gpu/out}"; mkdir -p "$out"
log="$out/rv1.log"
cd .gpu
export ATOS_CACHE_DIR=/tmp/atos-kernels
t0=$(date +%s)
step() { echo "=== $* (t=$(( $(date +%s) - t0 )) s)" >> "$log"; }
nvidia-smi --query-gpu=name,driver_version --format=csv >> "$log"
step kcore
timeout 200 ./atos bench --app kcore --graph data/k4k5.edges --graph kron:16 --graph grid:256x256 --graph data/luxembourg_osm.edges --strategy persistent,discrete,bsp --worker thread,warp,cta --fetch 8 --runs 5 --warmup 1 --timeout 20 --quiet --out "$out/rv1-prio.jsonl" >> "$log" 2>&1; echo "rc=$?" >> "$log"
step sssp and priority bfs
timeout 120 ./atos bench --app sssp-priority --graph grid:256x256,w=100 --graph kron:14,w=1000 --strategy persistent,discrete,bsp --worker warp,cta --runs 3 --warmup 1 --timeout 20 --quiet --out "$out/rv1-prio.jsonl" >> "$log" 2>&1; echo "rc=$?" >> "$log"
timeout 120 ./atos bench --app bfs-priority --graph kron:16 --graph grid:256x256 --delta 1 --strategy persistent,discrete,bsp --worker warp,cta --runs 3 --warmup 1 --timeout 20 --quiet --out "$out/rv1-prio.jsonl" >> "$log" 2>&1; echo "rc=$?" >> "$log"
step spread
for app in bfs pagerank coloring; do
  timeout 150 ./atos bench --app $app --graph kron:16 --graph grid:256x256 --devices 2 --aggregation eager,256:20,4:1 --worker warp,cta --partition random:7 --runs 3 --warmup 1 --timeout 20 --quiet --out "$out/rv1-spread.jsonl" >> "$log" 2>&1; echo "rc=$?" >> "$log"
done
step done
for f in rv1-prio rv1-spread; do echo "$f ok=$(grep -c '"status":"ok"' $out/$f.jsonl) skipped=$(grep -c '"status":"skipped"' $out/$f.jsonl) failed=$(grep -c '"status":"failed"' $out/$f.jsonl)" >> "$log"; done
grep -E "FAILED|WRONG" "$log" | head -20 >> "$log"
tail -c 3000 "$log"
