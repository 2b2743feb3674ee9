source scripts/device-lib.sh w2
BUDGET=${BUDGET:-300}
( .gpu/atos graph convert kron:22 /tmp/k22.acsr > "$w/convert.txt" 2>&1 ) &
L=.gpu/data/luxembourg_osm.edges D=.gpu/data/delaunay_n16.edges
for round in 1 2; do
bench atos_prev meshes-$round 20 --app coloring --graph $L --graph $D --split-degree 8 --strategy persistent --worker thread --fetch 4 --runs 5
bench atos meshes-$round 20 --app coloring --graph $L --graph $D --split-degree 8 --strategy persistent --worker thread --fetch 4 --runs 5
bench atos meshes-mb4-$round 20 --app coloring --graph $L --graph $D --split-degree 8 --min-blocks 4 --strategy persistent --worker thread --fetch 4 --runs 5
done
wait
K=/tmp/k22.acsr
bench atos kron-split 30 --app coloring --graph $K --split-degree 128 --min-blocks 6 --strategy persistent --worker warp --fetch 8 --runs 5
for d in 1024 4096 16384; do
bench atos kron-windows-$d 30 --app coloring --graph $K --split-degree $d --hub-windows --min-blocks 6 --strategy persistent --worker warp --fetch 8 --runs 3
done
bench atos kron-split-tl 30 --app coloring --graph $K --split-degree 128 --min-blocks 6 --strategy persistent --worker warp --fetch 8 --runs 1 --timeline
bench atos kron-windows-4096-tl 30 --app coloring --graph $K --split-degree 4096 --hub-windows --min-blocks 6 --strategy persistent --worker warp --fetch 8 --runs 1 --timeline
finish
grep -E "rc=|skip" "$log" | tr '\n' ' '; echo
python3 scripts/timeline-tail.py $w/atos.jsonl 12
for b in atos_prev atos; do echo "## $b"; python3 scripts/records-summary.py "$w" $b 2>&1 | cut -c1-200; done
