#!/usr/bin/env bash
# Issue 13: what the spread BFS costs on one device (--spread-one), kron:22 and grid:4096x4096,
# persistent cta/64: ncu metrics of the plain kernel against the spread one in one bench run
# (timed first without ncu).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
cp BUILD.txt "$out/"
nvidia-smi --query-gpu=name,driver_version --format=csv > "$out/device.txt"
NCU=/usr/local/cuda/bin/ncu
./atos graph convert kron:22 /tmp/kron22.acsr > /dev/null 2>&1
./atos graph convert grid:4096x4096 /tmp/grid.acsr > /dev/null 2>&1
B="bench --app bfs --strategy persistent --worker cta --fetch 64 --spread-one"
timeout 100 ./atos $B --graph /tmp/kron22.acsr --graph /tmp/grid.acsr --runs 5 --out "$out/time.jsonl" > "$out/time.log" 2>&1
$NCU --query-metrics --chip gh100 > /tmp/q.txt 2>&1
m="launch__registers_per_thread,launch__occupancy_limit_registers,launch__grid_size"
for w in gpu__time_duration smsp__inst_executed smsp__inst_executed_op_global_atom smsp__inst_executed_op_global_red smsp__inst_executed_op_global_ld smsp__inst_executed_op_global_st smsp__inst_executed_op_local_ld smsp__inst_executed_op_local_st lts__t_sectors_op_atom lts__t_sectors_op_red lts__t_sectors_op_read lts__t_sectors_op_write dram__bytes_read dram__bytes_write sm__cycles_active; do
  grep -q "^$w " /tmp/q.txt && m="$m,$w.sum"
done
for w in smsp__average_warps_issue_stalled_membar_per_issue_active smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active smsp__average_warps_issue_stalled_sleeping_per_issue_active smsp__average_warps_issue_stalled_lg_throttle_per_issue_active smsp__average_warps_issue_stalled_barrier_per_issue_active smsp__average_warps_issue_stalled_wait_per_issue_active smsp__average_warps_issue_stalled_drain_per_issue_active; do
  grep -q "^$w " /tmp/q.txt && m="$m,$w.ratio"
done
m="$m,sm__warps_active.avg.pct_of_peak_sustained_active"
echo "$m" > "$out/metrics.txt"
for g in kron22 grid; do
  timeout 200 $NCU --metrics "$m" -k regex:'persistent' ./atos $B --graph /tmp/$g.acsr --runs 1 --warmup 0 --quiet > "$out/ncu-$g.txt" 2>&1
done
grep -E "spread|persistent" "$out/time.log" | head
for g in kron22 grid; do echo "== $g"; grep -E "atos_|registers|grid_size|duration|inst_executed|stalled|lts__|dram__|warps_active|cycles" "$out/ncu-$g.txt" | head -80; done
