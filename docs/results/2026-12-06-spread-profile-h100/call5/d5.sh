#!/usr/bin/env bash
# 2026-12-06 call 5 (one GPU), in this order: (1) PART=spread of scripts/gpu-check.sh with
# .gpu/atos and .gpu/gpu_suite: the feature task on this GPU, on 2 devices sharing it,
# --timeline over 2 shared devices, and 2 NVSHMEM ranks on the GPU (mapped memory, CALLS=0):
# the Mesh in constant memory under every transport; (2) PageRank re-scan's spread unit bound
# to 6 blocks per SM by default (.gpu/atos) against 1ddc9f3 (.gpu/atos_c, ptxas's 48
# registers), alternated.
source scripts/device-lib.sh d5
PART=spread SHARED=2 RANKS=2 CALLS=0 OUT="$w/check" timeout 240 bash scripts/gpu-check.sh > "$w/check.log" 2>&1
echo "rc=$? check t=$(( $(date +%s) - device_t0 ))" >> "$log"
.gpu/atos graph convert kron:22 /tmp/k22.acsr > "$w/convert.txt" 2>&1
for r in 1 2; do for bin in atos_c atos; do
  bench $bin pr-$r 25 --app pagerank-rescan --graph /tmp/k22.acsr --epsilon 0.01 --strategy persistent --worker cta --fetch 8 --runs 3 --spread-one
done; done
finish
grep -E "^===|rc=|rror|WRONG|skip|^(k22) +atos" "$log" | cut -c1-170
for f in "$w"/check/*.log; do echo "== $f"; grep -E "SUMMARY|FAIL|rc=|identical, |panick|rror" "$f" | head -6; done
