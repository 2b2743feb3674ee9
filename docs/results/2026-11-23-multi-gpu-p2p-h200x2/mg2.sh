#!/usr/bin/env bash
# Issue 13, device call 2: BFS and PageRank on 1 and 2 GPUs, every run verified, CTA fetch 64,
# partitions edges / vertices / random.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
out="${OUT:-.gpu/out}"; mkdir -p "$out"
log="$out/mg2.log"; j="$out/mg2.jsonl"
cd .gpu
export ATOS_CACHE_DIR=/tmp/atos-kernels
t0=$(date +%s)
step() { echo "=== $* (t=$(( $(date +%s) - t0 )) s)" >> "$log"; }
step bfs kron:24
timeout 200 ./atos bench --app bfs --graph kron:24 --devices 1,2 --worker cta --fetch 64 --partition edges --runs 5 --timeout 30 --quiet --out "$j" >> "$log" 2>&1; echo "rc=$?" >> "$log"
step bfs grid:8192 and random
timeout 150 ./atos bench --app bfs --graph grid:8192x8192 --devices 1,2 --worker cta --fetch 64 --partition vertices --runs 3 --timeout 30 --quiet --out "$j" >> "$log" 2>&1; echo "rc=$?" >> "$log"
timeout 60 ./atos bench --app bfs --graph kron:22 --devices 2 --worker cta --fetch 64 --partition random:1 --runs 5 --timeout 30 --quiet --out "$j" >> "$log" 2>&1; echo "rc=$?" >> "$log"
step pagerank
timeout 150 ./atos bench --app pagerank --graph kron:22 --graph data/luxembourg_osm.edges --devices 1,2 --worker cta --fetch 64 --partition edges --runs 3 --timeout 30 --quiet --out "$j" >> "$log" 2>&1; echo "rc=$?" >> "$log"
step done
tail -c 2500 "$log"
