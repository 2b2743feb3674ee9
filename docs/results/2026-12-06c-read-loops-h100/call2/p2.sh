#!/usr/bin/env bash
# 2026-12-06 (third session) call 2, one GPU: lanes loops that only read, run 4 strides a trip
# with branch-free index checks (.gpu/atos), against main c401ffb (.gpu/atos_prev), alternated.
# (1) gpu_suite --dsl-only on the new build (every fault mode, mode 9 the new quiet index, on
# every worker; the feature task against the CPU executor); (2) colouring on kron:22, the grid
# and the two meshes, every run verified; (3) a kron:22 timeline of the new build.
source scripts/device-lib.sh p2
BUDGET=${BUDGET:-450}
.gpu/atos graph convert kron:22 /tmp/k22.acsr > "$w/convert.txt" 2>&1 &
.gpu/atos graph convert grid:4096x4096 /tmp/g4k.acsr >> "$w/convert.txt" 2>&1 &
(cd .gpu && timeout 120 ./gpu_suite --data data --dsl-only > "$w/dsl.log" 2>&1; echo "rc=$? dsl-only t=$(( $(date +%s) - device_t0 ))" >> "$w/dsl.log")
wait
G=/tmp/g4k.acsr K=/tmp/k22.acsr L=.gpu/data/luxembourg_osm.edges D=.gpu/data/delaunay_n16.edges
for r in 1 2; do for bin in atos_prev atos; do
  bench $bin kron-$r 60 --app coloring --graph $K --strategy persistent,bsp --worker cta --fetch 8,64 --runs 3
  bench $bin grid-$r 60 --app coloring --graph $G --strategy persistent,discrete,bsp --worker thread --fetch 64 --runs 3
  bench $bin mesh-$r 40 --app coloring --graph $L --graph $D --strategy persistent,bsp --worker cta --fetch 16,32 --block 128 --runs 5
done; done
bench atos kron-timeline 40 --app coloring --graph $K --strategy persistent --worker cta --fetch 8,64 --runs 3 --timeline
finish
grep -E "rc=|skip" "$log" | tr '\n' ' '; echo
grep -E "FAIL|fail|SUMMARY|mode 9|rc=" "$w/dsl.log" | head -12
python3 - "$w" <<'PY'
import json, sys, collections
rows = collections.defaultdict(list)
for b in ("atos_prev", "atos"):
    try:
        for l in open(f"{sys.argv[1]}/{b}.jsonl"):
            r = json.loads(l)
            if not (r["verified"] and r["status"] == "ok"): print("NOT OK", b, r["app"], r["graph"], r["status"])
            k = (r["graph"].split("/")[-1][:10], r["strategy"], f'{r["worker"]}/{r["fetch"]}', b)
            rows[k].append((round(r["median_ms"], 3), round(r.get("workload") or 0, 3), r.get("colors"), r.get("end_tail_ms"), r.get("last_items_ms")))
    except FileNotFoundError: pass
for k, v in sorted(rows.items()): print(*k, v)
PY
