#!/usr/bin/env bash
# Session 2026-11-24c, H100 call 4: combine copies drained after batches (--combine-drain).
#  (a) gpu_suite --spread-features on 2 devices sharing the GPU (combining forced on; drains at
#      the default 16 positions per task): the feature task, in-degrees, quiet residual runs;
#  (b) PageRank re-scan on 2 devices sharing the GPU, --combine on, drain 0 / 16 / 64,
#      alternated, with the one-device program in the same bench runs; kron:20 and kron:22.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt"
t0=$(date +%s); stamp() { echo "$1 after $(( $(date +%s) - t0 )) s" >> "$out/times.txt"; }
bench() { local name=$1; shift; timeout "$@" --out "$out/records.jsonl" > /tmp/b.log 2>&1; echo "rc=$?" >> /tmp/b.log; { echo "== $name"; cat /tmp/b.log; } >> "$out/bench.log"; stamp "$name"; }
timeout 150 ./gpu_suite --spread-features --spread-devices 2 > "$out/suite.log" 2>&1; echo "rc=$?" >> "$out/suite.log"; stamp suite
for g in kron:20 kron:22; do ./atos graph convert $g /tmp/${g/:/}.acsr > /dev/null 2>&1; done; stamp graphs
P="--app pagerank-rescan --share-gpus --combine on --worker cta --fetch 8,64 --runs 3 --timeout 30 --quiet"
for r in 1 2; do
  for d in 0 16 64; do
    devs=2; [ $r = 1 ] && [ $d = 0 ] && devs=1,2
    bench "r$r drain $d" 90 ./atos bench $P --devices $devs --combine-drain $d --graph /tmp/kron20.acsr --graph /tmp/kron22.acsr
  done
done
cat "$out/times.txt"
tail -n 4 "$out/suite.log"; grep -c "identical\|exact\|conserved" "$out/suite.log"; grep -i "fail" "$out/suite.log" | head -5
python3 - "$out/records.jsonl" <<'PY'
import json,sys
for l in open(sys.argv[1]):
    r=json.loads(l)
    print(f"{r['graph'].split('/')[-1]:12s} dev {r.get('devices')} drain {r.get('combine_drain')} f{r['fetch']:<3} {r['status']} {r['median_ms'] or 0:8.2f} ms work {r['workload_ratio'] or 0:.3f} delivered {r.get('device_delivered')}")
PY
grep -E "^==|rc=" "$out/bench.log" | paste - - | head -20
