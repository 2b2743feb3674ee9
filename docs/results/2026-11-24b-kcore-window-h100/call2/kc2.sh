#!/usr/bin/env bash
# k-core windows: vertices queued 1, 2, 4 or 8 levels ahead (`--kcore-window`, this build)
# against queued at the degree (`atos_base`, 555f4ff), persistent and BSP, CTA workers, on
# kron:16/18/20, grid:4096x4096 and the two meshes; every run checked against bucket peeling.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt"
t0=$(date +%s); stamp() { echo "$1 after $(( $(date +%s) - t0 )) s" >> "$out/times.txt"; }
bench() { local name=$1; shift; timeout "$@" --out "$out/records.jsonl" > /tmp/b.log 2>&1; echo "rc=$?" >> /tmp/b.log; { echo "== $name"; cat /tmp/b.log; } >> "$out/bench.log"; stamp "$name"; }
for g in kron:16 kron:18 kron:20 grid:4096x4096; do ./atos graph convert $g /tmp/${g/:/}.acsr > /dev/null 2>&1; done; stamp graphs
K="--graph /tmp/kron16.acsr --graph /tmp/kron18.acsr --graph /tmp/kron20.acsr"
M="--graph /tmp/grid4096x4096.acsr --graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges"
C="--strategy persistent,bsp --worker cta --fetch 8,64 --runs 3 --timeout 30 --quiet"
bench "base kron" 120 ./atos_base bench --app kcore --graph /tmp/kron16.acsr --graph /tmp/kron18.acsr $C
bench "base meshes" 90 ./atos_base bench --app kcore $M $C
for w in 1 2 4 8; do
  bench "window $w kron" 100 ./atos bench --app kcore $K $C --kcore-window $w
  bench "window $w meshes" 90 ./atos bench --app kcore $M $C --kcore-window $w
done
cat "$out/times.txt"
grep -v "^\s*$" "$out/bench.log" | cut -c1-130
