source scripts/device-lib.sh t1
BUDGET=${BUDGET:-170}
.gpu/atos graph convert kron:22 /tmp/k22.acsr > "$w/convert.txt" 2>&1
K=/tmp/k22.acsr
S4="--app coloring --graph $K --split-degree 4096 --min-blocks 6 --strategy persistent --worker warp --fetch 8 --runs 3"
bench atos_prev base-prev 30 $S4
bench atos base 30 $S4
bench atos low16 60 $S4 --split-low-degree 16 --split-low-fetch 16
bench atos low32 60 $S4 --split-low-degree 32 --split-low-fetch 4
bench atos bsp 30 --app coloring --graph $K --strategy bsp --worker cta --fetch 64 --runs 3
bench atos bsp-split 40 --app coloring --graph $K --split-degree 4096 --split-low-degree 32 --strategy bsp --worker warp --fetch 8 --runs 3
timeout $(( $(left) - 5 )) .gpu/gpu_suite --coloring-only 1 > "$w/suite-coloring.log" 2>&1; echo "rc=$? suite coloring (t=$(($(date +%s) - device_t0)))" >> "$log"
finish
grep -E "rc=|skip" "$log" | tr '\n' ' '; echo
python3 scripts/records-summary.py "$w" 2>&1 | cut -c1-220
grep -E "SUMMARY|WRONG|==|low-side" $w/suite-*.log | cut -c1-160 | head -40
