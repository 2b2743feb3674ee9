source scripts/device-lib.sh hd
BUDGET=${BUDGET:-270}
.gpu/atos graph convert kron:22 /tmp/k22.acsr > "$w/convert.txt" 2>&1
K=/tmp/k22.acsr
S="--app coloring --graph $K --min-blocks 6 --strategy persistent --runs 5"
for round in 1 2; do
bench atos split-$round 30 $S --split-degree 128 --worker warp --fetch 8
bench atos bydeg-$round 30 $S --split-degree 128 --worker warp --fetch 8 --hubs-by-degree
bench atos win8-$round 30 $S --split-degree 128 --worker warp --fetch 8 --hub-windows --split-big-fetch 8
done
bench atos win-f8d 40 $S --split-degree 128 --worker warp --fetch 8 --hub-windows --split-big-fetch 8 --hubs-by-degree
bench atos bydeg-skip 30 $S --split-degree 128 --worker warp --fetch 8 --hubs-by-degree --tie-skip 4
bench atos bydeg-tl 30 --app coloring --graph $K --min-blocks 6 --strategy persistent --runs 1 --split-degree 128 --worker warp --fetch 8 --hubs-by-degree --timeline
bench atos win8-tl 30 --app coloring --graph $K --min-blocks 6 --strategy persistent --runs 1 --split-degree 128 --worker warp --fetch 8 --hub-windows --split-big-fetch 8 --timeline
timeout 60 .gpu/gpu_suite --bfs-only --runs 1 --only cta/1,cta/64 --graph kron:18 --graph grid:512x512 > "$w/suite-bfs.log" 2>&1; echo "rc=$? suite bfs cta/1 (t=$(($(date +%s) - device_t0)))" >> "$log"
bench atos bsp 40 --app coloring --graph $K --strategy bsp --worker cta --fetch 64 --runs 3
finish
grep -E "SUMMARY|WRONG|FAIL" $w/suite-bfs.log | head; tail -5 $w/suite-bfs.log
grep -E "rc=|skip" "$log" | tr '\n' ' '; echo
python3 scripts/timeline-tail.py $w/atos.jsonl 20
python3 scripts/records-summary.py "$w" atos 2>&1 | cut -c1-250
