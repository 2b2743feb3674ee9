#!/usr/bin/env bash
# Issue 12, this session's call 1: k-core (GPU correctness of every variant, times on the five
# graphs, against BSP peeling), f32-weight SSSP (correctness, times FIFO vs priority vs BSP),
# u32 priority SSSP under the discrete strategy at the default delta. Every run verified.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt"
t0=$(date +%s)
stamp() { echo "$1 done after $(( $(date +%s) - t0 )) s" >> "$out/times.txt"; }
export ATOS_CACHE_DIR=/tmp/atos-kernels
B="--runs 3 --timeout 30 --quiet"
# k-core: every variant on small graphs
timeout 90 ./atos bench --app kcore --graph grid:256x256 --graph kron:14 --graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges \
  --strategy persistent,discrete,bsp --worker thread,warp,cta --fetch 8,64 --runs 1 --timeout 20 --quiet \
  --out "$out/kcore-check.jsonl" > "$out/kcore-check.log" 2>&1; echo "rc=$?" >> "$out/kcore-check.log"; stamp kcore-check
# k-core: times
timeout 120 ./atos bench --app kcore --graph grid:4096x4096 --graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges --graph kron:16 \
  --strategy persistent,bsp --worker warp,cta --fetch 8,64 $B --out "$out/kcore.jsonl" > "$out/kcore.log" 2>&1; echo "rc=$?" >> "$out/kcore.log"; stamp kcore
timeout 60 ./atos bench --app kcore --graph kron:18 --strategy persistent,bsp --worker cta --fetch 64 --runs 1 --warmup 0 --timeout 25 --quiet \
  --out "$out/kcore.jsonl" > "$out/kcore-kron18.log" 2>&1; echo "rc=$?" >> "$out/kcore-kron18.log"; stamp kcore-kron18
# f32 SSSP: every variant small, then times
timeout 60 ./atos bench --app sssp-priority --float-weights --graph grid:256x256,w=100 --graph kron:16,w=1000 --graph data/delaunay_n16.edges --weights 1000 \
  --strategy persistent,discrete,bsp --worker thread,warp,cta --fetch 8,64 --runs 1 --timeout 20 --quiet \
  --out "$out/f32-check.jsonl" > "$out/f32-check.log" 2>&1; echo "rc=$?" >> "$out/f32-check.log"; stamp f32-check
M="--graph grid:4096x4096,w=100 --graph kron:22,w=1000 --graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges --weights 1000"
timeout 100 ./atos bench --app sssp-priority --float-weights $M --strategy persistent,bsp --worker cta --fetch 8,64 $B \
  --out "$out/f32.jsonl" > "$out/f32-prio.log" 2>&1; echo "rc=$?" >> "$out/f32-prio.log"; stamp f32-prio
timeout 90 ./atos bench --app sssp --float-weights $M --strategy persistent --worker cta --fetch 8,64 $B \
  --out "$out/f32.jsonl" > "$out/f32-fifo.log" 2>&1; echo "rc=$?" >> "$out/f32-fifo.log"; stamp f32-fifo
# u32 priority SSSP, discrete, default delta (with persistent beside it, same call)
timeout 90 ./atos bench --app sssp-priority $M --strategy persistent,discrete --worker cta --fetch 8,64 $B \
  --out "$out/discrete.jsonl" > "$out/discrete.log" 2>&1; echo "rc=$?" >> "$out/discrete.log"; stamp discrete
cat "$out/times.txt"; for f in "$out"/*.log; do echo "== $f"; grep -v " ok$" "$f" | cut -c1-160 | head -12; done
