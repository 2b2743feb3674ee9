#!/usr/bin/env bash
# Issue 13: ptxas spills the spread kernels' idle loop at its own register choice (48 for BFS;
# no spills at min-blocks 4, 64 registers). BFS one device plain and spread (--spread-one),
# grid:4096x4096 and kron:22; BFS and PageRank re-scan on 2 devices sharing the H100 (kron:22);
# --min-blocks 0 (default), 4 and 5, alternated over 2 rounds. ac59c1a.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
cp BUILD.txt "$out/"
nvidia-smi --query-gpu=name,driver_version --format=csv > "$out/device.txt"
t0=$(date +%s)
./atos graph convert grid:4096x4096 /tmp/grid.acsr > /dev/null 2>&1
./atos graph convert kron:22 /tmp/kron22.acsr > /dev/null 2>&1
for r in 1 2; do for mb in 0 4 5; do
  timeout 60 ./atos bench --app bfs --strategy persistent --worker cta --fetch 64 --spread-one --min-blocks $mb --graph /tmp/grid.acsr --graph /tmp/kron22.acsr --runs 5 --quiet --out "$out/bfs1.jsonl" >> "$out/bench.log" 2>&1; echo "bfs1 mb=$mb r$r rc=$? $(( $(date +%s) - t0 )) s" >> "$out/log.txt"
  timeout 60 ./atos bench --app bfs --share-gpus --devices 2 --worker cta --fetch 64 --min-blocks $mb --graph /tmp/kron22.acsr --runs 5 --quiet --out "$out/bfs2.jsonl" >> "$out/bench.log" 2>&1; echo "bfs2 mb=$mb r$r rc=$? $(( $(date +%s) - t0 )) s" >> "$out/log.txt"
  timeout 90 ./atos bench --app pagerank-rescan --share-gpus --devices 2 --combine on --worker cta --fetch 64 --min-blocks $mb --graph /tmp/kron22.acsr --runs 3 --timeout 30 --quiet --out "$out/pr2.jsonl" >> "$out/bench.log" 2>&1; echo "pr2 mb=$mb r$r rc=$? $(( $(date +%s) - t0 )) s" >> "$out/log.txt"
done; done
cat "$out/log.txt"
python3 - "$out" <<'PY'
import json,sys,collections
t=collections.defaultdict(list)
for f in ['bfs1','bfs2','pr2']:
    for l in open(f"{sys.argv[1]}/{f}.jsonl"):
        r=json.loads(l)
        key=(f, r['graph'].split('/')[-1], 'spread' if r['devices'] else 'plain', r['devices'], r['min_blocks'])
        t[key].append(f"{r['median_ms']:.3f}{'' if r['status']=='ok' and r['verified'] else ' '+r['status']} g{r['grid'][0] if r['grid'] else '-'}")
for k,v in sorted(t.items(), key=str): print(k, ' | '.join(v))
PY
