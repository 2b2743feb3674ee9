#!/usr/bin/env bash
# EXPERIMENT (CTA groups only; thread and warp groups would share the slots): QueueServer's
# leader counters (pending, unreported, batches) in shared memory instead of registers that
# ptxas spills in the idle loop (leader-shared.patch). atos = 0d43e3a's device code, atos_lv =
# with the patch. BFS plain and spread on one device, BFS and PageRank on 2 shared devices,
# cta/64, alternated over 2 rounds. Every run verified.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
cp BUILD.txt BUILD_lv.txt leader-shared.patch "$out/"
nvidia-smi --query-gpu=name,driver_version --format=csv > "$out/device.txt"
t0=$(date +%s)
./atos graph convert grid:4096x4096 /tmp/grid.acsr > /dev/null 2>&1
./atos graph convert kron:22 /tmp/kron22.acsr > /dev/null 2>&1
for r in 1 2; do for b in atos atos_lv; do
  export ATOS_CACHE_DIR=/tmp/k-$b
  timeout 60 ./$b bench --app bfs --strategy persistent --worker cta --fetch 64 --spread-one --graph /tmp/grid.acsr --graph /tmp/kron22.acsr --runs 5 --quiet --out "$out/bfs1-$b.jsonl" >> "$out/bench.log" 2>&1; echo "$b bfs1 r$r rc=$? $(( $(date +%s) - t0 )) s" >> "$out/log.txt"
  timeout 60 ./$b bench --app bfs --share-gpus --devices 2 --worker cta --fetch 64 --graph /tmp/kron22.acsr --graph /tmp/grid.acsr --runs 5 --quiet --out "$out/bfs2-$b.jsonl" >> "$out/bench.log" 2>&1; echo "$b bfs2 r$r rc=$? $(( $(date +%s) - t0 )) s" >> "$out/log.txt"
  timeout 90 ./$b bench --app pagerank-rescan --share-gpus --devices 2 --combine on --worker cta --fetch 64 --graph /tmp/kron22.acsr --runs 3 --timeout 30 --quiet --out "$out/pr2-$b.jsonl" >> "$out/bench.log" 2>&1; echo "$b pr2 r$r rc=$? $(( $(date +%s) - t0 )) s" >> "$out/log.txt"
done; done
cat "$out/log.txt"
python3 - "$out" <<'PY'
import json,sys,collections,glob,os
t=collections.defaultdict(list)
for f in sorted(glob.glob(sys.argv[1]+'/*.jsonl')):
    kind,b=os.path.basename(f)[:-6].split('-')
    for l in open(f):
        r=json.loads(l)
        t[(kind, r['graph'].split('/')[-1], r['devices'], b)].append(f"{r['median_ms']:.3f}{'' if r['status']=='ok' and r['verified'] else ' '+r['status']} g{r['grid'][0] if r['grid'] else '-'} {r['device_code']}")
for k,v in sorted(t.items(), key=str): print(k, ' | '.join(v))
PY
