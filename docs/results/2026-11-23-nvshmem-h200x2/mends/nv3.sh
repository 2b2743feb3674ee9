#!/usr/bin/env bash
# Issue 14 review mends (barrier before reset, a failing rank ends at once, native-atomics check, byte relay): re-check on 2 GPUs.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 NVSHMEM_SYMMETRIC_SIZE=20G
out="${OUT:-.gpu/out}"; mkdir -p "$out"; log="$out/nv3.log"; c="$out/nv3.jsonl"
cd .gpu; export ATOS_CACHE_DIR=/tmp/atos-kernels
nvidia-smi --query-gpu=name,driver_version --format=csv > "$out/device.txt"
timeout 90 ./atos run --np 2 nvshmem-check >> "$log" 2>&1; echo "rc=$?" >> "$log"
timeout 250 ./atos bench --app bfs --graph kron:16 --graph grid:256x256 --graph data/luxembourg_osm.edges --devices 1,2 --transport nvshmem --aggregation eager,256:20 --worker warp,cta --partition random:7 --runs 5 --warmup 1 --timeout 20 --quiet --out "$c" >> "$log" 2>&1; echo "rc=$?" >> "$log"
timeout 200 ./atos bench --app pagerank --graph kron:16 --graph data/luxembourg_osm.edges --devices 2 --transport nvshmem --aggregation eager,256:20 --worker cta --runs 3 --warmup 1 --timeout 20 --quiet --out "$c" >> "$log" 2>&1; echo "rc=$?" >> "$log"
timeout 200 ./atos bench --app bfs --graph kron:22 --devices 1,2 --transport nvshmem --aggregation eager,1024:20 --worker cta --partition edges --runs 5 --timeout 30 --quiet --out "$c" >> "$log" 2>&1; echo "rc=$?" >> "$log"
echo "ok: $(grep -c '"status":"ok"' $c) not ok: $(grep -vc '"status":"ok"' $c)" >> "$log"
cat "$log" | tail -c 6000
