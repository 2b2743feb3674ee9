#!/usr/bin/env bash
# 2026-12-06 (second session) call 1, one GPU: (1) the grid's cost of being spread, apart from
# links: grid:4096x4096 BFS on 1 device, the spread unit on 1 device (full and half grid), and
# 2 devices sharing the GPU (each on half the SMs), eager / 1024:20 / 1024:20:idle, timeline;
# (2) PART=spread of scripts/gpu-check.sh (NVSHMEM 2 ranks, CALLS=0: the max-label check's
# 16x rings); (3) NVSHMEM calls (ATOS_NVSHMEM_CALLS=1) with the Mesh in constant memory:
# PageRank and BFS on 2 ranks sharing the GPU.
source scripts/device-lib.sh e1
BUDGET=560
.gpu/atos graph convert grid:4096x4096 /tmp/g.acsr > "$w/convert.txt" 2>&1
for r in 1 2; do
  bench atos grid-share-$r 90 --app bfs --graph /tmp/g.acsr --strategy persistent --worker cta --fetch 64 --runs 5 \
    --devices 1,2 --share-gpus --spread-one --aggregation eager,1024:20,1024:20:idle --timeline
  bench atos grid-half-$r 40 --app bfs --graph /tmp/g.acsr --strategy persistent --worker cta --fetch 64 --runs 5 \
    --spread-one --grid 264
done
PART=spread SHARED=2 RANKS=2 CALLS=0 OUT="$w/check" timeout 200 bash scripts/gpu-check.sh > "$w/check.log" 2>&1
echo "rc=$? check t=$(( $(date +%s) - device_t0 ))" >> "$log"
for app in pagerank bfs; do
  echo "=== calls $app t=$(( $(date +%s) - device_t0 ))" >> "$log"
  ATOS_NVSHMEM_CALLS=1 timeout $(( $(left) > 150 ? 150 : $(left) )) .gpu/atos bench --app $app --graph kron:14 \
    --devices 2 --transport nvshmem --share-gpus --partition random:7 --aggregation eager,64:20 --worker cta \
    --runs 2 --out "$w/calls.jsonl" >> "$w/calls.log" 2>&1
  echo "rc=$? calls $app t=$(( $(date +%s) - device_t0 ))" >> "$log"
done
finish
grep -E "^===|rc=|rror|WRONG|skip|atos " "$log" | cut -c1-200
for f in "$w"/check/*.log; do echo "== $f"; grep -E "SUMMARY|FAIL|rc=|identical, |panick|rror" "$f" | head -6; done
tail -n 30 "$w/calls.log"
