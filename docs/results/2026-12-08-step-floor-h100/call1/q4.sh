#!/usr/bin/env bash
# 2026-12-08 session 19 call 1 (issue 12): the step floor at HEAD. FIFO and priority SSSP are one
# kernel (the FIFO version is the same queue unordered), so on graphs where both run at the floor
# (time = max_depth x the cost of a step) they should tie. Three rounds, FIFO and priority
# alternated, on the two small road-like graphs at cta/8 and cta/64 and at 132 blocks and the
# default grid; one band over every distance (delta 4e9: FIFO's schedule on the priority path)
# and a quarter delta once; speculative BFS for a level's cost. Then the own-crate
# template on the GPU.
source scripts/device-lib.sh q4
BUDGET=${BUDGET:-420}
G="--graph .gpu/data/luxembourg_osm.edges --graph .gpu/data/delaunay_n16.edges --weights 1000"
C="--strategy persistent --worker cta --fetch 8,64 --grid default,132 --runs 7"
for r in 1 2 3; do
  bench atos fifo-$r 60 --app sssp $G $C
  bench atos prio-$r 60 --app sssp-priority $G $C
done
bench atos prio-oneband 60 --app sssp-priority --delta 4000000000 $G $C
bench atos prio-quarter 60 --app sssp-priority --delta-scale 0.25 $G $C
bench atos bfs 40 --app bfs --graph .gpu/data/luxembourg_osm.edges --graph .gpu/data/delaunay_n16.edges $C
echo "=== my-components --device gpu" >> "$log"
timeout 60 .gpu/my-components --device gpu >> "$log" 2>&1; echo "rc=$? my-components" >> "$log"
finish
grep -E "rc=|skip" "$log" | tr '\n' ' '; echo
python3 scripts/records-summary.py "$w" atos | cut -c1-200
