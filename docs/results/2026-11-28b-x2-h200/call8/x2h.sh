#!/usr/bin/env bash
# Call 8 of 2026-11-28b on nvidia-h200-x2: the own-range fast path of spread units (atos, 90db3d3
# plus the mesh.cuh change) against 90db3d3 (atos_prev), alternated: spread features checked on
# both GPUs, BFS on grid:4096^2 (1 GPU, --spread-one, 2 GPUs), kron:22 BFS and owner BFS,
# PageRank re-scan, luxembourg_osm on a random owner map; Nsight Compute's instruction count for
# the spread unit on one device (kron:18, 4 blocks; 68.8 M before).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; w=/tmp/x2h; mkdir -p "$out" "$w"; log="$w/x2h.log"
cat .gpu/BUILD_prev.txt .gpu/BUILD.txt > "$log"
t0=$(date +%s)
left() { echo $(( ${BUDGET:-230} - ($(date +%s) - t0) )); }
b() { bin=$1; tag=$2; lim=$3; shift 3; [ "$(left)" -lt 10 ] && { echo "skip $tag" >> "$log"; return; }; [ "$lim" -gt "$(left)" ] && lim=$(left); echo "=== $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; timeout $lim .gpu/$bin bench --timeout 30 --quiet --out "$w/$bin.jsonl" "$@" >> "$log" 2>&1; echo "rc=$? $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; }
.gpu/atos graph convert kron:22 /tmp/k22.acsr > "$w/convert.txt" 2>&1 &
.gpu/atos graph convert grid:4096x4096 /tmp/g4k.acsr >> "$w/convert.txt" 2>&1 &
.gpu/atos graph convert kron:18 /tmp/k18.acsr >> "$w/convert.txt" 2>&1 &
(cd .gpu && timeout 100 ./gpu_suite --spread-features > "$w/spread-p2p.log" 2>&1; echo "rc=$?" >> "$w/spread-p2p.log")
echo "spread-features: $(tail -n 2 "$w/spread-p2p.log" | tr '\n' ' ')" >> "$log"
wait
timeout 60 ncu --launch-skip 3 --launch-count 1 --section InstructionStats --section WarpStateStats .gpu/atos bench --app bfs --graph /tmp/k18.acsr --devices 1 --spread-one --partition edges --grid 4 --worker cta --fetch 64 --runs 1 --warmup 1 --timeout 120 --quiet > "$w/ncu.log" 2>&1
grep -E "Executed Instructions|Registers|Warp Cycles Per Issued" "$w/ncu.log" >> "$log"
for round in 1 2; do
  for bin in atos_prev atos; do
    b $bin grid 40 --app bfs --graph /tmp/g4k.acsr --devices 1,2 --spread-one --partition vertices --worker cta --fetch 64 --runs 5 --warmup 1
    b $bin bfs-k22 30 --app bfs --graph /tmp/k22.acsr --devices 1,2 --partition edges --aggregation 1024:20 --worker cta --fetch 64 --runs 5 --warmup 1
  done
done
for bin in atos_prev atos; do
  b $bin owner-k22 30 --app bfs-owner --graph /tmp/k22.acsr --devices 2 --partition edges --aggregation 1024:20 --worker cta --fetch 64 --runs 5 --warmup 1
  b $bin pr-k22 40 --app pagerank-rescan --graph /tmp/k22.acsr --devices 1,2 --partition edges --worker cta --fetch 8 --runs 3 --warmup 1
done
b atos lux-random 30 --app bfs --graph .gpu/data/luxembourg_osm.edges --devices 1,2 --partition random:3 --aggregation eager,64:20 --worker cta,warp --fetch 64 --runs 3 --warmup 1
echo "end t=$(( $(date +%s) - t0 ))" >> "$log"
tar czf "$out/x2h.tgz" -C /tmp x2h; cp "$log" "$out/"
grep -E "^===|rc=[^0]|rror|FAIL|fail|skip|end t|spread-features|Executed|Registers|Warp Cycles|^(g4k|k22|lux\S*) +atos" "$log" | cut -c1-120
