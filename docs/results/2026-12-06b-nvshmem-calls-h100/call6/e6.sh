#!/usr/bin/env bash
# 2026-12-06 (second session) call 6, one GPU: the threshold advance with its loads batched
# (queue.cuh advance_priority: the words of each step loaded at once, not one load per check)
# in .gpu/atos, against .gpu/atos_prev (main a622180's device code), alternated. (1)
# gpu_suite --priority-only (new build); (2) priority BFS (one band per depth), narrow-band
# SSSP, default-delta SSSP and k-core, every run verified.
source scripts/device-lib.sh e6
BUDGET=255
timeout 80 .gpu/gpu_suite --priority-only > "$w/priority.log" 2>&1; echo "rc=$? priority-only t=$(( $(date +%s) - device_t0 ))" >> "$log"
L=.gpu/data/luxembourg_osm.edges D=.gpu/data/delaunay_n16.edges
for r in 1 2; do for bin in atos_prev atos; do
  bench $bin bfsp-lux-$r 20 --app bfs-priority --graph $L --delta 1 --worker cta --fetch 64 --runs 5
  bench $bin bfsp-grid-$r 20 --app bfs-priority --graph grid:1024x1024 --delta 1 --worker cta --fetch 64 --runs 5
  bench $bin bfsp-del-$r 15 --app bfs-priority --graph $D --delta 1 --worker cta --fetch 64 --runs 5
  bench $bin ssspn-lux-$r 20 --app sssp-priority --graph $L --weights 1000 --delta-scale 0.015625 --worker cta --fetch 64 --runs 5
  bench $bin sssp-kron-$r 20 --app sssp-priority --graph kron:20,w=1000 --worker cta --fetch 64 --runs 5
  bench $bin kcore-lux-$r 15 --app kcore --graph $L --worker cta --fetch 8 --runs 5
done; done
finish
grep -E "rc=|skip" "$log" | tr '\n' ' '; echo
grep -E "SUMMARY|FAIL" "$w/priority.log" | head -5
python3 - "$w" <<'PY'
import json, sys, collections
rows = collections.defaultdict(list)
for b in ("atos_prev", "atos"):
    try:
        for l in open(f"{sys.argv[1]}/{b}.jsonl"):
            r = json.loads(l)
            if not (r["verified"] and r["status"] == "ok"): print("NOT OK", b, r["app"], r["graph"], r["status"])
            rows[(r["app"], r["graph"].split("/")[-1], b)].append((round(r["median_ms"], 3), r["advances"]))
    except FileNotFoundError: pass
for k, v in sorted(rows.items()): print(*k, v)
PY
