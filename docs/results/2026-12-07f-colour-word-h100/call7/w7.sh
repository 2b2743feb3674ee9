source scripts/device-lib.sh w7
timeout 110 .gpu/gpu_suite --dsl-only > "$w/suite-dsl.log" 2>&1; echo "rc=$? suite dsl (t=$(($(date +%s) - device_t0)))" >> "$log"
timeout 110 .gpu/gpu_suite --coloring-only 1 > "$w/suite-coloring.log" 2>&1; echo "rc=$? suite coloring (t=$(($(date +%s) - device_t0)))" >> "$log"
finish
grep -E "rc=" "$log" | tr '\n' ' '; echo
grep -E "SUMMARY|WRONG|helpers|every operation" $w/suite-*.log | cut -c1-200 | head -60
