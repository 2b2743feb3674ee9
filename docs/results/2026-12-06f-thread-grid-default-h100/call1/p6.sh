#!/usr/bin/env bash
# 2026-12-06 (sixth session), one GPU, main at 55f9028 (bench --grid takes a list; the device
# code is ea90971's: push_lanes / push_lanes_many share
# push_reserved, not run on a GPU before), for a session where machines rarely start: one call
# that checks and measures what matters most.
# 1. While the original Atos builds (nvcc, CPU) and the large graphs convert: gpu_suite's DSL
#    programs on the shared graphs (every worker kind and strategy: push_lanes) and its
#    colouring section (held pushes: push_lanes_many).
# 2. Issue 11's colouring table, atos asynchronous and BSP against the original gc_32 in the
#    same bench runs on the same files: kron:22 (plain cta/64 and the split), grid:4096x4096
#    (thread/64 at 264 blocks and the default), luxembourg_osm and delaunay_n16 (cta/32 block 128
#    and the split). Every atos run verified.
# 3. Time allowing: persistent thread-worker colouring against the block count on kron:22 and
#    the meshes, and PageRank on the grid at 264 blocks.
source scripts/device-lib.sh p6
BUDGET=${BUDGET:-530}
( bash .gpu/atos-original.sh build .gpu/orig > "$w/orig-build.log" 2>&1; echo "orig build rc=$? t=$(( $(date +%s) - device_t0 ))" >> "$w/orig-build.log" ) &
( .gpu/atos graph convert grid:4096x4096 /tmp/g4k.acsr > "$w/convert.txt" 2>&1; .gpu/atos graph convert kron:22 /tmp/k22.acsr >> "$w/convert.txt" 2>&1 ) &
(cd .gpu && timeout 90 ./gpu_suite --data data --dsl-only > "$w/dsl.log" 2>&1; echo "rc=$? dsl-only t=$(( $(date +%s) - device_t0 ))" >> "$w/dsl.log")
(cd .gpu && timeout 60 ./gpu_suite --coloring-only 3 > "$w/coloring.log" 2>&1; echo "rc=$? coloring t=$(( $(date +%s) - device_t0 ))" >> "$w/coloring.log")
wait
tail -1 "$w/orig-build.log" >> "$log"; tail -2 "$w/dsl.log" >> "$log"; tail -2 "$w/coloring.log" >> "$log"
mkdir -p "$out/orig-bin" && cp .gpu/orig/bin/* "$out/orig-bin/" 2>/dev/null
G=/tmp/g4k.acsr K=/tmp/k22.acsr
L=.gpu/data/luxembourg_osm.edges D=.gpu/data/delaunay_n16.edges
O="--compare-original .gpu/orig --original-runs 3 --original-idle gc_32_cta=150"
bench atos t-kron 90 --app coloring --graph $K --strategy persistent,bsp --worker cta --fetch 64 --runs 3 $O --original-idle gc_32_warp=5000
bench atos t-kron-split 40 --app coloring --graph $K --split-degree 128 --min-blocks 6 --strategy persistent,bsp --worker warp --fetch 8 --runs 3
bench atos t-grid 80 --app coloring --graph $G --strategy persistent,bsp --worker thread --fetch 64 --runs 3 --grid 264,default $O --original-idle gc_32_warp=10
bench atos t-meshes 60 --app coloring --graph $L --graph $D --strategy persistent,bsp --worker cta --fetch 32 --block 128 --runs 5 $O --original-idle gc_32_warp=10
bench atos t-meshes-split 30 --app coloring --graph $L --graph $D --split-degree 8 --strategy persistent,bsp --worker warp --fetch 8 --runs 5
bench atos thr 100 --app coloring --graph $K --graph $G --graph $L --graph $D --strategy persistent --worker thread --fetch 8,64 --runs 3 --grid default,264,132
bench atos pr-grid 50 --app pagerank --graph $G --epsilon 0.01 --strategy persistent --worker cta --fetch 256 --runs 3 --grid 264,default
finish
grep -E "rc=|skip|orig build|SUMMARY|fail" "$log" | tr '\n' ' '; echo
grep -E "^(k22|g4k|luxembourg|delaunay)\S* +(orig|gc)" "$log" | cut -c1-160
python3 scripts/records-summary.py "$w" atos
