source scripts/device-lib.sh w5
BUDGET=${BUDGET:-170}
.gpu/atos graph convert kron:22 /tmp/k22.acsr > "$w/convert.txt" 2>&1
K=/tmp/k22.acsr
for d in 1024 2048 4096 8192 16384 65536; do
bench atos kron-split-$d 20 --app coloring --graph $K --split-degree $d --min-blocks 6 --strategy persistent --worker warp --fetch 8 --runs 5
done
bench atos kron-split-4096-fetch 30 --app coloring --graph $K --split-degree 4096 --min-blocks 6 --strategy persistent --worker warp --fetch 4,16 --runs 5
finish
grep -E "rc=|skip" "$log" | tr '\n' ' '; echo
python3 scripts/records-summary.py "$w" atos 2>&1 | cut -c1-200
