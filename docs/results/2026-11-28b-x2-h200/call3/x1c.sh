#!/usr/bin/env bash
# Call 3 of 2026-11-28b on one H200: what the spread program costs on one device (--spread-one)
# and which part. atos (90db3d3) against two experiment builds of it: atos_sys0 (the spread
# unit at device scope, ATOS_SYSTEM_SCOPE 0: valid on one device only) and atos_nostage (CTA
# groups without the remote stage). Alternated twice; grid:4096^2 and kron:22 BFS, cta/64.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; w=/tmp/x1c; mkdir -p "$out" "$w"; log="$w/x1c.log"
cat .gpu/BUILD.txt .gpu/BUILD_sys0.txt .gpu/BUILD_nostage.txt > "$log"
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv >> "$log"
t0=$(date +%s)
left() { echo $(( ${BUDGET:-300} - ($(date +%s) - t0) )); }
b() { bin=$1; tag=$2; lim=$3; shift 3; [ "$(left)" -lt 15 ] && { echo "skip $tag" >> "$log"; return; }; [ "$lim" -gt "$(left)" ] && lim=$(left); echo "=== $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; timeout $lim .gpu/$bin bench --timeout 30 --quiet --out "$w/$bin.jsonl" "$@" >> "$log" 2>&1; echo "rc=$? $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; }
.gpu/atos graph convert kron:22 /tmp/k22.acsr > "$w/convert.txt" 2>&1 &
.gpu/atos graph convert grid:4096x4096 /tmp/g4k.acsr >> "$w/convert.txt" 2>&1; wait
for round in 1 2; do
  for bin in atos atos_sys0 atos_nostage; do
    b $bin grid 40 --app bfs --graph /tmp/g4k.acsr --devices 1 --spread-one --worker cta --fetch 64 --runs 5 --warmup 1
    b $bin k22 40 --app bfs --graph /tmp/k22.acsr --devices 1 --spread-one --partition edges --worker cta --fetch 64 --runs 5 --warmup 1
  done
done
echo "end t=$(( $(date +%s) - t0 ))" >> "$log"
tar czf "$out/x1c.tgz" -C /tmp x1c; cp "$log" "$out/"
grep -E "^===|^rc=|rror|FAIL|skip|end t|^(g4k|k22) +atos" "$log" | cut -c1-160
