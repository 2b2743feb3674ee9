#!/usr/bin/env bash
# Call 7 of 2026-11-28b on one H200: Nsight Compute on BFS over kron:18 with 4 blocks (few
# groups, no crowd polling): the one-device kernel (launch 2) against the spread program on one
# device (--spread-one, launch 4): warp states and instruction counts.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; w=/tmp/x1g; mkdir -p "$out" "$w"; log="$w/x1g.log"
cat .gpu/BUILD.txt > "$log"
.gpu/atos graph convert kron:18 /tmp/k18.acsr > "$w/convert.txt" 2>&1
run=(.gpu/atos bench --app bfs --graph /tmp/k18.acsr --devices 1 --spread-one --partition edges --grid 4 --worker cta --fetch 64 --runs 1 --warmup 1 --timeout 120 --quiet)
for skip in 1 3; do
  echo "=== launch-skip $skip" >> "$log"
  timeout 200 ncu --launch-skip $skip --launch-count 1 --section WarpStateStats --section InstructionStats --section SchedulerStats --section LaunchStats "${run[@]}" >> "$log" 2>&1
  echo "rc=$?" >> "$log"
done
cp "$log" "$out/"
grep -vE "^\s*$" "$log" | grep -E "===|rc=|Stall|stall|Instructions|Warp Cycles|Issued|Executed|Registers|Grid Size|Function|atos_|==PROF==|rror" | cut -c1-150 | head -120
