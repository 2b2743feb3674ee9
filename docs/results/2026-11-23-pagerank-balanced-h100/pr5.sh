#!/usr/bin/env bash
# Issue 11, session 2, call 1: PageRank pushes from the task (pagerank) vs left to the re-scan
# (pagerank-rescan), coalesced idle windows, on grid and kron:22.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt"
t0=$(date +%s)
stamp() { echo "$1 done after $(( $(date +%s) - t0 )) s" >> "$out/times.txt"; }
export ATOS_CACHE_DIR=/tmp/atos-kernels
for app in pagerank-rescan pagerank; do
timeout 170 ./atos bench --app $app --graph grid:4096x4096 --epsilon 0.01 \
  --strategy persistent,discrete --worker thread,warp,cta --fetch 8,64 --runs 3 --timeout 30 --quiet \
  --out "$out/pr.jsonl" >> "$out/pr.log" 2>&1; echo "rc=$?" >> "$out/pr.log"; stamp $app-grid
timeout 100 ./atos bench --app $app --graph kron:22 --epsilon 0.01 \
  --strategy persistent,discrete --worker warp,cta --fetch 8,64 --runs 3 --timeout 30 --quiet \
  --out "$out/pr.jsonl" >> "$out/pr.log" 2>&1; echo "rc=$?" >> "$out/pr.log"; stamp $app-kron
done
cat "$out/pr.log" "$out/times.txt"
