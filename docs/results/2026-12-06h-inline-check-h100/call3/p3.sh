# Session 2026-12-06 #8, call 3: colouring with check inline (--inline-check) against the
# queued check, alternated, on the grid (thread/64 at 264 blocks) and the meshes (plain
# thread/4, /8, /64; the split thread/4 best so far as the reference), persistent.
source scripts/device-lib.sh p3
BUDGET=240
G=/tmp/g4k.acsr L=.gpu/data/luxembourg_osm.edges D=.gpu/data/delaunay_n16.edges
.gpu/atos graph convert grid:4096x4096 $G > "$w/convert.txt" 2>&1
GS="--app coloring --graph $G --strategy persistent --worker thread --fetch 64 --grid 264 --runs 5"
MS="--app coloring --graph $L --graph $D --strategy persistent --worker thread --fetch 4,8,64 --runs 7"
for r in 1 2; do
  bench atos grid-q-$r 30 $GS
  bench atos grid-i-$r 30 $GS --inline-check
  bench atos grid-i-default-$r 30 --app coloring --graph $G --strategy persistent --worker thread --fetch 16,64 --runs 5 --inline-check
  bench atos mesh-split-$r 30 --app coloring --graph $L --graph $D --split-degree 8 --strategy persistent --worker thread --fetch 4 --runs 7
  bench atos mesh-q-$r 30 $MS
  bench atos mesh-i-$r 30 $MS --inline-check
done
bench atos mesh-i-warp 30 --app coloring --graph $L --graph $D --strategy persistent --worker warp --fetch 8 --runs 7 --inline-check
finish
grep -E "rc=|skip" "$log" | tr '\n' ' '; echo
grep -E "NOT OK|WRONG|fail" "$log" | head
python3 scripts/records-summary.py "$w" atos 2>&1 | cut -c1-190
