#!/usr/bin/env bash
# Stamped rings on a GPU (written 2026-12-07, calls s1 and s2): `--stamped-rings` off and on alternated in
# one binary, every run verified:
# - BFS on a 4,000-vertex path (grid:1x4000: 3,999 hops one after another, so its time over
#   3,999 is one hop) on every worker kind;
# - kron:22 colouring at its best asynchronous configuration (split 128, warp/8, 6 blocks per
#   SM), twice; the meshes' colouring (split 8, thread/4, 528 blocks); the grid's (thread/64,
#   264 blocks);
# - BFS (cta/64) on kron:22 and the grid; PageRank (cta/8) on kron:22; luxembourg_osm BFS on
#   thread/4;
# - gpu_suite's persistent checks (no BFS table, fewer stress runs; its tight rings wrap and
#   overflow) with ATOS_STAMPED_RINGS=1.
# The chunked publication this replaces ran in call c2 (docs/results/2026-12-07c), with
# `scripts/chunked-publish.sh`, kept there as it ran.
# On the device machine, from the repository root, with .gpu/ from scripts/gpu-bundle.sh and
# .gpu/data the shared graphs; carry [".gpu"]:
#   BUDGET=330 CALL=s1 bash scripts/stamped-rings.sh   (s1: with the grid's BFS and PageRank)
#   BUDGET=280 bash scripts/stamped-rings.sh           (s2: after the room bound's fix)
#   BUDGET=210 CALL=stress bash scripts/stamped-rings.sh   (gpu_suite --stress-only, stamps on; 2026-12-07d call 1)
#   BUDGET=440 CALL=cta bash scripts/stamped-rings.sh      (2026-12-07d call 2: CTA workers and others, off and on,
#                                                         for the default; bfs-priority is a control: it never stamps)
#   BUDGET=570 CALL=default bash scripts/stamped-rings.sh  (2026-12-07d call 3: the default on thread and warp units;
#                                                         gpu_suite under it)
#   BUDGET=300 CALL=tiled bash scripts/stamped-rings.sh    (not run yet: gpu_suite with ATOS_STAMPED_RINGS=0, the tiled
#                                                         rings thread and warp units no longer run by default)
# Since 2026-12-07d thread and warp units stamp by default, so the "off" arm of each pair says
# `--stamped-rings=off` (calls s1, s2 and 2026-12-07d call 2 ran a build where no flag meant off).
source scripts/device-lib.sh ${CALL:-s2}
CALL=${CALL:-s2}
L=.gpu/data/luxembourg_osm.edges D=.gpu/data/delaunay_n16.edges
graphs() {  # SPEC...: kron:22 into $K, grid:4096x4096 into $G (converted on the device, in /tmp)
  local spec file
  for spec in "$@"; do
    case $spec in
      kron:22) file=/tmp/k22.acsr K=$file ;;
      grid:4096x4096) file=/tmp/g4k.acsr G=$file ;;
      *) echo "graphs: no file for $spec" >&2; return 1 ;;
    esac
    .gpu/atos graph convert "$spec" "$file" >> "$w/convert.txt" 2>&1
  done
}
ab() {  # TAG LIMIT ARGS...: stamped rings off, then on
  local tag=$1 lim=$2; shift 2
  bench atos "$tag" "$lim" "$@" --stamped-rings=off
  bench atos "$tag-stamped" "$lim" "$@" --stamped-rings
}
suite() {  # LOG ENV ARGS...: gpu_suite under ENV (e.g. ATOS_STAMPED_RINGS=1), cut 10 s before the budget
  local slog=$1 env=$2; shift 2
  ( cd .gpu && env $env timeout $(( $(left) - 10 )) ./gpu_suite "$@" > "$w/$slog" 2>&1; echo "gpu_suite rc=$?" >> "$w/$slog" )
}
summary() {  # the bench lines' exit codes, the records, and the suite's verdicts
  finish
  grep -E "rc=|skip " "$log" | tr '\n' ' '; echo
  python3 scripts/records-summary.py "$w" atos 2>&1 | cut -c1-190
  grep -hE "FAIL|WRONG|wrong|hang|SUMMARY|passed|failed|rc=|overflow|stress" "$w"/suite*.log 2>/dev/null | tail -30
}
case $CALL in
stress)  # the random-program termination stress with stamps on every unit they apply to (cut in s2)
  suite suite.log ATOS_STAMPED_RINGS=1 --stress-only --program-stress ${RUNS:-400}
  ;;
tiled)  # the checks with tiled rings everywhere: thread and warp units no longer run them by default
  suite suite.log ATOS_STAMPED_RINGS=0 --data data --no-bfs-table --stress 120 --program-stress ${RUNS:-400} --flag-tasks 500000
  ;;
default)  # stamps by default where a task runs on thread or warp workers
  graphs kron:22
  # the records say which kernels stamp: thread and warp units, and PageRank's (its re-scan is on threads)
  bench atos default-bfs 40 --app bfs --graph $K --graph $L --strategy persistent --worker thread,warp,cta --fetch 8 --runs 3
  bench atos default-gc 30 --app coloring --graph $L --graph $D --split-degree 8 --strategy persistent --worker thread,cta --fetch 4 --grid 528 --runs 5
  bench atos default-pr 40 --app pagerank-rescan --graph $K --epsilon 0.01 --strategy persistent --worker cta --fetch 8 --runs 3
  bench atos default-gc-off 30 --app coloring --graph $L --graph $D --split-degree 8 --strategy persistent --worker thread --fetch 4 --grid 528 --runs 5 --stamped-rings=off
  BUDGET=$(( ${BUDGET:-480} - 120 )) suite suite.log "" --data data --no-bfs-table --stress 120 --program-stress 500 --flag-tasks 500000
  suite suite-bfs.log "" --data data --bfs-only --runs 3 --graph grid:2048x2048 --graph kron:20
  ;;
cta)  # which units should stamp by default: CTA workers and the rest, off and on
  graphs kron:22 grid:4096x4096
  for round in 1 2; do
    ab bfs-cta-$round 40 --app bfs --graph $K --graph $G --graph $L --graph $D --strategy persistent --worker cta --fetch 64 --runs 5
  done
  ab bfs-tw 50 --app bfs --graph $K --graph $G --strategy persistent --worker thread,warp --fetch 8,64 --runs 5
  ab pr-cta 50 --app pagerank --graph $G --graph $L --graph $D --epsilon 0.01 --strategy persistent --worker cta --fetch 256 --runs 3
  ab pr-rescan-cta 30 --app pagerank-rescan --graph $K --epsilon 0.01 --strategy persistent --worker cta --fetch 8 --runs 3
  ab gc-cta 40 --app coloring --graph $K --graph $G --strategy persistent --worker cta --fetch 64 --runs 3
  ab gc-cta-meshes 30 --app coloring --graph $L --graph $D --strategy persistent --worker cta --fetch 16,32 --block 128 --runs 5
  ab bfs-prio 40 --app bfs-priority --graph $K --graph $L --strategy persistent --worker cta,warp --fetch 64 --runs 3
  ;;
s1|s2)  # 2026-12-07c: off and on, then gpu_suite's persistent checks with stamps
  graphs kron:22 grid:4096x4096
  ab path-bfs 30 --app bfs --graph grid:1x4000 --strategy persistent --worker thread,warp,cta --fetch 4 --grid 528 --runs 5
  ab meshes-gc 30 --app coloring --graph $L --graph $D --split-degree 8 --strategy persistent --worker thread --fetch 4 --grid 528 --runs 7
  if [ $CALL = s1 ]; then
    ab kron-gc 40 --app coloring --graph $K --split-degree 128 --min-blocks 6 --strategy persistent --worker warp --fetch 8 --runs 5
    ab grid-gc 40 --app coloring --graph $G --strategy persistent --worker thread --fetch 64 --grid 264 --runs 3
    ab kron-bfs 30 --app bfs --graph $K --strategy persistent --worker cta --fetch 64 --runs 5
    ab lux-bfs 30 --app bfs --graph $L --strategy persistent --worker thread,cta --fetch 4,64 --runs 5
    ab grid-bfs 40 --app bfs --graph $G --strategy persistent --worker cta --fetch 64 --runs 3
    ab kron-pr 40 --app pagerank --graph $K --epsilon 0.01 --strategy persistent --worker cta --fetch 8 --runs 3
  else  # s2: the grid's colouring (hung in s1) and the checks first, then kron:22 if time is left
    bench atos grid-gc-stamped 40 --app coloring --graph $G --strategy persistent --worker thread --fetch 64 --grid 264 --runs 3 --stamped-rings
  fi
  if [ "$(left)" -gt 40 ]; then
    reserve=0
    [ $CALL = s1 ] || reserve=45  # s2: kron:22's colouring after it
    BUDGET=$(( ${BUDGET:-480} - reserve )) suite suite.log ATOS_STAMPED_RINGS=1 --data data --no-bfs-table --strategies persistent --stress 20 --program-stress 150 --flag-tasks 200000
  else
    echo "skip gpu_suite" >> "$log"
  fi
  [ $CALL = s1 ] || ab kron-gc 40 --app coloring --graph $K --split-degree 128 --min-blocks 6 --strategy persistent --worker warp --fetch 8 --runs 5
  ;;
*) echo "CALL=$CALL: use stress, tiled, default, cta, s1 or s2" >&2; exit 2 ;;
esac
summary
