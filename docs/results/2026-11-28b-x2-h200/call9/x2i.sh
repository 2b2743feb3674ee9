#!/usr/bin/env bash
# Call 9 of 2026-11-28b on nvidia-h200-x2: the committed build (e64bb97's device code) on an
# owner map (luxembourg_osm, random:3 partition: the general placement path beside the
# own-range one), BFS and owner BFS with offers; then one-GPU kron:24 BFS in four separate
# processes (call 1 saw one process at 46 ms and others at 22 ms).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; w=/tmp/x2i; mkdir -p "$out" "$w"; log="$w/x2i.log"
cat .gpu/BUILD.txt > "$log"
t0=$(date +%s)
left() { echo $(( ${BUDGET:-150} - ($(date +%s) - t0) )); }
b() { bin=$1; tag=$2; lim=$3; shift 3; [ "$(left)" -lt 10 ] && { echo "skip $tag" >> "$log"; return; }; [ "$lim" -gt "$(left)" ] && lim=$(left); echo "=== $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; timeout $lim .gpu/$bin bench --timeout 30 --quiet --out "$w/$bin.jsonl" "$@" >> "$log" 2>&1; echo "rc=$? $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; }
.gpu/atos graph convert kron:24 /tmp/k24.acsr > "$w/convert.txt" 2>&1 &
for app in bfs bfs-owner; do
  b atos lux-random-$app 25 --app $app --graph .gpu/data/luxembourg_osm.edges --devices 1,2 --partition random:3 --aggregation eager,64:20 --worker cta,warp --fetch 64 --runs 3 --warmup 1
done
wait
for p in 1 2 3 4; do
  b atos k24-process$p 20 --app bfs --graph /tmp/k24.acsr --devices 1 --worker cta --fetch 64 --runs 3 --warmup 1
done
echo "end t=$(( $(date +%s) - t0 ))" >> "$log"
tar czf "$out/x2i.tgz" -C /tmp x2i; cp "$log" "$out/"
grep -E "^===|rc=[^0]|rror|FAIL|fail|skip|end t|^(k24|luxembourg_osm) +atos" "$log" | cut -c1-120
