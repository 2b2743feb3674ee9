#!/usr/bin/env bash
# 2026-12-06 (second session) call 5, one GPU: each Atomics field's parts table by value in
# the kernel's argument (atos::Spread holds SpreadParts, not a pointer to it): .gpu/atos, with
# .gpu/atos_prev (main 793dc39, the table in global memory) alternated. (1) correctness:
# gpu_suite --spread-features on this GPU and on 2 devices sharing it (peer-to-peer), then on 2
# NVSHMEM ranks sharing it (mappings); (2) the spread unit on one device (--spread-one), two
# rounds, both builds: grid:4096x4096 BFS, kron:22 BFS (cta/64), kron:22 PageRank re-scan
# (cta/8), luxembourg_osm BFS.
source scripts/device-lib.sh e5
BUDGET=500
timeout 80 .gpu/gpu_suite --spread-features > "$w/spread-p2p.log" 2>&1; echo "rc=$? p2p t=$(( $(date +%s) - device_t0 ))" >> "$log"
timeout 100 .gpu/gpu_suite --spread-features --spread-devices 2 > "$w/spread-shared.log" 2>&1; echo "rc=$? shared t=$(( $(date +%s) - device_t0 ))" >> "$log"
NV=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nvshmem/lib
rv=$(mktemp -d)
for r in 0 1; do
  LD_LIBRARY_PATH="$NV:$LD_LIBRARY_PATH" NVSHMEM_REMOTE_TRANSPORT=none ATOS_NVSHMEM_CALLS=0 \
    ATOS_RANK=$r ATOS_RANKS=2 ATOS_RENDEZVOUS="$rv/uid" ATOS_BOOTSTRAP_TIMEOUT=120 \
    timeout 120 .gpu/gpu_suite --spread-features > "$w/spread-nvshmem-r$r.log" 2>&1 &
done
wait
echo "nvshmem done t=$(( $(date +%s) - device_t0 ))" >> "$log"
.gpu/atos graph convert grid:4096x4096 /tmp/g.acsr > "$w/convert.txt" 2>&1
.gpu/atos graph convert kron:22 /tmp/k22.acsr >> "$w/convert.txt" 2>&1
for r in 1 2; do for bin in atos_prev atos; do
  bench $bin grid-$r 25 --app bfs --graph /tmp/g.acsr --worker cta --fetch 64 --runs 5 --spread-one
  bench $bin k22-$r 25 --app bfs --graph /tmp/k22.acsr --worker cta --fetch 64 --runs 5 --spread-one
  bench $bin pr-$r 25 --app pagerank-rescan --graph /tmp/k22.acsr --epsilon 0.01 --worker cta --fetch 8 --runs 3 --spread-one
  bench $bin lux-$r 20 --app bfs --graph .gpu/data/luxembourg_osm.edges --worker cta --fetch 64 --runs 5 --spread-one
done; done
finish
grep -E "rc=|skip|done" "$log" | tr '\n' ' '; echo
grep -hE "SUMMARY|FAIL|panick" "$w"/spread-*.log
python3 - "$w" <<'PY'
import json, sys, collections
rows = collections.defaultdict(list)
for b in ("atos_prev", "atos"):
    try:
        for l in open(f"{sys.argv[1]}/{b}.jsonl"):
            r = json.loads(l)
            if not r["verified"]: print("NOT VERIFIED", b, r["app"], r["graph"])
            rows[(r["app"], r["graph"].split("/")[-1], r["devices"], b)].append(round(r["median_ms"], 3))
    except FileNotFoundError: pass
for k, v in sorted(rows.items()): print(*k, v)
PY
