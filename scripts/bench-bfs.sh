#!/usr/bin/env bash
# The BFS table of docs/results/2026-11-22-bench-bfs-h100.md, on the GPU machine, from the
# repository root with .gpu/ carried (see docs/bench.md):
#   .gpu/atos              release `atos` CLI (scripts/gpu-bundle.sh builds it and checks it)
#   .gpu/orig/             the original Atos, prepared by ../shared/baselines/atos-original.sh
#   .gpu/atos-original.sh  that script (builds .gpu/orig here with nvcc)
#   .gpu/data/             luxembourg_osm.edges (from ../shared/data)
# Writes bfs.jsonl, bench.log and plots/ under $OUT (default .gpu/out).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
out="${OUT:-.gpu/out}"
mkdir -p "$out"
cd .gpu
nvidia-smi --query-gpu=name,driver_version --format=csv > "$out/device.txt"
[ -x orig/bin/bfs_cta_64 ] || bash atos-original.sh build orig > "$out/original-build.log" 2>&1
export ATOS_CACHE_DIR=/tmp/atos-bench-kernels
timeout "${BENCH_TIMEOUT:-480}" ./atos bench --app bfs \
  --graph grid:4096x4096 --graph kron:22 --graph data/luxembourg_osm.edges \
  --strategy persistent,discrete,bsp --worker warp,cta --fetch 8,64,256 \
  --runs "${RUNS:-3}" --timeline --compare-original orig \
  --out "$out/bfs.jsonl" --plots "$out/plots" > "$out/bench.log" 2>&1
echo "rc=$?" >> "$out/bench.log"
# Kernel cache: the same small configuration in two fresh processes over an empty cache folder:
# the first compiles with NVRTC, the second loads the CUBIN from disk (compile_ms, compile_origin).
rm -rf /tmp/atos-cache-probe
for i in 1 2; do
  ATOS_CACHE_DIR=/tmp/atos-cache-probe ./atos bench --app bfs --graph grid:1024x1024 --strategy persistent,bsp \
    --worker cta --fetch 64 --runs 1 --quiet --out "$out/cache-probe.jsonl" > /dev/null 2>&1
done
# Few files come back from the device machine: the plots travel as one archive.
tar -C "$out" -cf "$out/plots.tar" plots && rm -rf "$out/plots"
tail -3 "$out/bench.log"
