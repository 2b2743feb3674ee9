#!/usr/bin/env bash
# 2026-11-29 (second session) call 7 (one H100): one CTA barrier less per batch in spread units
# (the remote stage's flush relies on the local stage's opening barrier). `atos` (work tree on
# 2b5934d) against `atos_mid` (5162046), alternated, 2 rounds, `--spread-one`; then gpu_suite's
# spread checks on 2 devices sharing the H100.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; w=/tmp/c7; mkdir -p "$out" "$w"; log="$w/c7.log"
cat .gpu/BUILD_mid.txt .gpu/BUILD.txt > "$log"; nvidia-smi -L >> "$log"
t0=$(date +%s)
left() { echo $(( ${BUDGET:-200} - ($(date +%s) - t0) )); }
b() { bin=$1; tag=$2; lim=$3; shift 3; [ "$(left)" -lt 10 ] && { echo "skip $tag" >> "$log"; return; }; [ "$lim" -gt "$(left)" ] && lim=$(left); echo "=== $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; timeout $lim .gpu/$bin bench --timeout 30 --warmup 1 --out "$w/$tag.jsonl" "$@" >> "$log" 2>&1; echo "rc=$? $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; }
.gpu/atos graph convert kron:22 /tmp/k22.acsr > "$w/convert.txt" 2>&1 &
.gpu/atos graph convert grid:4096x4096 /tmp/g4k.acsr >> "$w/convert.txt" 2>&1 &
wait
for r in 1 2; do for bin in atos atos_mid; do
  b $bin bfs-$bin-$r 40 --app bfs --graph /tmp/g4k.acsr --graph /tmp/k22.acsr --graph .gpu/data/luxembourg_osm.edges --strategy persistent --worker cta --fetch 64 --runs 5 --spread-one
done; done
echo "bench end t=$(( $(date +%s) - t0 ))" >> "$log"
(cd .gpu && timeout $(left) ./gpu_suite --spread-features --spread-devices 2 > "$w/spread2.log" 2>&1; echo "rc=$? t=$(( $(date +%s) - t0 ))" >> "$w/spread2.log")
tar czf "$out/c7.tgz" -C /tmp c7; cp "$log" "$w"/spread2.log "$out/"
grep -E "^===|rc=[^0]|rror|WRONG|skip|end t|^(k22|g4k|luxembourg\S*) +atos" "$log" | cut -c1-110
grep -E "SUMMARY|FAIL|rc=" "$w"/spread2.log | head -20
