#!/usr/bin/env bash
# Call 9 (reread): bench records' `unit` on a GPU (4 configurations, then cta/64 again in a
# second process: equal units for the same configuration, distinct ones otherwise) and the
# priority-overflow check for warp/persistent through gpu_suite's stop_on_hang.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
cp BUILD.txt "$out/build.txt"
./atos bench --app bfs --graph grid:256x256 --worker cta,warp --fetch 8,64 --runs 2 --quiet --out "$out/records.jsonl" > "$out/bench.log" 2>&1; echo "rc=$?" >> "$out/bench.log"
./atos bench --app bfs --graph grid:256x256 --worker cta --fetch 64 --grid 264 --runs 2 --quiet --out "$out/records.jsonl" >> "$out/bench.log" 2>&1; echo "rc=$?" >> "$out/bench.log"
timeout 100 ./gpu_suite --priority-only --priority-cases warp/persistent > "$out/priority.log" 2>&1; echo "rc=$?" >> "$out/priority.log"
python3 - "$out/records.jsonl" <<'PY'
import json,sys
for l in open(sys.argv[1]):
    r=json.loads(l)
    print(r['worker'], r['fetch'], r['grid'], r['status'], r['verified'], r['device_code'], r['unit'])
PY
grep rc= "$out/bench.log"; tr '\r' '\n' < "$out/priority.log" | grep -E "WRONG|SUMMARY|rc="
