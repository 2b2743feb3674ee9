#!/usr/bin/env bash
# 2026-12-06 (third session) call 4, one GPU: issue 11's colouring table again at 54c2f71 (read
# loops 4 strides a trip, CTA batches from shared memory): atos asynchronous and BSP against the
# original Atos gc_32 (built here from owensgroup/ATOS e11b724 with
# ../shared/baselines/atos-original.sh) on the same graph files, in each bench run.
source scripts/device-lib.sh p4
BUDGET=${BUDGET:-480}
bash .gpu/atos-original.sh build .gpu/orig > "$w/orig-build.log" 2>&1; echo "original build rc=$? t=$(( $(date +%s) - device_t0 ))" >> "$log"
.gpu/atos graph convert kron:22 /tmp/k22.acsr > "$w/convert.txt" 2>&1 &
.gpu/atos graph convert grid:4096x4096 /tmp/g4k.acsr >> "$w/convert.txt" 2>&1 &
wait
G=/tmp/g4k.acsr K=/tmp/k22.acsr L=.gpu/data/luxembourg_osm.edges D=.gpu/data/delaunay_n16.edges
O="--compare-original .gpu/orig --original-runs 3 --original-idle gc_32_cta=150"
bench atos kron 150 --app coloring --graph $K --strategy persistent,discrete,bsp --worker cta --fetch 8,64 --runs 3 $O --original-idle gc_32_warp=5000
bench atos grid 130 --app coloring --graph $G --strategy persistent,discrete,bsp --worker thread,cta --fetch 64 --runs 3 $O --original-idle gc_32_warp=10
bench atos meshes 90 --app coloring --graph $L --graph $D --strategy persistent,discrete,bsp --worker cta --fetch 16,32 --block 128 --runs 5 $O --original-idle gc_32_warp=10
bench atos meshes-256 60 --app coloring --graph $L --graph $D --strategy persistent,bsp --worker thread,warp,cta --fetch 8,64 --runs 5
finish
grep -E "rc=|skip|original build" "$log" | tr '\n' ' '; echo
grep -E "^(k22|g4k|luxembourg|delaunay)\S* +" "$log" | cut -c1-150
