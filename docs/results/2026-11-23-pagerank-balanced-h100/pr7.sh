#!/usr/bin/env bash
# Issue 11, session 2, call 3 (kron:22): PageRank re-scan form with the original pr binaries,
# the push form, colouring (with its fence) with the original gc_32, and BSP PageRank.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt"
t0=$(date +%s)
stamp() { echo "$1 done after $(( $(date +%s) - t0 )) s" >> "$out/times.txt"; }
left() { echo $(( 580 - ($(date +%s) - t0) )); }
[ -x orig/bin/pr ] || bash atos-original.sh build orig > "$out/original-build.log" 2>&1
stamp build
export ATOS_CACHE_DIR=/tmp/atos-kernels
K="--graph kron:22 --epsilon 0.01"
timeout 260 ./atos bench --app pagerank-rescan $K --strategy persistent,discrete --worker cta --fetch 8,64 \
  --runs 3 --timeout 45 --compare-original orig --original-idle pr=1600 --original-idle pr_cta_256=750 --original-runs 2 \
  --out "$out/kron.jsonl" > "$out/pagerank-rescan-kron.log" 2>&1; echo "rc=$?" >> "$out/pagerank-rescan-kron.log"; stamp rescan
timeout 90 ./atos bench --app pagerank $K --strategy persistent,discrete --worker warp,cta --fetch 8,64 \
  --runs 3 --timeout 30 --out "$out/kron.jsonl" > "$out/pagerank-kron.log" 2>&1; echo "rc=$?" >> "$out/pagerank-kron.log"; stamp push
timeout $(( $(left) - 70 )) ./atos bench --app coloring --graph kron:22 --strategy persistent,discrete,bsp \
  --worker warp,cta --fetch 8,64 --runs 3 --timeout 30 --compare-original orig \
  --original-idle gc_32_warp=5000 --original-idle gc_32_cta=150 --original-runs 3 \
  --out "$out/kron.jsonl" > "$out/coloring-kron.log" 2>&1; echo "rc=$?" >> "$out/coloring-kron.log"; stamp coloring
timeout $(left) ./atos bench --app pagerank-bsp $K --strategy bsp --worker cta --fetch 8,64 --runs 2 --timeout 30 \
  --out "$out/kron.jsonl" > "$out/pagerank-bsp-kron.log" 2>&1; echo "rc=$?" >> "$out/pagerank-bsp-kron.log"; stamp bsp
cat "$out/times.txt"; tail -n 12 "$out"/*.log
