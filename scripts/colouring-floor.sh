#!/usr/bin/env bash
# What a persistent colouring run costs when there is next to no work (written 2026-12-07, not run
# yet: no device machine came; after
# the tie-skip call measured 0.051 ms for cta/4 and 0.100 for thread/4 on grid:4x4, against
# 0.116-0.120 for luxembourg_osm's whole asynchronous colouring): the floor by worker kind
# and block count, with the nap not doubling, BFS's floor beside it, and the meshes' async
# colouring by block count with a timeline (where the tasks end inside the run).
#
# On the device machine, from the repository root, with this commit's release binaries in
# .gpu/ (scripts/gpu-bundle.sh) and luxembourg_osm.edges, delaunay_n16.edges in .gpu/data
# (copied from ../shared/data); carry [".gpu"]:
#   BUDGET=240 bash scripts/colouring-floor.sh
source scripts/device-lib.sh f1
G4="--graph grid:4x4 --strategy persistent --fetch 4 --runs 9"
for w in cta warp thread; do
  bench atos floor-$w 30 --app coloring $G4 --worker $w --grid 66,132,264,528,1056
done
bench atos floor-nap0 30 --app coloring $G4 --worker thread,cta --idle-nap-doublings 0
bench atos floor-bfs 30 --app bfs $G4 --worker thread,warp,cta
for g in luxembourg_osm delaunay_n16; do
  bench atos $g 40 --app coloring --graph .gpu/data/$g.edges --split-degree 8 --strategy persistent --worker thread --fetch 4 --grid 132,264,528 --runs 7 --timeline
done
finish
grep -E "rc=|skip " "$log" | tr '\n' ' '; echo
python3 scripts/records-summary.py "$w" atos 2>&1 | cut -c1-170
grep -iE "timeline|99%|last" "$log" | head -40
