#!/usr/bin/env bash
# 2026-12-06 (third session) call 6, one GPU: the colouring unit with assign_big (.gpu/atos)
# spills more at its default bound (8 blocks of 256 per SM, 32 registers): kron:22 and
# luxembourg_osm at 8, 6 and 5 blocks per SM, unsplit and split, against 54c2f71 (.gpu/atos_prev)
# in the same call; a timeline of the split run. Every run verified.
source scripts/device-lib.sh p6
BUDGET=${BUDGET:-300}
.gpu/atos graph convert kron:22 /tmp/k22.acsr > "$w/convert.txt" 2>&1
K=/tmp/k22.acsr L=.gpu/data/luxembourg_osm.edges
for r in 1 2; do
  bench atos_prev kron-$r 30 --app coloring --graph $K --strategy persistent,bsp --worker cta --fetch 64 --runs 3
  for mb in 8 6 5; do
    bench atos kron-mb$mb-$r 30 --app coloring --graph $K --strategy persistent,bsp --worker cta --fetch 64 --runs 3 --min-blocks $mb
    bench atos split-mb$mb-$r 30 --app coloring --graph $K --strategy persistent --worker warp --fetch 8 --runs 3 --split-degree 128 --min-blocks $mb
  done
done
bench atos_prev lux 20 --app coloring --graph $L --strategy persistent,bsp --worker cta --fetch 32 --block 128 --runs 5
for mb in 16 12 10; do
  bench atos lux-mb$mb 20 --app coloring --graph $L --strategy persistent,bsp --worker cta --fetch 32 --block 128 --runs 5 --min-blocks $mb
done
bench atos split-timeline 30 --app coloring --graph $K --strategy persistent --worker warp --fetch 8 --runs 3 --split-degree 128 --timeline
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
            k = (r["graph"].split("/")[-1][:10], r["strategy"][:4], f'{r["worker"]}/{r["fetch"]}', r.get("split_degree"), r.get("min_blocks"), r.get("registers"), b)
            rows[k].append(round(r["median_ms"], 3))
            if r.get("timeline"):
                t = r["timeline"]; tot = t[-1][1]
                at = next(x[0] for x in t if x[1] >= 0.999 * tot)
                print("timeline", b, "99.9% at", at, "end", t[-1][0])
    except FileNotFoundError: pass
for k, v in sorted(rows.items(), key=str): print(*k, v)
PY
