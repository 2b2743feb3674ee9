#!/usr/bin/env bash
# 2026-12-08 session 19 call 2 (issue 12): best against best on the three small road-like graphs
# (luxembourg_osm and delaunay_n16 with --weights 1000, rome99.gr with its own weights): FIFO and
# priority SSSP (one kernel since 78671a2) over CTA fetch 8-256 and 132, 264 and the default
# blocks, two rounds alternated; priority also at a quarter, twice and four times the default
# delta, with slack 4096, and as one band.
source scripts/device-lib.sh q5
BUDGET=${BUDGET:-330}
G="--graph .gpu/data/luxembourg_osm.edges --graph .gpu/data/delaunay_n16.edges --graph .gpu/data/rome99.gr --weights 1000"
C="--strategy persistent --worker cta --fetch 8,16,32,64,128,256 --grid default,132,264 --runs 7 --quiet"
for r in 1 2; do
  bench atos fifo-$r 50 --app sssp $G $C
  bench atos prio-$r 50 --app sssp-priority $G $C
done
bench atos prio-x0.25 40 --app sssp-priority --delta-scale 0.25 $G $C
bench atos prio-x2 40 --app sssp-priority --delta-scale 2 $G $C
bench atos prio-x4 40 --app sssp-priority --delta-scale 4 $G $C
bench atos prio-slack4096 40 --app sssp-priority --advance-slack 4096 $G $C
bench atos prio-oneband 40 --app sssp-priority --delta 4000000000 $G $C
finish
grep -E "rc=|skip" "$log" | tr '\n' ' '; echo
