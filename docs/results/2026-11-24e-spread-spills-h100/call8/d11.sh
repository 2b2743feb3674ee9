#!/usr/bin/env bash
# Issue 13: where the spread BFS kernel's local-memory traffic comes from (one device,
# --spread-one, grid:4096x4096, persistent cta/64): ncu's per-instruction SASS counters.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
NCU=/usr/local/cuda/bin/ncu
./atos graph convert grid:4096x4096 /tmp/grid.acsr > /dev/null 2>&1
./atos graph convert kron:22 /tmp/kron22.acsr > /dev/null 2>&1
for g in grid kron22; do
timeout 250 $NCU --section SourceCounters --page source --print-source sass --csv -k regex:persistent --launch-skip 1 -c 1 \
  ./atos bench --app bfs --strategy persistent --worker cta --fetch 64 --spread-one --graph /tmp/$g.acsr --runs 1 --warmup 0 --quiet > /tmp/src-$g.csv 2> "$out/ncu-$g.err"
gzip -c /tmp/src-$g.csv > "$out/src-$g.csv.gz"
done
ls -la "$out"; head -5 /tmp/src-grid.csv | cut -c1-400
