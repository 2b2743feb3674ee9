#!/usr/bin/env bash
# Session 2026-11-24c, H100 call 6: the drain after the batch's flush (review mend): gpu_suite
# spread features on 2 shared devices (the in-degree check now fails if no drain delivered a
# partial sum), then PageRank re-scan on 2 shared devices, --combine on, drain 0 and 16, kron:22.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
nvidia-smi --query-gpu=name,driver_version --format=csv > "$out/device.txt"
timeout 200 ./gpu_suite --spread-features --spread-devices 2 > "$out/suite.log" 2>&1; echo "rc=$?" >> "$out/suite.log"
./atos graph convert kron:22 /tmp/kron22.acsr > /dev/null 2>&1
for d in 0 16 0 16; do
  timeout 90 ./atos bench --app pagerank-rescan --share-gpus --combine on --worker cta --fetch 64 --runs 3 --timeout 30 --quiet --devices 2 --combine-drain $d --graph /tmp/kron22.acsr --out "$out/records.jsonl" >> "$out/bench.log" 2>&1; echo "rc=$? drain $d" >> "$out/bench.log"
done
grep -E "in-degrees|FAIL|SUMMARY|rc=" "$out/suite.log"; grep -c conserved "$out/suite.log"
python3 - "$out/records.jsonl" <<'PY'
import json,sys
for l in open(sys.argv[1]):
    r=json.loads(l); print(r['combine_drain'], r['status'], round(r['median_ms'],2), round(r['workload_ratio'],3), r['device_delivered'])
PY
