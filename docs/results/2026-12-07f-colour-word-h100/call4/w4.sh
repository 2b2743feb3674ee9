source scripts/device-lib.sh w4
BUDGET=${BUDGET:-150}
.gpu/atos graph convert kron:22 /tmp/k22.acsr > "$w/convert.txt" 2>&1
K=/tmp/k22.acsr
for d in 2048 8192; do
bench atos kron-windows-$d 25 --app coloring --graph $K --split-degree $d --hub-windows --min-blocks 6 --strategy persistent --worker warp --fetch 8 --runs 5
done
bench atos kron-windows-4096-w16 25 --app coloring --graph $K --split-degree 4096 --hub-windows --min-blocks 6 --strategy persistent --worker warp --fetch 16 --runs 5
bench atos kron-windows-4096 25 --app coloring --graph $K --split-degree 4096 --hub-windows --min-blocks 6 --strategy persistent --worker warp --fetch 8 --runs 5
bench atos kron-split-4096 25 --app coloring --graph $K --split-degree 4096 --min-blocks 6 --strategy persistent --worker warp --fetch 8 --runs 5
bench atos kron-split-128 25 --app coloring --graph $K --split-degree 128 --min-blocks 6 --strategy persistent --worker warp --fetch 8 --runs 5
finish
grep -E "rc=|skip" "$log" | tr '\n' ' '; echo
python3 scripts/records-summary.py "$w" atos 2>&1 | cut -c1-200
