#!/usr/bin/env bash
# 2026-12-06 (third session) call 5, one GPU: colouring with the vertices above a degree split
# off to CTA workers (assign_big) while assign runs on warps or threads (.gpu/atos, --split-degree),
# against 54c2f71 (.gpu/atos_prev); the unsplit rows of both builds alternated (the new program
# holds a third task), every run verified.
source scripts/device-lib.sh p5
BUDGET=${BUDGET:-480}
.gpu/atos graph convert kron:22 /tmp/k22.acsr > "$w/convert.txt" 2>&1 &
.gpu/atos graph convert grid:4096x4096 /tmp/g4k.acsr >> "$w/convert.txt" 2>&1 &
wait
G=/tmp/g4k.acsr K=/tmp/k22.acsr L=.gpu/data/luxembourg_osm.edges D=.gpu/data/delaunay_n16.edges
for d in 1024 128; do
  bench atos split-$d 70 --app coloring --graph $K --strategy persistent,bsp --worker warp,thread --fetch 8,64 --runs 3 --split-degree $d
done
bench atos split-32 40 --app coloring --graph $K --strategy persistent,bsp --worker warp --fetch 8 --runs 3 --split-degree 32
for r in 1 2; do for bin in atos_prev atos; do
  bench $bin kron-$r 40 --app coloring --graph $K --strategy persistent,bsp --worker cta --fetch 64 --runs 3
  bench $bin grid-$r 40 --app coloring --graph $G --strategy persistent,discrete,bsp --worker thread --fetch 64 --runs 3
  bench $bin mesh-$r 25 --app coloring --graph $L --graph $D --strategy persistent,bsp --worker cta --fetch 32 --block 128 --runs 5
done; done
bench atos mesh-split 30 --app coloring --graph $L --graph $D --strategy persistent,bsp --worker warp,thread --fetch 8 --runs 5 --split-degree 8
finish
grep -E "rc=|skip" "$log" | tr '\n' ' '; echo
python3 - "$w" <<'PY'
import json, sys, collections
rows = collections.defaultdict(list)
for b in ("atos_prev", "atos"):
    try:
        for l in open(f"{sys.argv[1]}/{b}.jsonl"):
            r = json.loads(l)
            if not (r["verified"] and r["status"] == "ok"): print("NOT OK", b, r["app"], r["graph"], r["status"])
            k = (r["graph"].split("/")[-1][:10], r["strategy"][:4], f'{r["worker"]}/{r["fetch"]}', r.get("split_degree"), b)
            rows[k].append((round(r["median_ms"], 3), round(r["workload_ratio"], 3), r["colors"]))
    except FileNotFoundError: pass
for k, v in sorted(rows.items(), key=str): print(*k, v)
PY
