#!/usr/bin/env bash
# Issue 11, session 2, call 2: PageRank with balanced vertex tasks, both push forms, against the
# original pr binaries on grid and kron:22 in the same bench runs; ncu DRAM bytes of the best
# re-scan form on kron:22.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt"
t0=$(date +%s)
stamp() { echo "$1 done after $(( $(date +%s) - t0 )) s" >> "$out/times.txt"; }
[ -x orig/bin/pr ] || bash atos-original.sh build orig > "$out/original-build.log" 2>&1
stamp build
export ATOS_CACHE_DIR=/tmp/atos-kernels
O="--compare-original orig --original-idle pr=1600 --original-idle pr_cta_256=750 --original-runs 2"
timeout 200 ./atos bench --app pagerank-rescan --graph grid:4096x4096 --epsilon 0.01 \
  --strategy persistent,discrete --worker thread,warp,cta --fetch 8,64 --runs 3 --timeout 30 --quiet $O \
  --out "$out/pr.jsonl" >> "$out/pr.log" 2>&1; echo "rc=$?" >> "$out/pr.log"; stamp rescan-grid
timeout 170 ./atos bench --app pagerank-rescan --graph kron:22 --epsilon 0.01 \
  --strategy persistent,discrete --worker warp,cta --fetch 8,64 --runs 3 --timeout 45 --quiet $O \
  --out "$out/pr.jsonl" >> "$out/pr.log" 2>&1; echo "rc=$?" >> "$out/pr.log"; stamp rescan-kron
timeout 100 ./atos bench --app pagerank --graph grid:4096x4096 --graph kron:22 --epsilon 0.01 \
  --strategy persistent,discrete --worker warp,cta --fetch 8,64 --runs 3 --timeout 30 --quiet \
  --out "$out/pr.jsonl" >> "$out/pr.log" 2>&1; echo "rc=$?" >> "$out/pr.log"; stamp push-both
left=$(( 575 - ($(date +%s) - t0) ))
if [ $left -gt 40 ]; then
  timeout $left /usr/local/cuda/bin/ncu --metrics dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum \
    --csv ./atos bench --app pagerank-rescan --graph kron:22 --epsilon 0.01 --strategy persistent --worker cta --fetch 64 \
    --runs 1 --warmup 0 --quiet > "$out/ncu-rescan-kron.csv" 2> "$out/ncu.err"
  echo "rc=$?" >> "$out/ncu.err"; stamp ncu
fi
cat "$out/pr.log" "$out/times.txt"; tail -5 "$out/ncu-rescan-kron.csv"
