source scripts/device-lib.sh hw
BUDGET=${BUDGET:-560}
( .gpu/atos graph convert kron:22 /tmp/k22.acsr > "$w/convert.txt" 2>&1 ) &
echo "=== gpu_suite coloring-only" >> "$log"
timeout 200 .gpu/gpu_suite --coloring-only 3 > "$w/suite-coloring.log" 2>&1; echo "rc=$? suite coloring (t=$(($(date +%s) - device_t0)))" >> "$log"
timeout 150 .gpu/gpu_suite --dsl-only > "$w/suite-dsl.log" 2>&1; echo "rc=$? suite dsl (t=$(($(date +%s) - device_t0)))" >> "$log"
wait
K=/tmp/k22.acsr
for round in 1 2; do
bench atos kron-split-$round 40 --app coloring --graph $K --split-degree 128 --min-blocks 6 --strategy persistent --worker warp --fetch 8 --runs 5
bench atos kron-windows-$round 40 --app coloring --graph $K --split-degree 128 --hub-windows --min-blocks 6 --strategy persistent --worker warp --fetch 8 --runs 5
done
bench atos kron-bsp 40 --app coloring --graph $K --strategy bsp --worker cta --fetch 64 --runs 3
bench atos kron-tl 60 --app coloring --graph $K --split-degree 128 --min-blocks 6 --strategy persistent --worker warp --fetch 8 --runs 1 --timeline
bench atos kron-windows-tl 60 --app coloring --graph $K --split-degree 128 --hub-windows --min-blocks 6 --strategy persistent --worker warp --fetch 8 --runs 1 --timeline
bench atos kron-windows-deg 60 --app coloring --graph $K --split-degree 512 --hub-windows --min-blocks 6 --strategy persistent --worker warp --fetch 8 --runs 3
finish
grep -E "SUMMARY|WRONG|hub windows|== " $w/suite-*.log | head -60
grep -E "rc=|skip" "$log" | tr '\n' ' '; echo
python3 scripts/timeline-tail.py $w/atos.jsonl 20
python3 scripts/records-summary.py "$w" atos 2>&1 | cut -c1-170
