#!/usr/bin/env bash
# 2026-12-06 (sixth session) call 2, same warm H100, main at 55f9028: do thread workers run
# faster on fewer blocks beyond colouring? BFS, PageRank and colouring's other strategies on
# thread workers at the default grid, 264 and 132 blocks. Every run verified.
source scripts/device-lib.sh p7
BUDGET=${BUDGET:-300}
.gpu/atos graph convert grid:4096x4096 /tmp/g4k.acsr > "$w/convert.txt" 2>&1 &
.gpu/atos graph convert kron:22 /tmp/k22.acsr >> "$w/convert.txt" 2>&1 &
wait
G=/tmp/g4k.acsr K=/tmp/k22.acsr
L=.gpu/data/luxembourg_osm.edges D=.gpu/data/delaunay_n16.edges
bench atos bfs 90 --app bfs --graph $G --graph $K --graph $L --graph $D --strategy persistent --worker thread --fetch 8,64 --runs 3 --grid default,264,132
bench atos pr 70 --app pagerank --graph $G --graph $L --graph $D --epsilon 0.01 --strategy persistent --worker thread --fetch 8,64 --runs 3 --grid default,264,132
bench atos col 60 --app coloring --graph $G --graph $L --graph $D --strategy discrete,bsp --worker thread --fetch 8,64 --runs 3 --grid default,264,132
finish
grep -E "rc=|skip" "$log" | tr '\n' ' '; echo
grep -E "@" "$log" | cut -c1-150
