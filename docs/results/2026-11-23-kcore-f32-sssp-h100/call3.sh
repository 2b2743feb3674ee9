#!/usr/bin/env bash
# Issue 12, call 3: k-core with the core bound (cap) on the GPU, each configuration in its own process (a timeout leaves
# the context unusable): correctness on the meshes and small Kronecker graphs, then times.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt"
t0=$(date +%s)
export ATOS_CACHE_DIR=/tmp/atos-kernels
log="$out/kcore.log"
one() { # graph strategy worker fetch timeout runs
  timeout $(( $5 + 15 )) ./atos bench --app kcore --graph "$1" --strategy "$2" --worker "$3" --fetch "$4" --runs "$6" \
    --timeout "$5" --quiet --out "$out/kcore.jsonl" 2>&1 | grep -v "^graph " | cut -c1-170 >> "$log"
  echo "[$(( $(date +%s) - t0 )) s]" >> "$log"
}
for g in data/luxembourg_osm.edges data/delaunay_n16.edges grid:256x256; do
  timeout 60 ./atos bench --app kcore --graph $g --strategy persistent,discrete,bsp --worker thread,warp,cta --fetch 8,64 --runs 1 \
    --timeout 10 --quiet --out "$out/kcore.jsonl" 2>&1 | grep -v "^graph " | cut -c1-170 >> "$log"
done
echo "[meshes checked $(( $(date +%s) - t0 )) s]" >> "$log"
for g in kron:10 kron:12 kron:14; do for w in cta warp; do one $g persistent $w 64 20 1; done; one $g bsp cta 64 20 1; one $g discrete cta 64 20 1; done
one kron:10 persistent thread 64 20 1
for g in grid:4096x4096 data/luxembourg_osm.edges data/delaunay_n16.edges; do
  one $g persistent,bsp cta 8,64 20 3
done
one kron:16 persistent,bsp cta 8,64 40 3
one kron:18 persistent cta 64 60 1
one kron:18 bsp cta 64 60 1
cat "$log"
