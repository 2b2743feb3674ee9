# Session 2026-12-06 #8, call 6: colouring's inline check with held inline runs (new build,
# one fence per batch) against the inline check fencing per vertex (atos_prev, 70c33d2),
# alternated, grid thread/8,16,32,64 at 264 blocks and the meshes' plain thread/4,8; the
# queued check (thread/64) as reference.
source scripts/device-lib.sh p6
BUDGET=230
G=/tmp/g4k.acsr L=.gpu/data/luxembourg_osm.edges D=.gpu/data/delaunay_n16.edges
.gpu/atos graph convert grid:4096x4096 $G > "$w/convert.txt" 2>&1
GI="--app coloring --graph $G --strategy persistent --worker thread --fetch 8,16,32,64 --grid 264 --runs 5 --inline-check"
MI="--app coloring --graph $L --graph $D --strategy persistent --worker thread --fetch 4,8,16 --runs 7 --inline-check"
for r in 1 2; do
  bench atos_prev grid-prev-$r 45 $GI
  bench atos grid-new-$r 45 $GI
  bench atos_prev mesh-prev-$r 20 $MI
  bench atos mesh-new-$r 20 $MI
done
bench atos grid-queued 20 --app coloring --graph $G --strategy persistent,bsp --worker thread --fetch 64 --grid 264 --runs 5
bench atos mesh-split 20 --app coloring --graph $L --graph $D --split-degree 8 --strategy persistent --worker thread --fetch 4 --runs 7
finish
grep -E "rc=|skip" "$log" | tr '\n' ' '; echo
grep -E "NOT OK|WRONG|fail" "$log" | head
python3 scripts/records-summary.py "$w" atos_prev atos 2>&1 | cut -c1-190
