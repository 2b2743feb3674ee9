#!/usr/bin/env bash
# Call 1 of 2026-11-28b on nvidia-h200-x2: (1) PART=spread gpu-check with this build (the GPU
# remote-count check and --timeline sampling, never run on a GPU before); (2) the idle loop's
# end check: atos_prev (dfaad6d: every idle group reads device 0's status word each pass)
# against atos (block 0's leader per device judges the end, the others read a local word),
# alternated, on grid:4096^2 BFS, kron:22 BFS and PageRank, kron:24 BFS, 1 and 2 GPUs.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; w=/tmp/x2a; mkdir -p "$out" "$w"; log="$w/x2a.log"
cat .gpu/BUILD_prev.txt .gpu/BUILD.txt > "$log"
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv > "$w/topo.txt"
nvidia-smi topo -m >> "$w/topo.txt" 2>&1; nvidia-smi topo -p2p r >> "$w/topo.txt" 2>&1
t0=$(date +%s)
left() { echo $(( ${BUDGET:-400} - ($(date +%s) - t0) )); }
b() { bin=$1; tag=$2; lim=$3; shift 3; [ "$(left)" -lt 15 ] && { echo "skip $tag" >> "$log"; return; }; [ "$lim" -gt "$(left)" ] && lim=$(left); echo "=== $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; timeout $lim .gpu/$bin bench --timeout 30 --quiet --warmup 1 --out "$w/$bin.jsonl" "$@" >> "$log" 2>&1; echo "rc=$? $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; }
.gpu/atos graph convert kron:22 /tmp/k22.acsr > "$w/convert.txt" 2>&1 &
.gpu/atos graph convert grid:4096x4096 /tmp/g4k.acsr >> "$w/convert.txt" 2>&1 &
.gpu/atos graph convert kron:24 /tmp/k24.acsr >> "$w/convert.txt" 2>&1 &
OUT=$w/check PART=spread timeout 200 bash scripts/gpu-check.sh > "$w/check.txt" 2>&1; echo "check rc=$? t=$(( $(date +%s) - t0 ))" >> "$log"
wait
for round in 1 2; do
  for bin in atos_prev atos; do
    b $bin grid4k 40 --app bfs --graph /tmp/g4k.acsr --devices 1,2 --partition vertices --worker cta --fetch 64 --runs 5
    b $bin bfs-k22 40 --app bfs --graph /tmp/k22.acsr --devices 1,2 --partition edges --aggregation eager,1024:20 --worker cta --fetch 64 --runs 5
  done
done
for bin in atos_prev atos; do
  b $bin pr-k22 60 --app pagerank-rescan --graph /tmp/k22.acsr --devices 1,2 --partition edges --worker cta --fetch 8 --runs 3
  b $bin bfs-k24 50 --app bfs --graph /tmp/k24.acsr --devices 1,2 --partition edges --aggregation 1024:20 --worker cta --fetch 64 --runs 3
done
b atos timeline 60 --app bfs --graph /tmp/k24.acsr --devices 1,2 --partition edges --aggregation 1024:20 --worker cta --fetch 64 --runs 1 --timeline
b atos timeline-grid 40 --app bfs --graph /tmp/g4k.acsr --devices 1,2 --partition vertices --worker cta --fetch 64 --runs 1 --timeline
echo "end t=$(( $(date +%s) - t0 ))" >> "$log"
tar czf "$out/x2a.tgz" -C /tmp x2a; cp "$log" "$out/"
tail -n 30 "$w/check.txt"; grep -E "^===|^rc=|rror|FAIL|skip|end t|check rc|speed-up| 2 " "$log" | cut -c1-220
