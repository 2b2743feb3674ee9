#!/usr/bin/env bash
# Issue 13, filter copies, third call: the filter read with acquire (atos, as landed) against a
# relaxed read (atos-relaxed, an experiment binary), same graphs, same call, alternating.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
out="${OUT:-.gpu/out}"; mkdir -p "$out"
log="$out/fc3.log"
cd .gpu
export ATOS_CACHE_DIR=/tmp/atos-kernels
t0=$(date +%s)
step() { echo "=== $* (t=$(( $(date +%s) - t0 )) s)" >> "$log"; }
for round in 1 2; do
  for bin in atos atos-relaxed; do
    step $bin round $round
    timeout 150 ./$bin bench --app bfs --graph kron:22 --devices 2 --aggregation eager,1024:20 --worker cta --fetch 64 --partition edges --runs 5 --timeout 30 --quiet --out "$out/fc3-$bin.jsonl" >> "$log" 2>&1; echo "rc=$?" >> "$log"
  done
done
for bin in atos atos-relaxed; do
  step $bin kron:24
  timeout 150 ./$bin bench --app bfs --graph kron:24 --devices 2 --aggregation 1024:20 --worker cta --fetch 64 --partition edges --runs 3 --timeout 30 --quiet --out "$out/fc3-$bin.jsonl" >> "$log" 2>&1; echo "rc=$?" >> "$log"
done
step done
tail -c 5000 "$log"
