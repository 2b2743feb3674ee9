#!/usr/bin/env bash
# 2026-12-06 (third session) call 3, one GPU: CTA groups run an item-by-item batch from shared
# memory, 64 items per two barriers (CtaWorker::each), and add no lanes_end barrier after a
# reduction (.gpu/atos), against c2a9610 (.gpu/atos_prev), alternated. (1) gpu_suite on the new
# build: the DSL and fault checks, then BFS on every worker/strategy, the termination and
# program stress (its colouring program included); --priority-only (k-core, SSSP); (2) colouring
# on kron:22, the meshes and the grid with CTA workers, k-core, every run verified.
source scripts/device-lib.sh p3
BUDGET=${BUDGET:-470}
.gpu/atos graph convert kron:22 /tmp/k22.acsr > "$w/convert.txt" 2>&1 &
.gpu/atos graph convert grid:4096x4096 /tmp/g4k.acsr >> "$w/convert.txt" 2>&1 &
(cd .gpu && timeout 60 ./gpu_suite --data data --dsl-only > "$w/dsl.log" 2>&1; echo "rc=$? dsl-only t=$(( $(date +%s) - device_t0 ))" >> "$w/dsl.log")
(cd .gpu && timeout 170 ./gpu_suite --data data --runs 1 --stress 40 --program-stress 200 --flag-tasks 100000 --graph kron:18 > "$w/suite.log" 2>&1; echo "rc=$? suite t=$(( $(date +%s) - device_t0 ))" >> "$w/suite.log")
(cd .gpu && timeout 60 ./gpu_suite --data data --priority-only > "$w/priority.log" 2>&1; echo "rc=$? priority t=$(( $(date +%s) - device_t0 ))" >> "$w/priority.log")
wait
G=/tmp/g4k.acsr K=/tmp/k22.acsr L=.gpu/data/luxembourg_osm.edges D=.gpu/data/delaunay_n16.edges
for r in 1 2; do for bin in atos_prev atos; do
  bench $bin kron-$r 50 --app coloring --graph $K --strategy persistent,bsp --worker cta --fetch 8,64 --runs 3
  bench $bin mesh-$r 30 --app coloring --graph $L --graph $D --strategy persistent,bsp --worker cta --fetch 16,32 --block 128 --runs 5
  bench $bin grid-$r 40 --app coloring --graph $G --strategy persistent --worker cta --fetch 64 --runs 3
  bench $bin kcore-$r 30 --app kcore --graph $L --graph kron:18 --strategy persistent --worker cta --fetch 8 --runs 3
done; done
finish
grep -E "rc=|skip" "$log" | tr '\n' ' '; echo
for f in dsl suite priority; do echo "== $f"; grep -E "SUMMARY|FAIL|rc=" "$w/$f.log" | head -6; done
python3 - "$w" <<'PY'
import json, sys, collections
rows = collections.defaultdict(list)
for b in ("atos_prev", "atos"):
    try:
        for l in open(f"{sys.argv[1]}/{b}.jsonl"):
            r = json.loads(l)
            if not (r["verified"] and r["status"] == "ok"): print("NOT OK", b, r["app"], r["graph"], r["status"])
            k = (r["app"][:5], r["graph"].split("/")[-1][:10], r["strategy"][:4], f'{r["worker"]}/{r["fetch"]}', b)
            rows[k].append(round(r["median_ms"], 3))
    except FileNotFoundError: pass
for k, v in sorted(rows.items()): print(*k, v)
PY
