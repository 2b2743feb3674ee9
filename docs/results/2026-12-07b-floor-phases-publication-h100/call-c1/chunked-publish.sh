#!/usr/bin/env bash
# Chunked publication on a GPU (written 2026-12-07, before its first run): the build before it
# (.gpu/atos_prev, gpu_suite_prev: e1c5704) against this one (.gpu/atos), alternated per
# configuration in one call, every run verified:
# - kron:22 colouring at its best asynchronous configuration (split 128, warp/8, 6 blocks per
#   SM), whose checks waited ~4 ms for their ring's `end` (2026-12-07 f1: the check queue's tasks
#   done stayed at 0.1 M of 4.2 M from 0.45 to 4.5 ms), then once more with --timeline --phases;
#   its bulk-synchronous form (cta/64);
# - the grid's colouring (thread/64, 264 blocks) and the meshes' (split 8, thread/4, 528 blocks);
# - BFS (cta/64) on kron:22 and the grid, PageRank (cta/8) on kron:22;
# - gpu_suite's checks (no BFS table, fewer stress runs) on this build.
# On the device machine, from the repository root, with .gpu/ holding both builds
# (scripts/gpu-bundle.sh, and the earlier one copied to *_prev) and .gpu/data the two meshes;
# carry [".gpu"]:
#   BUDGET=420 bash scripts/chunked-publish.sh
source scripts/device-lib.sh c1
.gpu/atos graph convert kron:22 /tmp/k22.acsr > "$w/convert.txt" 2>&1
.gpu/atos graph convert grid:4096x4096 /tmp/g4k.acsr >> "$w/convert.txt" 2>&1
K=/tmp/k22.acsr G=/tmp/g4k.acsr L=.gpu/data/luxembourg_osm.edges D=.gpu/data/delaunay_n16.edges
ab() {  # TAG LIMIT ARGS...: the earlier build, then this one
  local tag=$1 lim=$2; shift 2
  bench atos_prev "$tag" "$lim" "$@"
  bench atos "$tag" "$lim" "$@"
}
for round in 1 2; do
  ab kron-gc$round 40 --app coloring --graph $K --split-degree 128 --min-blocks 6 --strategy persistent --worker warp --fetch 8 --runs 5
done
ab meshes-gc 40 --app coloring --graph $L --graph $D --split-degree 8 --strategy persistent --worker thread --fetch 4 --grid 528 --runs 7
ab grid-gc 40 --app coloring --graph $G --strategy persistent --worker thread --fetch 64 --grid 264 --runs 3
ab kron-bfs 40 --app bfs --graph $K --strategy persistent --worker cta --fetch 64 --runs 5
ab grid-bfs 40 --app bfs --graph $G --strategy persistent --worker cta --fetch 64 --runs 3
ab kron-pr 40 --app pagerank --graph $K --epsilon 0.01 --strategy persistent --worker cta --fetch 8 --runs 3
ab kron-gc-bsp 40 --app coloring --graph $K --strategy bsp --worker cta --fetch 64 --runs 3
bench atos kron-gc-trace 40 --app coloring --graph $K --split-degree 128 --min-blocks 6 --strategy persistent --worker warp --fetch 8 --runs 1 --timeline --phases
if [ "$(left)" -gt 60 ]; then
  ( cd .gpu && timeout $(( $(left) - 15 )) ./gpu_suite --data data --no-bfs-table --stress 40 --program-stress 200 --flag-tasks 200000 > "$w/suite.log" 2>&1; echo "gpu_suite rc=$?" >> "$w/suite.log" )
else
  echo "skip gpu_suite" >> "$log"
fi
finish
grep -E "rc=|skip " "$log" | tr '\n' ' '; echo
python3 scripts/records-summary.py "$w" atos_prev atos 2>&1 | cut -c1-190
python3 scripts/timeline-tail.py "$w/atos.jsonl" 20 | cut -c1-150
python3 - "$w/atos.jsonl" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("phases_us"):
        print("phases", r["app"], r["graph"].split("/")[-1], r["worker"], r["fetch"], "work/stop/exit/event us", [round(x, 1) for x in r["phases_us"]])
PY
grep -E "FAIL|WRONG|hang|SUMMARY|passed|failed|rc=" "$w/suite.log" 2>/dev/null | tail -25
