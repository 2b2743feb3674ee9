#!/usr/bin/env bash
# Call 1 of 2026-11-28c on nvidia-h200-x2: (1) the landed own-range form (atos, 835cda5: the own
# range tested inside owner_of/local_of) against the form measured in 2026-11-28b call 8
# (atos_prev, e64bb97: Spread::locate written out), alternated: grid:4096^2 BFS (1 GPU,
# --spread-one, 2 GPUs), kron:22 BFS 1024:20, kron:22 PageRank re-scan; (2) occupancy of the
# spread BFS over NVLink: kron:22/24 BFS on 2 GPUs with --min-blocks 0, 6, 8; (3) PART=spread
# gpu-check with 835cda5 (raise_offers, NVSHMEM without the tight capacities, the new failure count).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; w=/tmp/x2j; mkdir -p "$out" "$w"; log="$w/x2j.log"
cat .gpu/BUILD_prev.txt .gpu/BUILD.txt > "$log"
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv > "$w/topo.txt"
nvidia-smi topo -m >> "$w/topo.txt" 2>&1
t0=$(date +%s)
left() { echo $(( ${BUDGET:-520} - ($(date +%s) - t0) )); }
b() { bin=$1; tag=$2; lim=$3; shift 3; [ "$(left)" -lt 10 ] && { echo "skip $tag" >> "$log"; return; }; [ "$lim" -gt "$(left)" ] && lim=$(left); echo "=== $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; timeout $lim .gpu/$bin bench --timeout 30 --quiet --warmup 1 --out "$w/$bin.jsonl" "$@" >> "$log" 2>&1; echo "rc=$? $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; }
.gpu/atos graph convert kron:22 /tmp/k22.acsr > "$w/convert.txt" 2>&1 &
.gpu/atos graph convert grid:4096x4096 /tmp/g4k.acsr >> "$w/convert.txt" 2>&1 &
.gpu/atos graph convert kron:24 /tmp/k24.acsr >> "$w/convert.txt" 2>&1 &
wait
echo "converted t=$(( $(date +%s) - t0 ))" >> "$log"
for round in 1 2; do
  for bin in atos_prev atos; do
    b $bin grid 40 --app bfs --graph /tmp/g4k.acsr --devices 1,2 --spread-one --partition vertices --worker cta --fetch 64 --runs 5
    b $bin bfs-k22 30 --app bfs --graph /tmp/k22.acsr --devices 1,2 --partition edges --aggregation 1024:20 --worker cta --fetch 64 --runs 5
  done
done
for bin in atos_prev atos; do
  b $bin pr-k22 40 --app pagerank-rescan --graph /tmp/k22.acsr --devices 1,2 --partition edges --worker cta --fetch 8 --runs 3
done
for mb in 0 6 8; do
  b atos mb$mb-k22 30 --app bfs --graph /tmp/k22.acsr --devices 2 --partition edges --aggregation 1024:20 --worker cta --fetch 64 --runs 5 --min-blocks $mb
  b atos mb$mb-k24 40 --app bfs --graph /tmp/k24.acsr --devices $([ $mb = 0 ] && echo 1,2 || echo 2) --partition edges --aggregation 1024:20 --worker cta --fetch 64 --runs 3 --min-blocks $mb
done
echo "benches end t=$(( $(date +%s) - t0 ))" >> "$log"
lim=$(left); [ "$lim" -gt 10 ] && { OUT=$w/check PART=spread timeout -k 5 $lim bash scripts/gpu-check.sh > "$w/check.txt" 2>&1; pkill -f gpu_suite; echo "check rc=$? t=$(( $(date +%s) - t0 ))" >> "$log"; }
echo "end t=$(( $(date +%s) - t0 ))" >> "$log"
tar czf "$out/x2j.tgz" -C /tmp x2j; cp "$log" "$out/"
tail -n 12 "$w/check.txt"; grep -E "^===|rc=[^0]|rror|FAIL|skip|end t|converted|check rc|^(g4k|k22|k24) +(atos|bfs|pagerank)" "$log" | cut -c1-200
