#!/usr/bin/env bash
# What a persistent colouring run costs when there is next to no work, and what kron:22's tail
# is made of (written 2026-12-07; ran once, call f1 of
# docs/results/2026-12-07b-floor-phases-publication-h100.md, when its loop variable overwrote $w
# and its records stayed on the device: mended since, not rerun). After the tie-skip call
# measured 0.051 ms for cta/4 and 0.100 for thread/4 on grid:4x4, against 0.116-0.120 for
# luxembourg_osm's whole asynchronous colouring:
# - the floor by worker kind and block count, with the nap not doubling, BFS's floor beside it;
# - the meshes' async colouring by block count with a timeline (where the tasks end inside the
#   run);
# - kron:22's best configuration with a timeline by queue (which task kind the tail runs);
# - each configuration once more with --phases (the GPU clock at the last batch, the end seen,
#   the last exit, against the event time);
# - ncu's kernel duration of the floor and of luxembourg_osm (meant for the launch's share; in
#   f1 they came out above the runs' event times, ncu replaying with cold caches: not used).
#
# On the device machine, from the repository root, with this commit's release binaries in
# .gpu/ (scripts/gpu-bundle.sh) and luxembourg_osm.edges, delaunay_n16.edges in .gpu/data
# (copied from ../shared/data); carry [".gpu"]:
#   BUDGET=360 bash scripts/colouring-floor.sh
source scripts/device-lib.sh f1
G4F="--graph grid:4x4 --strategy persistent --fetch 4"
# --phases: one more run per configuration with its phases on the GPU clock (phases_us).
G4="$G4F --runs 9 --phases"
for kind in cta warp thread; do
  bench atos floor-$kind 30 --app coloring $G4 --worker $kind --grid 66,132,264,528,1056
done
bench atos floor-nap0 30 --app coloring $G4 --worker thread,cta --idle-nap-doublings 0
bench atos floor-bfs 30 --app bfs $G4 --worker thread,warp,cta
for g in luxembourg_osm delaunay_n16; do
  bench atos $g 40 --app coloring --graph .gpu/data/$g.edges --split-degree 8 --strategy persistent --worker thread --fetch 4 --grid 132,264,528 --runs 7 --timeline --phases
done
# kron:22's tail by task kind (2026-12-06h: its last ~3,600 tasks took ~1.7 of ~8.5 ms): the
# best measured configuration, one timeline run with each queue's tasks done over time.
.gpu/atos graph convert kron:22 /tmp/k22.acsr > "$w/convert.txt" 2>&1
bench atos kron-tail 60 --app coloring --graph /tmp/k22.acsr --split-degree 128 --min-blocks 6 --strategy persistent --worker warp --fetch 8 --runs 3 --timeline --phases
# The kernel's own duration (ncu's gpu__time_duration, no launch or event gap) beside the
# events' time above: the floor's launch share.
ncu_run() {
  local tag=$1; shift
  [ "$(left)" -lt 40 ] && { echo "skip ncu-$tag" >> "$log"; return; }
  timeout 60 /usr/local/cuda/bin/ncu --metrics gpu__time_duration.sum,sm__cycles_active.avg --csv \
    .gpu/atos bench --warmup 0 --quiet "$@" > "$w/ncu-$tag.csv" 2> "$w/ncu-$tag.err"
  echo "rc=$? ncu-$tag" >> "$log"
}
ncu_run floor-cta --app coloring $G4F --worker cta --runs 3
ncu_run floor-thread --app coloring $G4F --worker thread --grid 264 --runs 3
ncu_run lux-thread --app coloring --graph .gpu/data/luxembourg_osm.edges --split-degree 8 --strategy persistent --worker thread --fetch 4 --grid 264 --runs 3
finish
grep -E "rc=|skip " "$log" | tr '\n' ' '; echo
python3 scripts/records-summary.py "$w" atos 2>&1 | cut -c1-170
python3 scripts/timeline-tail.py "$w/atos.jsonl" 20 | cut -c1-150
for f in "$w"/ncu-*.csv; do
  echo "$f"
  python3 -c 'import csv,sys
for r in csv.reader(open(sys.argv[1])):
    if len(r) > 14 and r[12] != "Metric Name": print(r[8], r[12], r[13], r[14])' "$f" | head -12
done
