#!/usr/bin/env bash
# Issue 13, device call 4: after the scope split (local rings order at device scope, receive
# rings at system scope). Correctness of BFS / PageRank / colouring on 2 GPUs and spread on one
# (every worker kind), then timings: plain 1 GPU, spread program on 1 GPU (--spread-one), 2 GPUs.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
out="${OUT:-.gpu/out}"; mkdir -p "$out"
log="$out/mg4.log"; j="$out/mg4.jsonl"
cd .gpu
export ATOS_CACHE_DIR=/tmp/atos-kernels
t0=$(date +%s)
step() { echo "=== $* (t=$(( $(date +%s) - t0 )) s)" >> "$log"; }
nvidia-smi --query-gpu=name,driver_version --format=csv >> "$log"
step correctness
for app in bfs pagerank coloring; do
  timeout 120 ./atos bench --app $app --graph kron:16 --graph grid:256x256 --devices 2 --spread-one --worker thread,warp,cta --partition random:3 --runs 2 --warmup 1 --timeout 20 --quiet --out "$out/mg4-correct.jsonl" >> "$log" 2>&1; echo "rc=$?" >> "$log"
done
step bfs kron:22
timeout 120 ./atos bench --app bfs --graph kron:22 --devices 1,2 --spread-one --worker cta --fetch 64 --partition edges --runs 5 --timeout 30 --quiet --out "$j" >> "$log" 2>&1; echo "rc=$?" >> "$log"
step bfs grid:4096
timeout 120 ./atos bench --app bfs --graph grid:4096x4096 --devices 1,2 --spread-one --worker cta --fetch 64 --partition vertices --runs 3 --timeout 30 --quiet --out "$j" >> "$log" 2>&1; echo "rc=$?" >> "$log"
step pagerank kron:22
timeout 150 ./atos bench --app pagerank --graph kron:22 --devices 1,2 --spread-one --worker cta --fetch 64 --partition edges --runs 3 --timeout 30 --quiet --out "$j" >> "$log" 2>&1; echo "rc=$?" >> "$log"
step done
tail -c 6000 "$log"
