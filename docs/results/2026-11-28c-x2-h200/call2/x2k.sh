#!/usr/bin/env bash
# Call 2 of 2026-11-28c on nvidia-h200-x2: (1) Spread::locate written out again for element
# reads and lower/raise, deliver_combined through home_of/at (atos, 835cda5 + mesh.cuh) against
# 835cda5 (atos_prev), alternated: grid:4096^2 BFS (1 GPU, --spread-one, 2 GPUs), kron:22 BFS
# 1024:20, kron:22 PageRank re-scan; (2) the hub at the source: kron:22 and kron:24 BFS from
# vertex 0 (degree 162552 / 406439, alone in level 0) and from a low-degree vertex (1917 /
# 869: the hubs fall into level 1 among other vertices), 1 and 2 GPUs; (3) the NVSHMEM-calls
# ranks of gpu_suite --spread-features alone, each line time-stamped (call 1 stopped in
# raise_offers, warp/4 eager, with no line for 150+ s).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; w=/tmp/x2k; mkdir -p "$out" "$w"; log="$w/x2k.log"
cat .gpu/BUILD_prev.txt .gpu/BUILD.txt > "$log"
t0=$(date +%s)
left() { echo $(( ${BUDGET:-400} - ($(date +%s) - t0) )); }
b() { bin=$1; tag=$2; lim=$3; shift 3; [ "$(left)" -lt 10 ] && { echo "skip $tag" >> "$log"; return; }; [ "$lim" -gt "$(left)" ] && lim=$(left); echo "=== $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; timeout $lim .gpu/$bin bench --timeout 30 --quiet --warmup 1 --out "$w/$bin.jsonl" "$@" >> "$log" 2>&1; echo "rc=$? $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; }
.gpu/atos graph convert kron:22 /tmp/k22.acsr > "$w/convert.txt" 2>&1 &
.gpu/atos graph convert grid:4096x4096 /tmp/g4k.acsr >> "$w/convert.txt" 2>&1 &
.gpu/atos graph convert kron:24 /tmp/k24.acsr >> "$w/convert.txt" 2>&1 &
# NVSHMEM calls ranks, time-stamped, in the background while graphs convert and benches run? No:
# they would share the GPUs with the benches. Run them first, alone.
NV=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nvshmem/lib
rv=$(mktemp -d)
for r in 0 1; do
  ( cd .gpu && LD_LIBRARY_PATH="$NV:$LD_LIBRARY_PATH" NVSHMEM_REMOTE_TRANSPORT=none ATOS_NVSHMEM_CALLS=1 \
    ATOS_RANK=$r ATOS_RANKS=2 ATOS_RENDEZVOUS="$rv/uid" ATOS_BOOTSTRAP_TIMEOUT=120 \
    timeout -k 5 150 ./gpu_suite --spread-features 2>&1 | while IFS= read -r l; do echo "$(( $(date +%s) - t0 )) $l"; done > "$w/calls1-r$r.log" ) &
done
wait
echo "nvshmem calls done t=$(( $(date +%s) - t0 )): $(tail -n 1 $w/calls1-r0.log) | $(tail -n 1 $w/calls1-r1.log)" >> "$log"
pkill -f gpu_suite
for round in 1 2; do
  for bin in atos_prev atos; do
    b $bin grid 40 --app bfs --graph /tmp/g4k.acsr --devices 1,2 --spread-one --partition vertices --worker cta --fetch 64 --runs 5
    b $bin bfs-k22 30 --app bfs --graph /tmp/k22.acsr --devices 1,2 --partition edges --aggregation 1024:20 --worker cta --fetch 64 --runs 5
  done
done
for bin in atos_prev atos; do
  b $bin pr-k22 40 --app pagerank-rescan --graph /tmp/k22.acsr --devices 1,2 --partition edges --worker cta --fetch 8 --runs 3
done
for round in 1 2; do
  b atos src0-k22 30 --app bfs --graph /tmp/k22.acsr --devices 1,2 --partition edges --aggregation 1024:20 --worker cta --fetch 64 --runs 5 --source 0
  b atos src1917-k22 30 --app bfs --graph /tmp/k22.acsr --devices 1,2 --partition edges --aggregation 1024:20 --worker cta --fetch 64 --runs 5 --source 1917
  b atos src0-k24 40 --app bfs --graph /tmp/k24.acsr --devices 1,2 --partition edges --aggregation 1024:20 --worker cta --fetch 64 --runs 3 --source 0
  b atos src869-k24 40 --app bfs --graph /tmp/k24.acsr --devices 1,2 --partition edges --aggregation 1024:20 --worker cta --fetch 64 --runs 3 --source 869
done
echo "end t=$(( $(date +%s) - t0 ))" >> "$log"
tar czf "$out/x2k.tgz" -C /tmp x2k; cp "$log" "$out/"
grep -E "^===|rc=[^0]|rror|FAIL|skip|end t|nvshmem calls|^(g4k|k22|k24) +(atos|bfs|pagerank)" "$log" | cut -c1-160
