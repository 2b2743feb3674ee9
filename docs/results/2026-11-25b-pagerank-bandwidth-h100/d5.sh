#!/usr/bin/env bash
# 2026-11-25, second session, call 5 (issue 11): achieved memory bandwidth of the fastest
# asynchronous PageRank on kron:22 (re-scan, persistent cta/8, epsilon 0.01), measured by ncu:
# DRAM bytes and L2 traffic (atomics and reductions at L2 counted apart), each as bytes and as a
# share of the H100's peak; the bench run before it times and verifies the same configuration.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
cp BUILD.txt "$out/build.txt"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.memory,clocks.max.sm --format=csv > "$out/device.txt"
./atos graph convert kron:22 /tmp/kron22.acsr > "$out/convert.txt" 2>&1
C="--app pagerank-rescan --graph /tmp/kron22.acsr --epsilon 0.01 --strategy persistent --worker cta --fetch 8"
timeout 120 ./atos bench $C --runs 5 --timeout 30 --out "$out/records.jsonl" > "$out/bench.log" 2>&1; echo "rc=$?" >> "$out/bench.log"
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_bytes.sum,lts__t_sectors_op_atom.sum,lts__t_sectors_op_red.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct,sm__throughput.avg.pct_of_peak_sustained_elapsed
timeout 300 /usr/local/cuda/bin/ncu --metrics $M --csv ./atos bench $C --runs 1 --warmup 0 --timeout 60 --quiet --out "$out/ncu-records.jsonl" > "$out/ncu.csv" 2> "$out/ncu.err"
echo "rc=$?" >> "$out/ncu.err"
tail -5 "$out/bench.log"; tail -3 "$out/ncu.err"; grep -v "^==PROF==" "$out/ncu.csv" | cut -c1-400 | tail -20
