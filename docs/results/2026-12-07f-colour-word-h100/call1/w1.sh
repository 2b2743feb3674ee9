source scripts/device-lib.sh w1
BUDGET=${BUDGET:-540}
( .gpu/atos graph convert kron:22 /tmp/k22.acsr > "$w/convert.txt" 2>&1; .gpu/atos graph convert grid:4096x4096 /tmp/g4k.acsr >> "$w/convert.txt" 2>&1 ) &
echo "=== gpu_suite coloring-only" >> "$log"
timeout 200 .gpu/gpu_suite --coloring-only 3 > "$w/suite-coloring.log" 2>&1; echo "rc=$? suite coloring (t=$(($(date +%s) - device_t0)))" >> "$log"
timeout 150 .gpu/gpu_suite --dsl-only > "$w/suite-dsl.log" 2>&1; echo "rc=$? suite dsl (t=$(($(date +%s) - device_t0)))" >> "$log"
timeout 120 .gpu/gpu_suite --stress-only --program-stress 300 > "$w/suite-stress.log" 2>&1; echo "rc=$? suite stress (t=$(($(date +%s) - device_t0)))" >> "$log"
wait
K=/tmp/k22.acsr G=/tmp/g4k.acsr L=.gpu/data/luxembourg_osm.edges D=.gpu/data/delaunay_n16.edges
for round in 1 2; do
for b in atos_prev atos; do
bench $b kron-split-$round 30 --app coloring --graph $K --split-degree 128 --min-blocks 6 --strategy persistent --worker warp --fetch 8 --runs 5
bench $b kron-cta-$round 40 --app coloring --graph $K --strategy persistent,bsp --worker cta --fetch 64 --runs 3
bench $b grid-inline-$round 30 --app coloring --graph $G --inline-check --strategy persistent --worker thread --fetch 16 --runs 5 --grid 264
bench $b grid-bsp-$round 30 --app coloring --graph $G --strategy bsp --worker thread --fetch 64 --runs 3 --grid 264
bench $b meshes-$round 30 --app coloring --graph $L --graph $D --split-degree 8 --strategy persistent --worker thread --fetch 4 --runs 5
bench $b meshes-bsp-$round 30 --app coloring --graph $L --graph $D --split-degree 8 --strategy bsp --worker warp --fetch 8 --runs 5
done
done
finish
grep -E "SUMMARY|WRONG|FAIL|failures|== |helpers" $w/suite-*.log | head -70
tail -3 $w/suite-stress.log
grep -E "rc=|skip" "$log" | tr '\n' ' '; echo
for b in atos_prev atos; do echo "## $b"; python3 scripts/records-summary.py "$w" $b 2>&1 | cut -c1-170; done
