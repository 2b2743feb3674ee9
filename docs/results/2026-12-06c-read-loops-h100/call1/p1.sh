#!/usr/bin/env bash
# 2026-12-06 (third session) call 1, one GPU: where speculative colouring's time goes.
# ncu (line info on) of the colouring kernels on grid:4096x4096 and kron:22, and the
# colouring times of main (c401ffb) on both, every run verified.
source scripts/device-lib.sh p1
BUDGET=${BUDGET:-420}
export ATOS_NVRTC_LINEINFO=1
ncu --version >> "$log" 2>&1
.gpu/atos graph convert kron:22 /tmp/k22.acsr > "$w/convert.txt" 2>&1 &
.gpu/atos graph convert grid:4096x4096 /tmp/g4k.acsr >> "$w/convert.txt" 2>&1 &
wait
G=/tmp/g4k.acsr K=/tmp/k22.acsr
bench atos gc-grid 90 --app coloring --graph $G --strategy persistent,discrete,bsp --worker thread,cta --fetch 8,64 --runs 3
bench atos gc-kron 60 --app coloring --graph $K --strategy persistent,bsp --worker cta --fetch 8,64 --runs 3
prof() {  # TAG KERNEL-REGEX ARGS...
  local tag=$1 k=$2; shift 2
  [ "$(left)" -lt 40 ] && { echo "skip ncu $tag" >> "$log"; return; }
  echo "=== ncu $tag (t=$(($(date +%s) - device_t0)) s)" >> "$log"
  timeout $(( $(left) - 20 )) ncu --kernel-name "regex:$k" --launch-count 1 \
    --section SpeedOfLight --section WarpStateStats --section SourceCounters --section Occupancy \
    --section LaunchStats --section MemoryWorkloadAnalysis --section SchedulerStats \
    -o "$w/$tag" .gpu/atos bench --warmup 0 --runs 1 --timeout 60 "$@" > "$w/$tag.run.txt" 2>&1
  echo "rc=$? ncu $tag (t=$(($(date +%s) - device_t0)) s)" >> "$log"
  ncu -i "$w/$tag.ncu-rep" --page details > "$w/$tag.details.txt" 2>&1
  ncu -i "$w/$tag.ncu-rep" --page source --csv --print-source sass > "$w/$tag.sass.csv" 2>"$w/$tag.sass.err"
  ncu -i "$w/$tag.ncu-rep" --page source --csv --print-source cuda > "$w/$tag.cuda.csv" 2>"$w/$tag.cuda.err"
}
prof grid-pt64 atos_assign_persistent --app coloring --graph $G --strategy persistent --worker thread --fetch 64
prof grid-pc64 atos_assign_persistent --app coloring --graph $G --strategy persistent --worker cta --fetch 64
prof grid-dt64 atos_assign_discrete --app coloring --graph $G --strategy discrete --worker thread --fetch 64
prof kron-pc64 atos_assign_persistent --app coloring --graph $K --strategy persistent --worker cta --fetch 64
rm -f "$w"/*.ncu-rep
finish
grep -E "^===|rc=|skip|^ *(g4k|k22)\S* +" "$log" | cut -c1-200
for f in $w/*.details.txt; do echo "## $f"; grep -E "Duration|Memory Throughput|DRAM Throughput|L2 Cache Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per|Block Limit Reg|Warp Cycles Per Issued|Issue Slots Busy|No Eligible" $f | head -20; done
python3 - "$w" <<'PY'
import csv, glob, sys, io
for f in sorted(glob.glob(sys.argv[1] + "/*.cuda.csv")):
    txt = open(f, errors="replace").read()
    i = txt.find('"')
    rows = list(csv.reader(io.StringIO(txt[i:]))) if i >= 0 else []
    if len(rows) < 2: print("##", f, "no rows:", txt[:300]); continue
    h = rows[0]
    col = next((j for j, c in enumerate(h) if c.startswith("Warp Stall Sampling (All")), None)
    src = next((j for j, c in enumerate(h) if c == "Source"), 1)
    if col is None: print("##", f, "header:", h[:12]); continue
    tot = sum(float(r[col] or 0) for r in rows[1:] if len(r) > col and r[col].replace('.','',1).isdigit())
    top = sorted((r for r in rows[1:] if len(r) > col and r[col].replace('.','',1).isdigit()), key=lambda r: -float(r[col]))[:25]
    print("##", f.split("/")[-1], "samples", tot)
    for r in top: print(f"{100*float(r[col])/max(tot,1):5.1f}%", r[0], r[src].strip()[:110])
PY
