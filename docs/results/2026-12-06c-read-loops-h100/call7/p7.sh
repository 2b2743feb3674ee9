#!/usr/bin/env bash
# 2026-12-06 (third session) call 7, one GPU: the review's mends and the split colouring
# program (.gpu/atos) against 54c2f71 (.gpu/atos_prev). (1) gpu_suite on the new build: DSL
# and fault checks, the feature task unchecked against the CPU on every worker (its new loop
# that only reads and its u8 loop), the flag checks with a reduction, program and termination
# stress, a small BFS table; (2) the plain colouring program against 54c2f71; the split
# program (coloring::split) on kron:22 and luxembourg_osm; CTA fetch 512 (two chunks of 256
# items, two items per thread). Every run verified.
source scripts/device-lib.sh p7
BUDGET=${BUDGET:-330}
.gpu/atos graph convert kron:22 /tmp/k22.acsr > "$w/convert.txt" 2>&1 &
(cd .gpu && timeout 130 ./gpu_suite --data data --runs 1 --stress 10 --program-stress 60 --flag-tasks 100000 --graph kron:16 --only cta/64,warp/8 --strategies persistent > "$w/suite.log" 2>&1; echo "rc=$? suite t=$(( $(date +%s) - device_t0 ))" >> "$w/suite.log")
wait
K=/tmp/k22.acsr L=.gpu/data/luxembourg_osm.edges D=.gpu/data/delaunay_n16.edges
for bin in atos_prev atos; do
  bench $bin kron 30 --app coloring --graph $K --strategy persistent,bsp --worker cta --fetch 64 --runs 3
  bench $bin mesh 20 --app coloring --graph $L --graph $D --strategy persistent,bsp --worker cta --fetch 32 --block 128 --runs 5
done
bench atos split-kron 40 --app coloring --graph $K --strategy persistent,bsp --worker warp --fetch 8 --runs 3 --split-degree 128 --min-blocks 6
bench atos split-mesh 20 --app coloring --graph $L --graph $D --strategy persistent,bsp --worker warp --fetch 8 --runs 5 --split-degree 8
bench atos fetch512 20 --app coloring --graph $L --strategy persistent,bsp --worker cta --fetch 512 --runs 3
finish
grep -E "rc=|skip" "$log" | tr '\n' ' '; echo
grep -E "SUMMARY|FAIL|fail|with a reduction|feature task|  (thread|warp|cta): " "$w/suite.log" | head -24
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
