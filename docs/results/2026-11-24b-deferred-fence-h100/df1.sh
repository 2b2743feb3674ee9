#!/usr/bin/env bash
# Deferred fences (CTA groups fence once per batch for a fence followed only by pushes):
# gpu_suite on the new build, then colouring A/B (atos_base = 555f4ff, atos = this change),
# alternated twice, persistent and BSP, on the same graph files.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt"
t0=$(date +%s); stamp() { echo "$1 after $(( $(date +%s) - t0 )) s" >> "$out/times.txt"; }
./atos graph convert kron:22 /tmp/kron22.acsr > /dev/null 2>&1
./atos graph convert grid:4096x4096 /tmp/grid.acsr > /dev/null 2>&1
ls -la /tmp/*.acsr >> "$out/times.txt"; stamp graphs
timeout 170 ./gpu_suite --data data --runs 1 --stress 40 --program-stress 120 --flag-tasks 100000 --graph kron:18 > "$out/suite.log" 2>&1
echo "rc=$?" >> "$out/suite.log"; stamp suite
for round in 1 2; do
  for bin in atos_base atos; do
    timeout 120 ./$bin bench --app coloring --graph /tmp/kron22.acsr --strategy persistent,bsp \
      --worker cta --fetch 8,64 --block 256 --runs 5 --timeout 30 --quiet \
      --out "$out/coloring.jsonl" > /tmp/b.log 2>&1; echo "rc=$?" >> /tmp/b.log; { echo "== kron $bin r$round"; cat /tmp/b.log; } >> "$out/bench.log"
    timeout 120 ./$bin bench --app coloring --graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges \
      --graph /tmp/grid.acsr --strategy persistent,bsp --worker cta --fetch 16,64 --block 128 --runs 5 --timeout 30 --quiet \
      --out "$out/coloring.jsonl" > /tmp/b.log 2>&1; echo "rc=$?" >> /tmp/b.log; { echo "== mesh $bin r$round"; cat /tmp/b.log; } >> "$out/bench.log"
    stamp "$bin r$round"
  done
done
cat "$out/times.txt"; tail -n 3 "$out/suite.log"
grep -v "^\s*$" "$out/bench.log" | cut -c1-150
