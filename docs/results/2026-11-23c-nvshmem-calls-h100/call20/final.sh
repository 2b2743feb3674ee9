#!/usr/bin/env bash
# After automatic selection (ATOS_NVSHMEM_CALLS unset: a probe at join picks mappings on one node):
# the check kernel, BFS with mappings (unset), and BFS and PageRank with calls (=1), 2 ranks on one GPU.
set -uo pipefail
NV=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nvshmem/lib
export LD_LIBRARY_PATH=$NV:/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"; cd .gpu
./atos run --np 2 --share-gpus nvshmem-check 2>&1 | tail -2
./atos bench --app bfs --graph data/luxembourg_osm.edges --devices 2 --transport nvshmem --share-gpus --aggregation eager,64:20 --worker cta --fetch 64 --runs 1 --warmup 0 --quiet --out "$out/final.jsonl" 2>&1 | tail -2
for app in bfs pagerank; do
ATOS_NVSHMEM_CALLS=1 ./atos bench --app $app --graph kron:14 --graph data/luxembourg_osm.edges --devices 2 --transport nvshmem --share-gpus --aggregation eager,64:20 --worker cta --fetch 64 --runs 1 --warmup 0 --quiet --out "$out/final.jsonl" 2>&1 | tail -2
done
python3 -c "
import json,collections,sys
rows=[json.loads(l) for l in open('$out/final.jsonl')]
print(collections.Counter((r['app'],r['device'][-60:],r['status']) for r in rows))"
ATOS_NVSHMEM_CALLS=1 ./atos bench --app pagerank --graph kron:14 --devices 4 --transport nvshmem --share-gpus --partition random:7 --aggregation eager,64:20 --worker cta --fetch 64 --runs 1 --warmup 0 --quiet --out "$out/final.jsonl" 2>&1 | tail -1
# Ranks started by hand that disagree: only rank 1 asks for calls; they must agree on calls.
rm -rf /tmp/rv; mkdir -p /tmp/rv
for r in 0 1; do
  ( export NVSHMEM_REMOTE_TRANSPORT=none; [ $r = 1 ] && export ATOS_NVSHMEM_CALLS=1; ATOS_RANK=$r ATOS_RANKS=2 ATOS_RENDEZVOUS=/tmp/rv/uid timeout 120 ./atos bench --app bfs --graph kron:12 --devices 2 --transport nvshmem --worker cta --fetch 64 --runs 1 --warmup 0 --quiet --out "$out/hand-$r.jsonl" > "$out/hand-$r.log" 2>&1 ) &
done; wait
python3 -c "
import json,collections
rows=[json.loads(l) for l in open('$out/final.jsonl')]+[json.loads(l) for l in open('$out/hand-0.jsonl')]
print(collections.Counter((r['app'],r['devices'],r['device'][-62:],r['status']) for r in rows))"
cat "$out/hand-1.log" | tail -2
