#!/usr/bin/env bash
# 2026-12-07 session 17 call 4 (one H100): the fused form's fetch and grid on the meshes and the grid.
source scripts/device-lib.sh p5
BUDGET=${BUDGET:-200}
( .gpu/atos graph convert grid:4096x4096 /tmp/g4k.acsr > "$w/convert.txt" 2>&1 ) &
L=.gpu/data/luxembourg_osm.edges D=.gpu/data/delaunay_n16.edges
M="--app coloring --graph $L --graph $D --split-degree 8 --fused-check --strategy persistent --runs 9"
bench atos meshes-fused-warp 40 $M --worker warp --fetch 4,8,16,32
bench atos meshes-fused-thread 40 $M --worker thread --fetch 2,4,8
bench atos meshes-fused-cta 20 $M --worker cta --fetch 8,32
wait
G=/tmp/g4k.acsr
bench atos grid-fused 60 --app coloring --graph $G --split-degree 8 --fused-check --strategy persistent --worker thread --fetch 4,8 --runs 5 --grid 396,528,660
bench atos grid-fused-warp 30 --app coloring --graph $G --split-degree 8 --fused-check --strategy persistent --worker warp --fetch 8,32 --runs 5
finish
grep -E "rc=|skip" "$log" | tr '\n' ' '; echo
python3 - "$w/atos.jsonl" <<'PY'
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    print(r['graph'].split('/')[-1][:10], r['strategy'][:4], f"{r['worker']}/{r['fetch']}", 'grid', r['grid'][0] if r.get('grid') else None, 'mb', r.get('min_blocks'), 'fused' if r.get('fused_check') else '', round(r['median_ms'], 4), round(min(r['times_ms']), 4), round(r['workload_ratio'], 3), r['colors'], r['verified'])
PY
