#!/usr/bin/env bash
# Register budget: the kernel's second __launch_bounds__ argument (--min-blocks; 0 = none, the
# build before this change, where ptxas holds every kernel to 32 registers and spills).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt"
t0=$(date +%s); stamp() { echo "$1 done after $(( $(date +%s) - t0 )) s" >> "$out/times.txt"; }
for g in kron:22 grid:4096x4096; do ./atos graph convert $g /tmp/${g%%:*}.acsr >/dev/null 2>&1; done
./atos graph convert grid:4096x4096,w=100 /tmp/gridw.acsr >/dev/null 2>&1
./atos graph convert kron:22,w=1000 /tmp/kronw.acsr >/dev/null 2>&1
stamp graphs
J="--out $out/mb.jsonl --quiet --runs 5 --timeout 30"
for mb in 0 1 2 4 6 8; do
  timeout 60 ./atos bench --app bfs --graph /tmp/kron.acsr --graph /tmp/grid.acsr --graph data/luxembourg_osm.edges --worker cta --fetch 8,64 --min-blocks $mb $J >> "$out/log.txt" 2>&1
  timeout 60 ./atos bench --app pagerank-rescan --graph /tmp/kron.acsr --worker cta --fetch 8 --min-blocks $mb $J >> "$out/log.txt" 2>&1
  timeout 60 ./atos bench --app pagerank --graph /tmp/grid.acsr --worker cta --fetch 256 --min-blocks $mb $J >> "$out/log.txt" 2>&1
  timeout 60 ./atos bench --app coloring --graph /tmp/kron.acsr --worker cta --fetch 64 --min-blocks $mb $J >> "$out/log.txt" 2>&1
  timeout 60 ./atos bench --app sssp-priority --graph /tmp/gridw.acsr --graph /tmp/kronw.acsr --worker cta --fetch 8,64 --min-blocks $mb $J >> "$out/log.txt" 2>&1
  stamp "mb $mb"
  [ $(( $(date +%s) - t0 )) -gt 520 ] && break
done
cat "$out/times.txt"
python3 - "$out/mb.jsonl" <<'PY' | tee "$out/table.txt"
import json,sys,collections
rows=[json.loads(l) for l in open(sys.argv[1])]
t=collections.defaultdict(dict)
for r in rows:
    k=(r['app'], r['graph'].split('/')[-1][:22], f"{r['worker']}/{r['fetch']}")
    t[k][r.get('min_blocks')]=(r['status'], r['median_ms'], r.get('grid'))
mbs=sorted({m for v in t.values() for m in v})
print(f"{'app':16s} {'graph':22s} {'w/f':8s} " + " ".join(f"mb={m:<9}" for m in mbs))
for k,v in t.items():
    print(f"{k[0]:16s} {k[1]:22s} {k[2]:8s} " + " ".join((f"{v[m][1]:9.3f}{'' if v[m][0]=='ok' else '!'+v[m][0]:1s} " if m in v and v[m][1] else f"{'-':10s} ") for m in mbs))
print('grids:', sorted({(k[0],m,str(v[m][2])) for k,v in t.items() for m in v}))
PY
