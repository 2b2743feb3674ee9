#!/usr/bin/env bash
# 2026-12-06 (fourth session) call 6, one GPU: main at 9267e45. The held pushes of persistent
# thread groups spread over devices (atos::RoutedPusher over a HeldPusher: a local push held,
# a remote one fenced and sent at once): colouring spread over 2 and 3 devices sharing the H100
# (--share-gpus), thread workers fetch 64 and 8, eager and 64:20 aggregation, vertices and
# random partitions, 5 runs each; then gpu_suite --coloring-only 10. Every run verified.
source scripts/device-lib.sh p6
BUDGET=${BUDGET:-300}
L=.gpu/data/luxembourg_osm.edges D=.gpu/data/delaunay_n16.edges F=.gpu/data/facebook_combined.edges
for part in vertices random:1; do
  bench atos spread-$part 60 --app coloring --graph $L --graph $D --graph $F --graph kron:16 --devices 1,2,3 --share-gpus --partition $part --aggregation eager,64:20 --strategy persistent --worker thread --fetch 64,8 --runs 5
done
(cd .gpu && timeout 90 ./gpu_suite --coloring-only 10 > "$w/coloring.log" 2>&1; echo "rc=$? coloring t=$(( $(date +%s) - device_t0 ))" >> "$w/coloring.log")
finish
grep -E "rc=|skip" "$log" | tr '\n' ' '; echo
grep -E "SUMMARY|WRONG|rc=" "$w/coloring.log" | head -6
python3 scripts/records-summary.py "$w" atos | head -60
