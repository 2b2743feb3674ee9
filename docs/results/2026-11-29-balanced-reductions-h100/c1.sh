#!/usr/bin/env bash
# 2026-11-29 call 1 (one H100): balanced batches for loops that reduce (colouring's assign, one
# 64-colour window per task) in .gpu/atos against main 92a3adc (.gpu/atos_prev): gpu_suite
# --dsl-only (the new balanced-reductions section included); colouring A/B on kron:22 (two
# rounds), grid:4096^2, luxembourg_osm, delaunay_n16; k-core A/B (peel is now balanced too);
# the original gc_32 in the new build's runs. Every atos run verified.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; w=/tmp/c1; mkdir -p "$out" "$w"; log="$w/c1.log"
cat .gpu/BUILD_prev.txt .gpu/BUILD.txt > "$log"; nvidia-smi -L >> "$log"
t0=$(date +%s)
left() { echo $(( ${BUDGET:-560} - ($(date +%s) - t0) )); }
b() { bin=$1; tag=$2; lim=$3; shift 3; [ "$(left)" -lt 10 ] && { echo "skip $tag" >> "$log"; return; }; [ "$lim" -gt "$(left)" ] && lim=$(left); echo "=== $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; timeout $lim .gpu/$bin bench --timeout 30 --warmup 1 --out "$w/$bin.jsonl" "$@" >> "$log" 2>&1; echo "rc=$? $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; }
(cd .gpu && bash atos-original.sh build orig > "$w/orig-build.log" 2>&1) &
.gpu/atos graph convert kron:22 /tmp/k22.acsr > "$w/convert.txt" 2>&1 &
.gpu/atos graph convert grid:4096x4096 /tmp/g4k.acsr >> "$w/convert.txt" 2>&1 &
(cd .gpu && timeout 150 ./gpu_suite --dsl-only > "$w/dsl.log" 2>&1; echo "rc=$?" >> "$w/dsl.log")
wait
echo "prepared t=$(( $(date +%s) - t0 ))" >> "$log"
for r in 1 2; do for bin in atos_prev atos; do
  b $bin kron-$r 60 --app coloring --graph /tmp/k22.acsr --strategy persistent,bsp --worker cta --fetch 8,64 --runs 3
done; done
for bin in atos_prev atos; do
  b $bin meshes 80 --app coloring --graph /tmp/g4k.acsr --graph .gpu/data/luxembourg_osm.edges --graph .gpu/data/delaunay_n16.edges --strategy persistent,bsp --worker cta --fetch 8,64 --runs 3
  b $bin meshes-thread 40 --app coloring --graph /tmp/g4k.acsr --graph .gpu/data/luxembourg_osm.edges --graph .gpu/data/delaunay_n16.edges --strategy discrete,bsp --worker thread --fetch 64 --runs 3
  b $bin kcore 40 --app kcore --graph /tmp/g4k.acsr --graph .gpu/data/luxembourg_osm.edges --strategy persistent,bsp --worker cta --fetch 8 --runs 3
done
GC="--original-idle gc_32_cta=150 --original-runs 2 --compare-original .gpu/orig"
b atos orig-kron 90 --app coloring --graph /tmp/k22.acsr --strategy persistent --worker cta --fetch 64 --runs 3 $GC --original-idle gc_32_warp=5000
b atos orig-meshes 90 --app coloring --graph /tmp/g4k.acsr --graph .gpu/data/luxembourg_osm.edges --graph .gpu/data/delaunay_n16.edges --strategy persistent --worker cta --fetch 64 --runs 3 $GC --original-idle gc_32_warp=10
echo "end t=$(( $(date +%s) - t0 ))" >> "$log"
cp "$w/dsl.log" "$w/orig-build.log" "$out/" 2>/dev/null
tar czf "$out/c1.tgz" -C /tmp c1; cp "$log" "$out/"
grep -E "^===|rc=[^0]|rror|FAIL|WRONG|skip|end t|prepared|^(k22|g4k|luxembourg\S*|delaunay\S*) +(coloring|kcore|original)|gc_32" "$log" | cut -c1-150
grep -E "SUMMARY|WRONG|fail|rc=|balanced" "$w/dsl.log" | head -20
