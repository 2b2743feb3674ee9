#!/usr/bin/env bash
# Hook first or deliveries first in a device's sweep, at ac59c1a (drains after batches, default
# 16): atos = ac59c1a (deliveries first), atos_hook = it + hook-first.patch. Correctness of the
# patch on 2 shared devices, the twins of ac59c1a, then PageRank re-scan on 2 devices sharing
# the H100, cta/8 and cta/64, kron:20 and kron:22, alternated over 3 rounds.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
cp BUILD.txt BUILD_hook.txt hook-first.patch "$out/"
nvidia-smi --query-gpu=name,driver_version --format=csv > "$out/device.txt"
t0=$(date +%s); stamp() { echo "$1 after $(( $(date +%s) - t0 )) s" >> "$out/log.txt"; }
ATOS_CACHE_DIR=/tmp/k-suite timeout 120 ./gpu_suite --dsl-only --data data > "$out/dsl.log" 2>&1; echo "rc=$?" >> "$out/dsl.log"; stamp dsl
ATOS_CACHE_DIR=/tmp/k-suite-hook timeout 200 ./gpu_suite_hook --spread-features --spread-devices 2 > "$out/spread-hook.log" 2>&1; echo "rc=$?" >> "$out/spread-hook.log"; stamp spread-hook
for g in kron:20 kron:22; do ./atos graph convert $g /tmp/${g/:/}.acsr > /dev/null 2>&1; done; stamp graphs
bench() { local bin=$1; shift; ATOS_CACHE_DIR=/tmp/k-$bin timeout 120 ./$bin bench "$@" --quiet --out "$out/$bin.jsonl" > /tmp/b.log 2>&1; echo "rc=$?" >> /tmp/b.log; { echo "== $bin"; cat /tmp/b.log; } >> "$out/bench.log"; stamp "$bin"; }
P="--app pagerank-rescan --devices 2 --share-gpus --combine on --worker cta --fetch 8,64 --runs 3 --timeout 30 --graph /tmp/kron20.acsr --graph /tmp/kron22.acsr"
for r in 1 2 3; do for b in atos atos_hook; do bench $b $P; done; done
{ grep -A3 "device twins" "$out/dsl.log"; tail -2 "$out/dsl.log"; tail -2 "$out/spread-hook.log"; grep "rc=" "$out/bench.log" | sort | uniq -c; } >> "$out/log.txt"
python3 - "$out" >> "$out/log.txt" <<'PY'
import json,sys,collections
t=collections.defaultdict(list)
for b in ['atos','atos_hook']:
    for l in open(f"{sys.argv[1]}/{b}.jsonl"):
        r=json.loads(l)
        t[(r['graph'].split('/')[-1], r['fetch'], b)].append(f"{r['median_ms']:.2f} ({r['workload_ratio']:.2f}) {r['status']} {r['device_code']}")
for k,v in sorted(t.items()): print(k, ' | '.join(v))
PY
cat "$out/log.txt"
