#!/usr/bin/env bash
# Issue 11: where PageRank's L2 traffic goes on kron:22 (ncu metrics by operation), against
# one edge-parallel atomic sweep (atomics.cu).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
NCU=/usr/local/cuda/bin/ncu
[ -f /tmp/kron.acsr ] || ./atos graph convert kron:22 /tmp/kron.acsr > /dev/null 2>&1
[ -x /tmp/atomics ] || /usr/local/cuda/bin/nvcc -O3 -arch=sm_90 -std=c++17 atomics.cu -o /tmp/atomics
$NCU --query-metrics --chip gh100 > /tmp/q.txt 2>&1
want="gpu__time_duration lts__t_sectors lts__t_sectors_op_read lts__t_sectors_op_write lts__t_sectors_op_atom lts__t_sectors_op_red lts__t_requests_srcunit_tex_op_atom lts__t_requests_srcunit_tex_op_red smsp__inst_executed_op_global_atom smsp__inst_executed_op_global_red smsp__inst_executed_op_global_ld smsp__inst_executed_op_local_ld smsp__inst_executed_op_local_st lts__t_sectors_srcunit_tex_op_read lts__t_sectors_srcunit_tex_aperture_device_op_read sm__cycles_active lts__throughput smsp__inst_executed"
m=""; for w in $want; do grep -q "^$w " /tmp/q.txt && m="$m,$w.sum"; done
m="${m#,},lts__t_sectors.max,lts__t_sectors.avg,lts__throughput.avg.pct_of_peak_sustained_elapsed"
m="${m/lts__throughput.sum,/}"
echo "metrics: $m" > "$out/metrics.txt"
timeout 100 $NCU --metrics "$m" -k regex:'^sweep' -c 2 /tmp/atomics /tmp/kron.acsr > "$out/ncu-sweep.txt" 2>&1
timeout 150 $NCU --metrics "$m" ./atos bench --app pagerank-rescan --graph /tmp/kron.acsr --worker cta --fetch 8 --runs 1 --warmup 0 --quiet > "$out/ncu-pr.txt" 2>&1
timeout 150 $NCU --metrics "$m" ./atos bench --app coloring --graph /tmp/kron.acsr --worker cta --fetch 64 --runs 1 --warmup 0 --quiet > "$out/ncu-gc.txt" 2>&1
grep -v "^==PROF" "$out/ncu-pr.txt" | tail -40
