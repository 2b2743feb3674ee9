#!/usr/bin/env bash
# Session 2026-11-24c, H100 call 1:
#  (a) the sweep that delivers combined adds first: gpu_suite --spread-features on 2 devices sharing
#      the GPU (combining forced on), then PageRank re-scan on 2 shared devices with --combine on,
#      this build (atos) alternated with e7f9548 (atos_prev), kron:20 and kron:22;
#  (b) k-core with the in-task window clamp (0ceebe8) on a GPU: windows 1, 8, 1000000;
#  (c) SSSP on rome99.gr (DIMACS challenge 9 road graph, whole): FIFO, priority, BSP;
#  (d) scale check for the 2-GPU runs: kron:24 and grid:8192x8192, BFS and PageRank re-scan, 1 GPU.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt"
t0=$(date +%s); stamp() { echo "$1 after $(( $(date +%s) - t0 )) s" >> "$out/times.txt"; }
bench() { local name=$1; shift; timeout "$@" --out "$out/records.jsonl" > /tmp/b.log 2>&1; echo "rc=$?" >> /tmp/b.log; { echo "== $name"; cat /tmp/b.log; } >> "$out/bench.log"; stamp "$name"; }
timeout 150 ./gpu_suite --spread-features --spread-devices 2 > "$out/suite.log" 2>&1; echo "rc=$?" >> "$out/suite.log"; stamp suite
for g in kron:20 kron:22; do ./atos graph convert $g /tmp/${g/:/}.acsr > /dev/null 2>&1; done; stamp graphs
P="--app pagerank-rescan --devices 2 --share-gpus --combine on --worker cta --fetch 8 --runs 3 --timeout 30 --quiet"
for r in 1 2; do
  bench "prev r$r" 60 ./atos_prev bench $P --graph /tmp/kron20.acsr --graph /tmp/kron22.acsr
  bench "new r$r" 60 ./atos bench $P --graph /tmp/kron20.acsr --graph /tmp/kron22.acsr
done
for w in 1 8 1000000; do
  bench "kcore w$w" 60 ./atos bench --app kcore --graph kron:16 --graph data/delaunay_n16.edges --strategy persistent --worker cta --fetch 8 --runs 3 --timeout 30 --quiet --kcore-window $w
done
R="--graph data/rome99.gr --worker cta,warp --fetch 8,64 --runs 5 --timeout 20 --quiet"
bench "rome99 fifo" 40 ./atos bench --app sssp $R
for s in 1 0.25 0.0625; do bench "rome99 prio $s" 40 ./atos bench --app sssp-priority $R --delta-scale $s; done
bench "rome99 bsp" 40 ./atos bench --app sssp-priority --strategy bsp $R
./atos graph convert kron:24 /tmp/kron24.acsr > "$out/convert.txt" 2>&1; stamp kron24
./atos graph convert grid:8192x8192 /tmp/grid8192.acsr >> "$out/convert.txt" 2>&1; stamp grid8192
bench "bfs big" 150 ./atos bench --app bfs --graph /tmp/kron24.acsr --graph /tmp/grid8192.acsr --worker cta --fetch 64 --runs 3 --timeout 30 --quiet
bench "pr big" 200 ./atos bench --app pagerank-rescan --graph /tmp/kron24.acsr --worker cta --fetch 8 --runs 3 --timeout 30 --quiet
cat "$out/times.txt"
tail -n 8 "$out/suite.log"
grep -v "^\s*$" "$out/bench.log" | grep -v "^graph " | cut -c1-150
