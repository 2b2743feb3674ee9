#!/usr/bin/env bash
# Session 2026-11-24c, H100 call 2 (build 71a4402):
#  (a) kron:24 generation with the new assemble, then BFS and PageRank re-scan on kron:24 (the
#      reference's symmetry check now parallel);
#  (b) what the spread program costs on one device (--spread-one), BFS on grid:4096x4096 and
#      kron:22, two rounds;
#  (c) priority SSSP against FIFO on rome99.gr, luxembourg_osm and delaunay_n16 (--weights 1000),
#      advance slack 0 and 512, delta scales 1, 1/16, 1/64.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt"
t0=$(date +%s); stamp() { echo "$1 after $(( $(date +%s) - t0 )) s" >> "$out/times.txt"; }
bench() { local name=$1; shift; timeout "$@" --out "$out/records.jsonl" > /tmp/b.log 2>&1; echo "rc=$?" >> /tmp/b.log; { echo "== $name"; cat /tmp/b.log; } >> "$out/bench.log"; stamp "$name"; }
/usr/bin/time -v ./atos graph convert kron:24 /tmp/kron24.acsr > "$out/convert.txt" 2>&1; stamp kron24
for g in kron:22 grid:4096x4096; do ./atos graph convert $g /tmp/${g/:/}.acsr >> "$out/convert.txt" 2>&1; done; stamp graphs
bench "bfs kron24" 60 ./atos bench --app bfs --graph /tmp/kron24.acsr --worker cta --fetch 64 --runs 3 --timeout 30 --quiet
bench "pr kron24" 240 ./atos bench --app pagerank-rescan --graph /tmp/kron24.acsr --worker cta --fetch 8 --runs 3 --timeout 30 --quiet
for r in 1 2; do
  bench "spread-one r$r" 90 ./atos bench --app bfs --graph /tmp/grid4096x4096.acsr --graph /tmp/kron22.acsr --spread-one --worker cta --fetch 64 --runs 5 --timeout 30 --quiet
done
S="--worker cta --fetch 8,64 --runs 5 --timeout 20 --quiet --weights 1000 --graph data/rome99.gr --graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges"
bench "fifo" 60 ./atos bench --app sssp $S
for sl in 0 512; do for sc in 1 0.0625 0.015625; do
  bench "prio slack $sl scale $sc" 60 ./atos bench --app sssp-priority $S --advance-slack $sl --delta-scale $sc
done; done
bench "fifo again" 60 ./atos bench --app sssp $S
cat "$out/times.txt"
grep -E "generate|Maximum resident|Elapsed" "$out/convert.txt"
grep -v "^\s*$" "$out/bench.log" | grep -v "^graph " | cut -c1-150
