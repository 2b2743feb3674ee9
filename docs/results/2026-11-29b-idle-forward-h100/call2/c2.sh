#!/usr/bin/env bash
# 2026-11-29 (second session) call 2 (one H100): (a) what the spread unit's receive-ring server
# costs on one device: edeaabf's `atos` against the same build with the receive server left out
# of the persistent loop (`atos_hack`, ATOS_HACK_NO_RECV=1 at code generation; only valid with
# one device, whose receive ring stays empty), `--spread-one`, alternated; (b) gpu_suite's
# spread checks (every aggregation, `:idle` included) on 2 and 4 devices sharing the H100.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; w=/tmp/c2; mkdir -p "$out" "$w"; log="$w/c2.log"
cat .gpu/BUILD.txt .gpu/BUILD_hack.txt > "$log"; nvidia-smi -L >> "$log"
t0=$(date +%s)
left() { echo $(( ${BUDGET:-480} - ($(date +%s) - t0) )); }
b() { bin=$1; tag=$2; lim=$3; shift 3; [ "$(left)" -lt 10 ] && { echo "skip $tag" >> "$log"; return; }; [ "$lim" -gt "$(left)" ] && lim=$(left); echo "=== $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; timeout $lim .gpu/$bin bench --timeout 30 --warmup 1 --out "$w/$tag.jsonl" "$@" >> "$log" 2>&1; echo "rc=$? $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; }
.gpu/atos graph convert kron:22 /tmp/k22.acsr > "$w/convert.txt" 2>&1 &
.gpu/atos graph convert grid:4096x4096 /tmp/g4k.acsr >> "$w/convert.txt" 2>&1 &
wait
for r in 1 2; do
  b atos main-$r 50 --app bfs --graph /tmp/g4k.acsr --graph /tmp/k22.acsr --graph .gpu/data/luxembourg_osm.edges --strategy persistent --worker cta --fetch 64 --runs 5 --spread-one
  ATOS_HACK_NO_RECV=1 b atos_hack norecv-$r 50 --app bfs --graph /tmp/g4k.acsr --graph /tmp/k22.acsr --graph .gpu/data/luxembourg_osm.edges --strategy persistent --worker cta --fetch 64 --runs 5 --spread-one
done
echo "bench end t=$(( $(date +%s) - t0 ))" >> "$log"
for n in 2 4; do
  (cd .gpu && timeout $(( n == 2 ? 150 : 200 )) ./gpu_suite --spread-features --spread-devices $n > "$w/spread$n.log" 2>&1; echo "rc=$? t=$(( $(date +%s) - t0 ))" >> "$w/spread$n.log")
done
tar czf "$out/c2.tgz" -C /tmp c2; cp "$log" "$w"/spread*.log "$out/"
grep -E "^===|rc=[^0]|rror|WRONG|skip|end t|^(k22|g4k|kron-\S+|luxembourg\S*|delaunay\S*) +atos" "$log" | cut -c1-160
grep -E "SUMMARY|FAIL|rc=" "$w"/spread*.log | head -20
