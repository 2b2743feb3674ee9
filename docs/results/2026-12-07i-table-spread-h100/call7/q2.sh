#!/usr/bin/env bash
# 2026-12-07 session 18 call 7 (issue 11, docs/results/2026-12-07i-table-spread-h100.md): the
# memory throughput of the fastest asynchronous PageRank on kron:22 at 88c5233 (re-scan,
# persistent cta/8, epsilon 0.01) by ncu: Speed of Light memory throughput (the busiest memory
# unit's share of its peak), DRAM, L2 and L1 throughput, bytes; the bench run before it times
# and verifies the same configuration. As 2026-11-25b's d5.sh, with the SOL metrics added.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cp .gpu/BUILD.txt "$out/build.txt"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.memory,clocks.max.sm --format=csv > "$out/device.txt"
[ -f /tmp/k22.acsr ] || .gpu/atos graph convert kron:22 /tmp/k22.acsr > "$out/convert.txt" 2>&1
C="--app pagerank-rescan --graph /tmp/k22.acsr --epsilon 0.01 --strategy persistent --worker cta --fetch 8"
timeout 100 .gpu/atos bench $C --runs 5 --timeout 30 --out "$out/records.jsonl" > "$out/bench.log" 2>&1; echo "rc=$?" >> "$out/bench.log"
M=gpu__time_duration.sum,gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_bytes.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed
timeout 200 /usr/local/cuda/bin/ncu --metrics $M --csv .gpu/atos bench $C --runs 1 --warmup 0 --timeout 60 --quiet --out "$out/ncu-records.jsonl" > "$out/ncu.csv" 2> "$out/ncu.err"
echo "rc=$?" >> "$out/ncu.err"
tail -4 "$out/bench.log"; tail -3 "$out/ncu.err"; grep -v "^==PROF==" "$out/ncu.csv" | cut -c1-300 | tail -14
