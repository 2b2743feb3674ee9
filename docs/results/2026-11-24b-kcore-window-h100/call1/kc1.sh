#!/usr/bin/env bash
# k-core queued one level ahead (this change, `atos`) against queued at the degree
# (`atos_base`, 555f4ff): correctness on every strategy and worker on the small graphs (new
# build), then persistent and BSP CTA on kron:16/18/20, grid:4096x4096 and the meshes, both builds
# in turn on the same graph files.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt"
t0=$(date +%s); stamp() { echo "$1 after $(( $(date +%s) - t0 )) s" >> "$out/times.txt"; }
bench() { local name=$1; shift; timeout "$@" --out "$out/records.jsonl" > /tmp/b.log 2>&1; echo "rc=$?" >> /tmp/b.log; { echo "== $name"; cat /tmp/b.log; } >> "$out/bench.log"; stamp "$name"; }
for g in kron:16 kron:18 kron:20 grid:4096x4096; do ./atos graph convert $g /tmp/${g/:/}.acsr > /dev/null 2>&1; done; stamp graphs
bench check-new 120 ./atos bench --app kcore --graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges --graph grid:256x256 \
  --graph kron:12 --strategy persistent,discrete,bsp --worker thread,warp,cta --fetch 8,64 --runs 1 --timeout 10 --quiet
for bin in atos_base atos; do
  bench "$bin kron:16-18" 150 ./$bin bench --app kcore --graph /tmp/kron16.acsr --graph /tmp/kron18.acsr \
    --strategy persistent,bsp --worker cta --fetch 8,64 --runs 3 --timeout 40 --quiet
  bench "$bin meshes" 90 ./$bin bench --app kcore --graph /tmp/grid4096x4096.acsr --graph data/luxembourg_osm.edges \
    --graph data/delaunay_n16.edges --strategy persistent,bsp --worker cta --fetch 8,64 --runs 3 --timeout 20 --quiet
done
bench "atos kron:20" 90 ./atos bench --app kcore --graph /tmp/kron20.acsr --strategy persistent,bsp --worker cta --fetch 64 \
  --runs 3 --timeout 30 --quiet
cat "$out/times.txt"
grep -v "^\s*$" "$out/bench.log" | cut -c1-170
