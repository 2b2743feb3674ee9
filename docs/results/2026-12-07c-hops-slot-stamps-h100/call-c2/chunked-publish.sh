#!/usr/bin/env bash
# Chunked publication on a GPU (written 2026-12-07): call c1 ran the first form (one counter
# per chunk of a lap, on by default, .gpu/atos_prev the build before it): wrong SSSP items in
# gpu_suite and up to 100x slower. This call (c2) runs the second form, now an option
# (`--chunked-publish`, `ATOS_CHUNKED_PUBLISH=1`), off and on alternated in one binary, every run
# verified:
# - kron:22 colouring at its best asynchronous configuration (split 128, warp/8, 6 blocks per
#   SM), twice, then once on with --timeline --phases; its bulk-synchronous form (cta/64);
# - the meshes' colouring (split 8, thread/4, 528 blocks), the grid's (thread/64, 264 blocks);
# - BFS (cta/64) on kron:22 and the grid, PageRank (cta/8) on kron:22;
# - gpu_suite's checks (no BFS table, fewer stress runs) with ATOS_CHUNKED_PUBLISH=1;
# - first, scripts/probes/hop-latency.cu (nvcc): the cost of one dependent atomic, load, fence
#   and hand-off, with and without polling warps (a queue hop's ingredients); then BFS on a
#   path of 4,000 vertices (grid:1x4000: 3,999 hops one after another, so its time over 3,999 is
#   one hop) on every worker kind at 66 and 528 blocks.
# On the device machine, from the repository root, with .gpu/ from scripts/gpu-bundle.sh and
# .gpu/data the shared graphs; carry [".gpu"]:
#   BUDGET=380 bash scripts/chunked-publish.sh
source scripts/device-lib.sh ${CALL:-c2}
( "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)" -O3 -arch=sm_90 -o /tmp/hop scripts/probes/hop-latency.cu && timeout 60 /tmp/hop ) > "$w/hop-latency.txt" 2>&1
echo "hop probe rc=$? (t=$(( $(date +%s) - device_t0 )) s)" >> "$log"
.gpu/atos graph convert kron:22 /tmp/k22.acsr > "$w/convert.txt" 2>&1
.gpu/atos graph convert grid:4096x4096 /tmp/g4k.acsr >> "$w/convert.txt" 2>&1
bench atos path-bfs 40 --app bfs --graph grid:1x4000 --strategy persistent --worker thread,warp,cta --fetch 4 --grid 66,528 --runs 5
K=/tmp/k22.acsr G=/tmp/g4k.acsr L=.gpu/data/luxembourg_osm.edges D=.gpu/data/delaunay_n16.edges
ab() {  # TAG LIMIT ARGS...: chunked publication off, then on
  local tag=$1 lim=$2; shift 2
  bench atos "$tag" "$lim" "$@"
  bench atos "$tag-chunked" "$lim" "$@" --chunked-publish
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
bench atos kron-gc-trace 40 --app coloring --graph $K --split-degree 128 --min-blocks 6 --strategy persistent --worker warp --fetch 8 --runs 1 --timeline --phases --chunked-publish
if [ "$(left)" -gt 60 ]; then
  ( cd .gpu && ATOS_CHUNKED_PUBLISH=1 timeout $(( $(left) - 15 )) ./gpu_suite --data data --no-bfs-table --stress 40 --program-stress 200 --flag-tasks 200000 > "$w/suite.log" 2>&1; echo "gpu_suite rc=$?" >> "$w/suite.log" )
else
  echo "skip gpu_suite" >> "$log"
fi
finish
grep -E "rc=|skip " "$log" | tr '\n' ' '; echo
cat "$w/hop-latency.txt"
python3 scripts/records-summary.py "$w" atos 2>&1 | cut -c1-190
python3 scripts/timeline-tail.py "$w/atos.jsonl" 20 | cut -c1-150
grep -E "FAIL|WRONG|hang|SUMMARY|passed|failed|rc=" "$w/suite.log" 2>/dev/null | tail -25
