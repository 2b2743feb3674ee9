#!/usr/bin/env bash
# 2026-12-07 session 17 call 2 (one H100): the colouring table with the new lines (kron:22 split
# with shared ranges off; split_fused on the grid and the meshes), then the grid's and meshes'
# fused form at other fetches and grids. Every run verified.
BUDGET=360 bash scripts/colouring-table.sh > /tmp/ct.out 2>&1
source scripts/device-lib.sh p3
BUDGET=${BUDGET:-200}
G=/tmp/g4k.acsr K=/tmp/k22.acsr L=.gpu/data/luxembourg_osm.edges D=.gpu/data/delaunay_n16.edges
F="--app coloring --graph $G --split-degree 8 --fused-check --strategy persistent --worker thread --runs 5"
bench atos grid-fused-f 40 $F --fetch 8,32 --grid 264
bench atos grid-fused-g 40 $F --fetch 16 --grid 198,396
bench atos grid-fused-bsp 30 --app coloring --graph $G --split-degree 8 --strategy bsp --worker thread --fetch 64 --runs 3 --grid 264
bench atos meshes-fused-f 30 --app coloring --graph $L --graph $D --split-degree 8 --fused-check --min-blocks 4 --strategy persistent --worker thread,warp --fetch 8 --runs 9
bench atos kron-noshare-mb7 30 --app coloring --graph $K --split-degree 4096 --min-blocks 7 --share off --strategy persistent --worker warp --fetch 8 --runs 5
finish
cat /tmp/ct.out
grep -E "rc=|skip" "$log" | tr '\n' ' '; echo
python3 - "$w/atos.jsonl" <<'PY'
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    print(r['graph'].split('/')[-1], r['strategy'], f"{r['worker']}/{r['fetch']}", 'grid', r['grid'][0] if r.get('grid') else None, 'fused' if r.get('fused_check') else '', r['median_ms'], r['workload_ratio'], r['colors'], r['verified'])
PY
