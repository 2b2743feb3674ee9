#!/usr/bin/env bash
# Issue 13, device call 1: topology and peer access, correctness of spread BFS / PageRank /
# colouring on 1 and 2 GPUs (every worker kind, three partitions), a termination stress of
# 500+ verified runs, and first timings.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
out="${OUT:-.gpu/out}"; mkdir -p "$out"
log="$out/mg1.log"; j="$out/mg1.jsonl"
cd .gpu
export ATOS_CACHE_DIR=/tmp/atos-kernels
t0=$(date +%s)
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; nvidia-smi topo -m; nvidia-smi topo -p2p rw; nvidia-smi topo -p2p a; } > "$out/topo.txt" 2>&1
S="--graph grid:256x256 --graph kron:16 --graph data/luxembourg_osm.edges"
step() { echo "=== $* (t=$(( $(date +%s) - t0 )) s)" >> "$log"; }
step check bfs
timeout 150 ./atos bench --app bfs $S --devices 1,2 --worker thread,warp,cta --fetch 8,64 --partition vertices --runs 1 --timeout 20 --quiet --out "$j" >> "$log" 2>&1; echo "rc=$?" >> "$log"
timeout 100 ./atos bench --app bfs $S --devices 2 --worker warp,cta --fetch 64 --partition random:1 --runs 1 --timeout 20 --quiet --out "$j" >> "$log" 2>&1; echo "rc=$?" >> "$log"
step check pagerank coloring
for app in pagerank coloring; do
  timeout 100 ./atos bench --app $app $S --devices 1,2 --worker warp,cta --fetch 64 --partition edges --runs 1 --timeout 20 --quiet --out "$j" >> "$log" 2>&1; echo "rc=$?" >> "$log"
done
step stress
for p in vertices edges random:7; do
  for app in bfs pagerank; do
    timeout 100 ./atos bench --app $app --graph kron:12 --graph grid:64x64 --devices 2 --worker warp,cta --fetch 8 --partition $p --runs 22 --warmup 0 --timeout 10 --quiet --out "$out/stress.jsonl" >> "$log" 2>&1; echo "rc=$?" >> "$log"
  done
done
step timing bfs
timeout 200 ./atos bench --app bfs --graph kron:22 --graph data/luxembourg_osm.edges --graph grid:4096x4096 --devices 1,2 --worker cta --fetch 64 --partition edges --runs 5 --timeout 30 --quiet --out "$j" >> "$log" 2>&1; echo "rc=$?" >> "$log"
step done
tail -c 3000 "$log"
