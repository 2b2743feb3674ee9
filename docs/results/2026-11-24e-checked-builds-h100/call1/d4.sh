#!/usr/bin/env bash
# split_sweep (the sweep window split as a pure function with a GPU twin check):
# gpu_suite --dsl-only (device twins: keys and sweep windows; tuple items; faults),
# gpu_suite --spread-features on 2 devices sharing the H100, and PageRank re-scan on 2 shared
# devices, dadcb69 (atos_prev) against this build (atos), alternated, with the SASS calls.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
nvidia-smi --query-gpu=name,driver_version --format=csv > "$out/device.txt"
t0=$(date +%s); stamp() { echo "$1 after $(( $(date +%s) - t0 )) s" >> "$out/times.txt"; }
ATOS_CACHE_DIR=/tmp/k-suite timeout 200 ./gpu_suite --dsl-only --data data > "$out/dsl.log" 2>&1; echo "rc=$?" >> "$out/dsl.log"; stamp dsl
ATOS_CACHE_DIR=/tmp/k-suite timeout 200 ./gpu_suite --spread-features --spread-devices 2 > "$out/spread.log" 2>&1; echo "rc=$?" >> "$out/spread.log"; stamp spread
bench() { local name=$1 bin=$2; shift 2; ATOS_CACHE_DIR=/tmp/k-$bin timeout 150 ./$bin bench "$@" --quiet --out "$out/$bin.jsonl" > /tmp/b.log 2>&1; echo "rc=$?" >> /tmp/b.log; { echo "== $bin $name"; cat /tmp/b.log; } >> "$out/bench.log"; stamp "$bin $name"; }
./atos graph convert kron:22 /tmp/kron22.acsr > /dev/null 2>&1; stamp graph
P="--app pagerank-rescan --share-gpus --combine on --devices 2 --worker cta --fetch 64 --runs 3 --timeout 30 --graph kron:16 --graph /tmp/kron22.acsr"
for r in 1 2 3; do for b in atos_prev atos; do bench "r$r" $b $P; done; done
for b in atos_prev atos; do
  for f in $(find /tmp/k-$b -name '*.cubin'); do
    python3 -c "import sys; d=open(sys.argv[1],'rb').read(); open('/tmp/x.cubin','wb').write(d[d.find(b'\\x7fELF'):])" $f
    echo "$b $(basename $f) $(stat -c %s $f) bytes: $(cuobjdump -sass /tmp/x.cubin 2>/dev/null | grep -c 'CALL') calls, $(cuobjdump -sass /tmp/x.cubin 2>/dev/null | grep -cE 'STL|LDL') local" >> "$out/sass.txt"
  done
done
cat "$out/times.txt" "$out/sass.txt"
grep -A3 "device twins" "$out/dsl.log"; tail -2 "$out/dsl.log"; tail -2 "$out/spread.log"
python3 - "$out" <<'PY'
import json,sys,glob,os
for f in sorted(glob.glob(sys.argv[1]+'/*.jsonl')):
    for l in open(f):
        r=json.loads(l)
        print(f"{os.path.basename(f):16s} {r['graph'].split('/')[-1][:14]:14s} {r['status']} {r['median_ms'] or 0:8.3f} ms work {r['workload_ratio'] or 0:.3f}")
PY
