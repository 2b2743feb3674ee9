# Session 2026-12-06 #8, call 4 (warm after call 3): the inline check's fetch and block count on
# the grid (queued thread/16 too) and the meshes, persistent.
source scripts/device-lib.sh p4
BUDGET=150
G=/tmp/g4k.acsr L=.gpu/data/luxembourg_osm.edges D=.gpu/data/delaunay_n16.edges
[ -f $G ] || .gpu/atos graph convert grid:4096x4096 $G > "$w/convert.txt" 2>&1
for r in 1 2; do
  bench atos grid-q-$r 30 --app coloring --graph $G --strategy persistent --worker thread --fetch 16,64 --grid 264 --runs 5
  bench atos grid-i-$r 40 --app coloring --graph $G --strategy persistent --worker thread --fetch 8,16,32 --grid 264,528 --runs 5 --inline-check
  bench atos mesh-i-$r 30 --app coloring --graph $L --graph $D --strategy persistent --worker thread --fetch 2,4 --grid 528,1056 --runs 7 --inline-check
  bench atos mesh-split-$r 20 --app coloring --graph $L --graph $D --split-degree 8 --strategy persistent --worker thread --fetch 4 --runs 7
done
finish
grep -E "rc=|skip" "$log" | tr '\n' ' '; echo
grep -E "NOT OK|WRONG|fail" "$log" | head
python3 scripts/records-summary.py "$w" atos 2>&1 | cut -c1-190
