#!/usr/bin/env bash
# 2026-11-29 call 4 (one H100): shared chunks for balanced tasks whose loop reduces nothing
# (k-core's peel): .gpu/atos against .gpu/atos_nosh (8603c16, peel balanced but not sharing) on
# Kronecker graphs (the bench shares there; on grids and road graphs share_for keeps it off);
# gpu_suite --dsl-only with the tail-after-a-shared-chunk check. Every atos run verified.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; w=/tmp/c4; mkdir -p "$out" "$w"; log="$w/c4.log"
cat .gpu/BUILD_nosh.txt .gpu/BUILD.txt > "$log"; nvidia-smi -L >> "$log"
t0=$(date +%s)
left() { echo $(( ${BUDGET:-400} - ($(date +%s) - t0) )); }
b() { bin=$1; tag=$2; lim=$3; shift 3; [ "$(left)" -lt 10 ] && { echo "skip $tag" >> "$log"; return; }; [ "$lim" -gt "$(left)" ] && lim=$(left); echo "=== $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; timeout $lim .gpu/$bin bench --timeout 30 --warmup 1 --out "$w/$bin.jsonl" "$@" >> "$log" 2>&1; echo "rc=$? $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; }
.gpu/atos graph convert kron:20 /tmp/k20.acsr > "$w/convert.txt" 2>&1 &
.gpu/atos graph convert kron:22 /tmp/k22.acsr >> "$w/convert.txt" 2>&1 &
(cd .gpu && timeout 150 ./gpu_suite --dsl-only > "$w/dsl.log" 2>&1; echo "rc=$?" >> "$w/dsl.log")
wait
echo "prepared t=$(( $(date +%s) - t0 ))" >> "$log"
for r in 1 2; do for bin in atos_nosh atos; do
  b $bin kron-$r 60 --app kcore --graph kron:16 --graph kron:18 --graph /tmp/k20.acsr --graph /tmp/k22.acsr --strategy persistent --worker cta --fetch 8,64 --runs 3
done; done
for bin in atos_nosh atos; do
  b $bin lux 30 --app kcore --graph .gpu/data/luxembourg_osm.edges --graph .gpu/data/delaunay_n16.edges --strategy persistent --worker cta --fetch 8,64 --runs 3
done
echo "end t=$(( $(date +%s) - t0 ))" >> "$log"
cp "$w/dsl.log" "$out/"; tar czf "$out/c4.tgz" -C /tmp c4; cp "$log" "$out/"
grep -E "^===|rc=[^0]|rror|WRONG|skip|end t|prepared|^(k22|k20|kron-\S+|luxembourg\S*|delaunay\S*) +atos" "$log" | cut -c1-150
grep -E "SUMMARY|WRONG|tail after|rc=" "$w/dsl.log" | head -20
