# Session 2026-12-06 #8, call 5 (warm after call 4): issue 11's async/BSP colouring table in one
# call, two rounds, with the grid's check inline (thread/16 at 264 blocks) beside its queued form.
source scripts/device-lib.sh p5
BUDGET=260
K=/tmp/k22.acsr G=/tmp/g4k.acsr L=.gpu/data/luxembourg_osm.edges D=.gpu/data/delaunay_n16.edges
[ -f $G ] || .gpu/atos graph convert grid:4096x4096 $G > "$w/convert.txt" 2>&1
[ -f $K ] || .gpu/atos graph convert kron:22 $K >> "$w/convert.txt" 2>&1
for r in 1 2; do
  bench atos kron-async-$r 30 --app coloring --graph $K --split-degree 128 --min-blocks 6 --strategy persistent --worker warp --fetch 8 --runs 5
  bench atos kron-bsp-$r 30 --app coloring --graph $K --strategy bsp --worker cta --fetch 64 --runs 5
  bench atos grid-inline-$r 30 --app coloring --graph $G --strategy persistent --worker thread --fetch 16 --grid 264 --runs 5 --inline-check
  bench atos grid-$r 30 --app coloring --graph $G --strategy persistent,bsp --worker thread --fetch 64 --grid 264 --runs 5
  bench atos mesh-split-$r 30 --app coloring --graph $L --graph $D --split-degree 8 --strategy persistent,bsp --worker thread,warp --fetch 4,8 --runs 7
  bench atos mesh-cta-$r 30 --app coloring --graph $L --graph $D --strategy bsp --worker cta --fetch 32 --block 128 --runs 7
done
finish
grep -E "rc=|skip" "$log" | tr '\n' ' '; echo
grep -E "NOT OK|WRONG|fail" "$log" | head
python3 scripts/records-summary.py "$w" atos 2>&1 | cut -c1-190
