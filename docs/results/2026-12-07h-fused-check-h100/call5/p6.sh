#!/usr/bin/env bash
# 2026-12-07 session 17 call 5 (one H100): the BSP form swept as widely as the fused form was
# (fetch and grid), and the fused form's smallest fetches.
source scripts/device-lib.sh p6
BUDGET=${BUDGET:-260}
( .gpu/atos graph convert grid:4096x4096 /tmp/g4k.acsr > "$w/convert.txt" 2>&1 ) &
L=.gpu/data/luxembourg_osm.edges D=.gpu/data/delaunay_n16.edges
bench atos meshes-bsp-split 40 --app coloring --graph $L --graph $D --split-degree 8 --strategy bsp --worker thread,warp --fetch 2,4,8,16 --runs 7
bench atos meshes-bsp-plain 30 --app coloring --graph $L --graph $D --strategy bsp --worker thread,warp --fetch 2,8 --runs 7
M="--app coloring --graph $L --graph $D --split-degree 8 --fused-check --strategy persistent --runs 9"
bench atos meshes-fused-small 30 $M --worker thread --fetch 1,2 --grid default,528
wait
G=/tmp/g4k.acsr
bench atos grid-bsp 90 --app coloring --graph $G --strategy bsp --worker thread --fetch 4,16,64 --runs 3 --grid 264,660,default
bench atos grid-fused-small 40 --app coloring --graph $G --split-degree 8 --fused-check --strategy persistent --worker thread --fetch 2,4 --runs 5 --grid 660,792,default
finish
grep -E "rc=|skip" "$log" | tr '\n' ' '; echo
python3 - "$w/atos.jsonl" <<'PY'
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r.get('median_ms') is None: print('NO TIME', r['graph'], r['worker'], r['fetch'], r['status']); continue
    print(r['graph'].split('/')[-1][:10], r['strategy'][:4], f"{r['worker']}/{r['fetch']}", 'grid', r['grid'][0] if r.get('grid') else None, 'split' if r.get('split_degree') else '', 'fused' if r.get('fused_check') else '', round(r['median_ms'], 4), round(min(r['times_ms']), 4), round(r['workload_ratio'], 3), r['colors'], r['levels'], r['verified'])
PY
