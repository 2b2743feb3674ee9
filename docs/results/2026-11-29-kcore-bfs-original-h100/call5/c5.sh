#!/usr/bin/env bash
# 2026-11-29 call 5 (one H100): the review's mends (6a1507f: a barrier opens a balanced batch
# whose prefix may push, k-core's peel among them; mut item parts) against 12598dd
# (.gpu/atos_sh): k-core on the mesh and Kronecker graphs, then the whole gpu_suite shortened.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; w=/tmp/c5; mkdir -p "$out" "$w"; log="$w/c5.log"
cat .gpu/BUILD_sh.txt .gpu/BUILD.txt > "$log"; nvidia-smi -L >> "$log"
t0=$(date +%s)
left() { echo $(( ${BUDGET:-330} - ($(date +%s) - t0) )); }
b() { bin=$1; tag=$2; lim=$3; shift 3; [ "$(left)" -lt 10 ] && { echo "skip $tag" >> "$log"; return; }; [ "$lim" -gt "$(left)" ] && lim=$(left); echo "=== $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; timeout $lim .gpu/$bin bench --timeout 30 --warmup 1 --out "$w/$bin.jsonl" "$@" >> "$log" 2>&1; echo "rc=$? $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; }
.gpu/atos graph convert kron:22 /tmp/k22.acsr > "$w/convert.txt" 2>&1 &
.gpu/atos graph convert grid:4096x4096 /tmp/g4k.acsr >> "$w/convert.txt" 2>&1 &
wait
for r in 1 2; do for bin in atos_sh atos; do
  b $bin kcore-$r 50 --app kcore --graph kron:18 --graph /tmp/k22.acsr --graph /tmp/g4k.acsr --graph .gpu/data/luxembourg_osm.edges --strategy persistent --worker cta --fetch 8,64 --runs 3
done; done
echo "bench end t=$(( $(date +%s) - t0 ))" >> "$log"
(cd .gpu && timeout $(left) ./gpu_suite --data data --runs 1 --stress 40 --program-stress 120 --flag-tasks 100000 --graph kron:18 > "$w/suite.log" 2>&1; echo "rc=$? t=$(( $(date +%s) - t0 ))" >> "$w/suite.log")
cp "$w/suite.log" "$out/"; tar czf "$out/c5.tgz" -C /tmp c5; cp "$log" "$out/"
grep -E "^===|rc=[^0]|rror|WRONG|skip|end t|^(k22|g4k|kron-\S+|luxembourg\S*) +atos" "$log" | cut -c1-150
grep -E "SUMMARY|WRONG|misses|stress:|rc=" "$w/suite.log" | head -20
