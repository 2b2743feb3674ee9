#!/usr/bin/env bash
# Session 3, call 2: colouring kron:22 timelines (tasks done over time) at cta/64 and cta/8.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
./atos graph convert kron:22 /tmp/kron.acsr >/dev/null 2>&1
timeout 120 ./atos bench --app coloring --graph /tmp/kron.acsr --strategy persistent --worker cta --fetch 8,64 --runs 3 --timeline --plots "$out/plots" --quiet --out "$out/tl.jsonl" > "$out/tl.log" 2>&1
python3 - "$out" <<'PY'
import json,sys
for l in open(sys.argv[1]+'/tl.jsonl'):
    r=json.loads(l); t=r['timeline']; print(r['worker'],r['fetch'],r['median_ms'],len(t))
    tot=t[-1][1]
    for frac in (0.1,0.25,0.5,0.75,0.9,0.95,0.99,0.999,1.0):
        x=next(p for p in t if p[1]>=frac*tot); print(f"  {frac:6} of tasks by {x[0]/1000:.2f} ms")
PY
