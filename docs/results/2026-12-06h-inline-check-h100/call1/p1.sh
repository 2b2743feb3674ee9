# Session 2026-12-06 #8, call 1: issue 11's colouring table with gc_32 (scripts/colouring-table.sh);
# idle-nap cap on colouring (kron:22 split's re-colouring tail, grid, meshes) alternated;
# kron:22 split at --split-big-fetch 4/16; issue 12's luxembourg_osm SSSP FIFO vs priority x1/4.
BUDGET=300 bash scripts/colouring-table.sh > "$OUT/ct-summary.txt" 2>&1
source scripts/device-lib.sh p1
BUDGET=240
K=/tmp/k22.acsr G=/tmp/g4k.acsr L=.gpu/data/luxembourg_osm.edges D=.gpu/data/delaunay_n16.edges
[ -f $K ] || .gpu/atos graph convert kron:22 $K > "$w/convert.txt" 2>&1
KS="--app coloring --graph $K --split-degree 128 --min-blocks 6 --strategy persistent --worker warp --fetch 8 --runs 5"
for r in 1 2; do
  bench atos kron-nap8-$r 30 $KS
  bench atos kron-nap3-$r 30 $KS --idle-nap-doublings 3
  bench atos kron-nap0-$r 30 $KS --idle-nap-doublings 0
done
bench atos kron-nap3-tl 30 $KS --idle-nap-doublings 3 --timeline --runs 3
bench atos kron-bf4 30 $KS --split-big-fetch 4
bench atos kron-bf16 30 $KS --split-big-fetch 16
bench atos kron-bf64 30 $KS --split-big-fetch 64
[ -f $G ] && for r in 1 2; do
  bench atos grid-nap8-$r 30 --app coloring --graph $G --strategy persistent --worker thread --fetch 64 --grid 264 --runs 3
  bench atos grid-nap3-$r 30 --app coloring --graph $G --strategy persistent --worker thread --fetch 64 --grid 264 --runs 3 --idle-nap-doublings 3
done
MS="--app coloring --graph $L --graph $D --split-degree 8 --strategy persistent --worker thread --fetch 4 --runs 7"
bench atos mesh-nap8 30 $MS
bench atos mesh-nap3 30 $MS --idle-nap-doublings 3
for r in 1 2; do
  bench atos lux-fifo-$r 25 --app sssp --graph $L --weights 1000 --strategy persistent --worker cta --fetch 8,64 --runs 7
  bench atos lux-prio-$r 25 --app sssp-priority --graph $L --weights 1000 --delta-scale 0.25 --strategy persistent --worker cta --fetch 8,64 --runs 7
done
finish
grep -E "rc=|skip" "$log" | tr '\n' ' '; echo
python3 scripts/records-summary.py "$w" atos 2>&1 | cut -c1-170
