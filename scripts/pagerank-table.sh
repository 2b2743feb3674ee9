#!/usr/bin/env bash
# Issue 11's PageRank table in one device call: atos's asynchronous PageRank (the re-scan form on
# kron:22, the push form elsewhere: the best configurations of docs/results/2026-11-24b-issue11-h100.md),
# atos's bulk-synchronous PageRank (Algorithm 3), and the original Atos `pr`, `pr_cta_256` and
# `pr_discrete_128` on the same graph files (kron:22, grid:4096x4096, luxembourg_osm,
# delaunay_n16), epsilon 0.01, damping 0.85. Every atos run is verified (no residue above
# epsilon, ranks against power iteration); the originals judge themselves, and a wrong or
# crashed run of theirs is never a time.
#
# On the device machine, from the repository root, with this commit's release binaries in .gpu/
# (scripts/gpu-bundle.sh), the shared graphs in .gpu/data/ and the original prepared in
# .gpu/orig/ (../shared/baselines/atos-original.sh prepare .gpu/orig, the script copied to
# .gpu/atos-original.sh); carry [".gpu"]:
#   BUDGET=420 bash scripts/pagerank-table.sh   (2026-12-07d call 4 ran BUDGET=400)
# PARTS picks some of kron-async, rest-async, kron-bsp, rest-bsp (default all). kron:22's
# originals load the graph per process: its part needs about 190 s (a 60 s limit on the part cut
# it in the first run, 2026-12-07d call 4; calls 5 and 6 ran it alone, call 6 with the 60 s
# process limit now set below).
# EXTRA is added to every atos bench line. $OUT gets pagerank-table.tgz and the log. Written
# 2026-12-07 from the 2026-11-24b calls' commands (callA/i11a.sh, callB/i11b.sh there).
# kron:22's originals read the 1 GB file in each process: the bench's default 30 s process limit
# killed one run of each in 2026-12-07d call 5, so this script gives runs 60 s.
export DEVICE_BENCH_FLAGS="${DEVICE_BENCH_FLAGS:---timeout 60 --warmup 1}"
source scripts/device-lib.sh pagerank-table
EXTRA=${EXTRA:-}
( bash .gpu/atos-original.sh build .gpu/orig > "$w/orig-build.log" 2>&1; echo "orig build rc=$? t=$(( $(date +%s) - device_t0 ))" >> "$w/orig-build.log" ) &
( .gpu/atos graph convert kron:22 /tmp/k22.acsr > "$w/convert.txt" 2>&1; .gpu/atos graph convert grid:4096x4096 /tmp/g4k.acsr >> "$w/convert.txt" 2>&1 ) &
wait
tail -1 "$w/orig-build.log" >> "$log"
K=/tmp/k22.acsr G=/tmp/g4k.acsr L=.gpu/data/luxembourg_osm.edges D=.gpu/data/delaunay_n16.edges
O="--compare-original .gpu/orig --original-runs 2 --original-idle pr=1600 --original-idle pr_cta_256=750 --original-idle pr_discrete_128=10"
part() { [[ " ${PARTS:-kron-async rest-async kron-bsp rest-bsp} " == *" $1 "* ]]; }
part kron-async && bench atos kron-async 200 --app pagerank-rescan --graph $K --epsilon 0.01 --strategy persistent --worker cta --fetch 8 --runs 3 $O $EXTRA
part rest-async && bench atos rest-async 90 --app pagerank --graph $G --graph $L --graph $D --epsilon 0.01 --strategy persistent --worker cta --fetch 256 --runs 3 $O $EXTRA
part kron-bsp && bench atos kron-bsp 60 --app pagerank-bsp --graph $K --epsilon 0.01 --strategy bsp --worker cta --fetch 8 --runs 3 $EXTRA
part rest-bsp && bench atos rest-bsp 90 --app pagerank-bsp --graph $G --graph $L --graph $D --epsilon 0.01 --strategy bsp --worker cta --fetch 64 --runs 3 $EXTRA
finish
grep -E "rc=|skip|orig build" "$log" | tr '\n' ' '; echo
grep -E "^(k22|g4k|luxembourg|delaunay)\S* +(original)" "$log" | cut -c1-170
grep -E "NOT OK" "$log" | cut -c1-170
python3 scripts/records-summary.py "$w" atos 2>&1 | cut -c1-170
