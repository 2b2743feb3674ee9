#!/usr/bin/env bash
# First run on 4 GPUs (nvidia-h200-x4): BFS and PageRank (re-scan form) on 1, 2 and 4 GPUs in
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
.gpu/atos graph convert kron:22 /tmp/k22.acsr > "$out/convert.txt" 2>&1 &
.gpu/atos graph convert grid:4096x4096 /tmp/g4k.acsr >> "$out/convert.txt" 2>&1; wait
echo "graphs t=$(( $(date +%s) - t0 ))" >> "$log"
b bfs-kron22 60 --app bfs --graph /tmp/k22.acsr --devices 1,2,4 --partition edges --aggregation eager,1024:20 --worker cta --fetch 64
b pr-kron22 70 --app pagerank-rescan --graph /tmp/k22.acsr --devices 1,2,4 --partition edges --worker cta --fetch 8
b bfs-grid4k 40 --app bfs --graph /tmp/g4k.acsr --devices 1,2,4 --partition vertices --worker cta --fetch 64
[ "$(left)" -gt 50 ] && { .gpu/atos graph convert kron:24 /tmp/k24.acsr >> "$out/convert.txt" 2>&1; echo "kron24 t=$(( $(date +%s) - t0 ))" >> "$log"; }
[ -f /tmp/k24.acsr ] && b bfs-kron24 60 --app bfs --graph /tmp/k24.acsr --devices 1,2,4 --partition edges --aggregation 1024:20 --worker cta --fetch 64
echo "end t=$(( $(date +%s) - t0 ))" >> "$log"
head -12 "$out/topo.txt"; grep -E "^===|^rc=|rror|skip|end t|graphs t|kron24 t|x|speed-up" "$log" | cut -c1-200
