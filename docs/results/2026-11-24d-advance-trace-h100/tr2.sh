#!/usr/bin/env bash
# The advance trace again, with the pass hand-off (throwaway trace build).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=off
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
C="--worker cta --fetch 8,64 --runs 2 --timeout 20"
for g in data/luxembourg_osm.edges data/rome99.gr grid:1024x1024; do
  echo "== bfs-priority $g" >> "$out/trace.log"
  timeout 120 ./atos_trace bench --app bfs-priority --graph $g $C --out "$out/records.jsonl" >> "$out/trace.log" 2>&1
done
echo "== sssp-priority lux slack 0 delta/16" >> "$out/trace.log"
timeout 120 ./atos_trace bench --app sssp-priority --graph data/luxembourg_osm.edges --weights 1000 --advance-slack 0 --delta-scale 0.0625 $C --out "$out/records.jsonl" >> "$out/trace.log" 2>&1
grep -E "^==|TRACE mean|ms" "$out/trace.log" | head -80
