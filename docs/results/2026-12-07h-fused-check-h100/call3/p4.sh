#!/usr/bin/env bash
# 2026-12-07 session 17 call 3 (one H100): around the new best configurations, both forms.
source scripts/device-lib.sh p4
BUDGET=${BUDGET:-300}
( .gpu/atos graph convert grid:4096x4096 /tmp/g4k.acsr > "$w/convert.txt" 2>&1; .gpu/atos graph convert kron:22 /tmp/k22.acsr >> "$w/convert.txt" 2>&1 ) &
L=.gpu/data/luxembourg_osm.edges D=.gpu/data/delaunay_n16.edges
M="--app coloring --graph $L --graph $D --split-degree 8 --fused-check --strategy persistent --runs 9"
bench atos meshes-fused-warp 40 $M --worker warp --fetch 4,8,16 --min-blocks 4
bench atos meshes-fused-t4 20 $M --worker thread --fetch 4 --min-blocks 4
bench atos meshes-fused-warp-def 20 $M --worker warp --fetch 8
bench atos meshes-split-t4 20 --app coloring --graph $L --graph $D --split-degree 8 --min-blocks 4 --strategy persistent --worker thread --fetch 4 --runs 9
bench atos meshes-bsp 30 --app coloring --graph $L --graph $D --split-degree 8 --strategy bsp --worker thread,warp --fetch 8 --runs 9
bench atos meshes-bsp-cta 20 --app coloring --graph $L --graph $D --strategy bsp --worker cta --fetch 32 --block 128 --runs 9
wait
G=/tmp/g4k.acsr K=/tmp/k22.acsr
bench atos grid-fused 40 --app coloring --graph $G --split-degree 8 --fused-check --strategy persistent --worker thread --fetch 16 --runs 5 --grid 396,528
bench atos grid-fused-t8 20 --app coloring --graph $G --split-degree 8 --fused-check --strategy persistent --worker thread --fetch 8 --runs 5 --grid 396
bench atos grid-bsp 40 --app coloring --graph $G --strategy bsp --worker thread --fetch 64 --runs 3 --grid 198,264,396
bench atos kron-noshare 40 --app coloring --graph $K --split-degree 4096 --min-blocks 6 --share off --strategy persistent --worker warp --fetch 16,32 --runs 5
bench atos kron-share-w16 20 --app coloring --graph $K --split-degree 4096 --min-blocks 6 --strategy persistent --worker warp --fetch 16 --runs 5
bench atos kron-bsp 30 --app coloring --graph $K --strategy bsp --worker cta --fetch 64 --runs 5
finish
grep -E "rc=|skip" "$log" | tr '\n' ' '; echo
python3 - "$w/atos.jsonl" <<'PY'
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    print(r['graph'].split('/')[-1][:10], r['strategy'][:4], f"{r['worker']}/{r['fetch']}", 'grid', r['grid'][0] if r.get('grid') else None, 'mb', r.get('min_blocks'), 'fused' if r.get('fused_check') else '', 'noshare' if r.get('share') is False else '', round(r['median_ms'], 4), [round(t, 3) for t in r['times_ms']], round(r['workload_ratio'], 3), r['colors'], r['verified'])
PY
