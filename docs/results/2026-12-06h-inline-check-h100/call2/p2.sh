# Session 2026-12-06 #8, call 2 (warm after call 1): kron:22 split's timeline at nap caps 8 and
# 0 with more rounds; luxembourg_osm SSSP FIFO vs priority x1/4 and x1/8, more rounds; then the
# gpu_suite BFS table (--bfs-only), the part of the suite 2026-12-06g did not reach.
source scripts/device-lib.sh p2
BUDGET=200
K=/tmp/k22.acsr L=.gpu/data/luxembourg_osm.edges
[ -f $K ] || .gpu/atos graph convert kron:22 $K > "$w/convert.txt" 2>&1
KS="--app coloring --graph $K --split-degree 128 --min-blocks 6 --strategy persistent --worker warp --fetch 8"
for r in 1 2 3; do
  bench atos kron-nap8-$r 30 $KS --runs 5
  bench atos kron-nap0-$r 30 $KS --runs 5 --idle-nap-doublings 0
done
bench atos kron-nap8-tl 30 $KS --runs 3 --timeline
bench atos kron-nap0-tl 30 $KS --runs 3 --idle-nap-doublings 0 --timeline
for r in 1 2 3; do
  bench atos lux-fifo-$r 25 --app sssp --graph $L --weights 1000 --strategy persistent --worker cta --fetch 8 --runs 9
  bench atos lux-prio4-$r 25 --app sssp-priority --graph $L --weights 1000 --delta-scale 0.25 --strategy persistent --worker cta --fetch 8 --runs 9
  bench atos lux-prio8-$r 25 --app sssp-priority --graph $L --weights 1000 --delta-scale 0.125 --strategy persistent --worker cta --fetch 8 --runs 9
done
finish
grep -E "rc=|skip" "$log" | tr '\n' ' '; echo
python3 scripts/records-summary.py "$w" atos 2>&1 | cut -c1-170
( cd .gpu && timeout 330 ./gpu_suite --data data --bfs-only --runs 5 > "$OUT/bfs-table.log" 2>&1; echo "gpu_suite rc=$?" >> "$OUT/bfs-table.log" )
tail -40 "$OUT/bfs-table.log"
