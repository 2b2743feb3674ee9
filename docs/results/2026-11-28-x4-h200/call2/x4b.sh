#!/usr/bin/env bash
# Second call on 4 GPUs: kron:24 PageRank and eager BFS, grid:8192x8192 BFS, NVSHMEM on 4.
# the same bench runs, peer-to-peer, every run verified against the CPU reference. The session
# had 418 s of device time left, so this is one call with its own time limit (BUDGET seconds):
# kron:22 and grid:4096x4096 first (comparable with the 2-GPU rounds of 2026-11-23/24), then
# kron:24 BFS while time is left. Run from the repository root with .gpu/ carried.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"; log="$out/x4.log"
cat .gpu/BUILD.txt > "$log"
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv > "$out/topo.txt"
nvidia-smi topo -m >> "$out/topo.txt" 2>&1; nvidia-smi topo -p2p r >> "$out/topo.txt" 2>&1
t0=$(date +%s)
left() { echo $(( ${BUDGET:-190} - ($(date +%s) - t0) )); }
b() { tag=$1; lim=$2; shift 2; [ "$(left)" -lt 15 ] && { echo "skip $tag" >> "$log"; return; }; [ "$lim" -gt "$(left)" ] && lim=$(left); echo "=== $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; timeout $lim .gpu/atos bench --timeout 30 --quiet --warmup 1 --runs 3 --out "$out/records.jsonl" "$@" >> "$log" 2>&1; echo "rc=$? $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; }
.gpu/atos graph convert kron:24 /tmp/k24.acsr > "$out/convert.txt" 2>&1 &
.gpu/atos graph convert grid:8192x8192 /tmp/g8k.acsr >> "$out/convert.txt" 2>&1; wait
echo "graphs t=$(( $(date +%s) - t0 ))" >> "$log"
b pr-kron24 70 --app pagerank-rescan --graph /tmp/k24.acsr --devices 1,2,4 --partition edges --worker cta --fetch 8
b bfs-grid8k 40 --app bfs --graph /tmp/g8k.acsr --devices 1,2,4 --partition vertices --worker cta --fetch 64
b bfs-kron24-eager 40 --app bfs --graph /tmp/k24.acsr --devices 2,4 --partition edges --aggregation eager --worker cta --fetch 64
NVL=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nvshmem/lib
LD_LIBRARY_PATH="$NVL:$LD_LIBRARY_PATH" b bfs-kron24-nvshmem4 40 --app bfs --graph /tmp/k24.acsr --devices 4 --transport nvshmem --partition edges --aggregation 1024:20 --worker cta --fetch 64
echo "end t=$(( $(date +%s) - t0 ))" >> "$log"
grep -vE "^commit|^changes|^atos --" "$log" | cut -c1-200
