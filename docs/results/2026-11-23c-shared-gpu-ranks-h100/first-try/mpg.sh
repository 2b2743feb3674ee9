#!/usr/bin/env bash
# Can two NVSHMEM ranks share one GPU (multiple processes per GPU, no MPS)? nvshmem-check and a
# 2-rank BFS over NVSHMEM, both ranks on GPU 0, started by hand as the multi-node recipe does.
set -uo pipefail
NV=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nvshmem/lib
export LD_LIBRARY_PATH=$NV:/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 NVSHMEM_REMOTE_TRANSPORT=none ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"; cd .gpu
nvidia-smi -q | grep -i -E 'compute mode|MPS' | head -5
two() {  # name, then the atos command both ranks run
  local name=$1; shift
  rm -rf /tmp/rv; mkdir -p /tmp/rv
  for r in 0 1; do
    ATOS_RANK=$r ATOS_RANKS=2 ATOS_RENDEZVOUS=/tmp/rv/uid ATOS_BOOTSTRAP_TIMEOUT=25 \
      timeout 90 ./atos "$@" > "$out/$name-r$r.log" 2>&1 &
  done
  wait; echo "== $name"; tail -n 12 "$out/$name-r0.log"; echo "-- rank 1"; tail -n 6 "$out/$name-r1.log"
}
two check nvshmem-check
two bfs bench --app bfs --graph data/luxembourg_osm.edges --devices 2 --transport nvshmem --worker cta --fetch 64 --runs 2 --warmup 1
two pr bench --app pagerank --graph data/delaunay_n16.edges --devices 2 --transport nvshmem --worker cta --fetch 64 --runs 2 --warmup 1
