#!/usr/bin/env bash
# Call 5 of 2026-11-28d on nvidia-h200-x4, build 0d0619b (.gpu/atos): where a spread kron BFS
# run's time goes, and why its medians vary between runs (one-GPU runs vary 3%, 2-GPU kron:22
# runs 2.1-3.8 ms): --timeline samples of each device's items taken, repeated in separate
# bench processes, kron:22 on 2 and 4 GPUs, kron:24 on 2 and 4. Every run verified.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; w=/tmp/x4e; mkdir -p "$out" "$w"; log="$w/x4e.log"
cat .gpu/BUILD.txt > "$log"; nvidia-smi -L >> "$log"
t0=$(date +%s)
left() { echo $(( ${BUDGET:-200} - ($(date +%s) - t0) )); }
b() { bin=$1; tag=$2; lim=$3; shift 3; [ "$(left)" -lt 10 ] && { echo "skip $tag" >> "$log"; return; }; [ "$lim" -gt "$(left)" ] && lim=$(left); echo "=== $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; timeout $lim .gpu/$bin bench --timeout 30 --warmup 1 --out "$w/$bin.jsonl" "$@" >> "$log" 2>&1; echo "rc=$? $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; }
.gpu/atos graph convert kron:22 /tmp/k22.acsr > "$w/convert.txt" 2>&1 &
.gpu/atos graph convert kron:24 /tmp/k24.acsr >> "$w/convert.txt" 2>&1 &
wait
for r in 1 2 3 4; do
  b atos k22-tl$r 30 --app bfs --graph /tmp/k22.acsr --devices 2,4 --partition edges --aggregation 4096:50 --worker cta --fetch 64 --runs 5 --timeline
done
b atos k22-1 30 --app bfs --graph /tmp/k22.acsr --devices 1 --worker cta --fetch 64 --runs 5 --timeline
for r in 1 2; do
  b atos k24-tl$r 60 --app bfs --graph /tmp/k24.acsr --devices 1,2,4 --partition edges --aggregation 4096:50 --worker cta --fetch 64 --runs 3 --timeline
done
echo "end t=$(( $(date +%s) - t0 ))" >> "$log"
tar czf "$out/x4e.tgz" -C /tmp x4e; cp "$log" "$out/"
grep -E "^===|rc=[^0]|rror|FAIL|fail|skip|end t|^(k22|k24) +bfs +p2p.*persistent cta/64 +[0-9]" "$log" | cut -c1-200
