#!/usr/bin/env bash
# 2026-12-06 (second session) call 3, one GPU, main f7ce25a (NVSHMEM's calls out of line; the
# Mesh's placement words from placement_words): gpu_suite --spread-features on 2 devices
# sharing the GPU (peer-to-peer), then on 2 NVSHMEM ranks sharing it with NVSHMEM calls
# (ATOS_NVSHMEM_CALLS=1; each rank compares every array with the CPU executor's).
source scripts/device-lib.sh e3
BUDGET=560
timeout 120 .gpu/gpu_suite --spread-features --spread-devices 2 > "$w/spread-shared.log" 2>&1
echo "rc=$? shared t=$(( $(date +%s) - device_t0 ))" >> "$log"
NV=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nvshmem/lib
rv=$(mktemp -d)
for r in 0 1; do
  LD_LIBRARY_PATH="$NV:$LD_LIBRARY_PATH" NVSHMEM_REMOTE_TRANSPORT=none ATOS_NVSHMEM_CALLS=1 \
    ATOS_RANK=$r ATOS_RANKS=2 ATOS_RENDEZVOUS="$rv/uid" ATOS_BOOTSTRAP_TIMEOUT=300 \
    timeout $(( $(left) - 15 )) .gpu/gpu_suite --spread-features > "$w/spread-calls1-r$r.log" 2>&1 &
done
wait
echo "calls done t=$(( $(date +%s) - device_t0 ))" >> "$log"
for r in 0 1; do
  f="$w/spread-calls1-r$r.log"
  echo "calls=1 rank $r: $(grep -c identical "$f") identical, $(grep -c -e FAIL -e '^error:' "$f") failed$(grep -q '^SUMMARY' "$f" || echo ', NO SUMMARY: the rank ended early')" >> "$log"
done
finish
cat "$log" | tail -8
grep -E "SUMMARY|FAIL|rror|panick" "$w"/*.log | head -20
tail -5 "$w/spread-calls1-r0.log"
