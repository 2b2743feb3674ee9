#!/usr/bin/env bash
# Call 4 of 2026-11-28d on nvidia-h200-x4, build 0d0619b (.gpu/atos): the register budget of
# spread units that share (blocks per SM: 4 = 64 registers, 5 = the default's 48, 6 = 40,
# 8 = 32) on kron:22 and kron:24 BFS over 1, 2 and 4 GPUs, with the spread program on one device
# (--spread-one) beside them. --min-blocks bounds the one-device unit too: its row is the
# default's only at the default. Every run verified.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; w=/tmp/x4d; mkdir -p "$out" "$w"; log="$w/x4d.log"
cat .gpu/BUILD.txt > "$log"; nvidia-smi -L >> "$log"
t0=$(date +%s)
left() { echo $(( ${BUDGET:-200} - ($(date +%s) - t0) )); }
b() { bin=$1; tag=$2; lim=$3; shift 3; [ "$(left)" -lt 10 ] && { echo "skip $tag" >> "$log"; return; }; [ "$lim" -gt "$(left)" ] && lim=$(left); echo "=== $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; timeout $lim .gpu/$bin bench --timeout 30 --warmup 1 --out "$w/$bin.jsonl" "$@" >> "$log" 2>&1; echo "rc=$? $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; }
.gpu/atos graph convert kron:22 /tmp/k22.acsr > "$w/convert.txt" 2>&1 &
.gpu/atos graph convert kron:24 /tmp/k24.acsr >> "$w/convert.txt" 2>&1 &
wait
for mb in 5 4 6 8; do
  b atos k22-mb$mb 40 --app bfs --graph /tmp/k22.acsr --devices 1,2,4 --spread-one --partition edges --aggregation 4096:50 --worker cta --fetch 64 --runs 5 --min-blocks $mb
done
for mb in 5 4 6; do
  b atos k24-mb$mb 60 --app bfs --graph /tmp/k24.acsr --devices 1,2,4 --partition edges --aggregation 4096:50 --worker cta --fetch 64 --runs 3 --min-blocks $mb
done
echo "end t=$(( $(date +%s) - t0 ))" >> "$log"
tar czf "$out/x4d.tgz" -C /tmp x4d; cp "$log" "$out/"
grep -E "^===|rc=[^0]|rror|FAIL|fail|skip|end t|^(k22|k24) +atos" "$log" | cut -c1-120
