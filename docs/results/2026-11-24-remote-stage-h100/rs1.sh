#!/usr/bin/env bash
# Issue 13, remote stage: correctness and stress of the CTA-staged remote pushes on 2 GPUs, then
# the same timings with the binary before (atos_nostage) and after (atos_new), alternating.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
out="${OUT:-.gpu/out}"; mkdir -p "$out"
log="$out/rs1.log"; j="$out/rs1.jsonl"
cd .gpu
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt"
nvidia-smi topo -m > "$out/topo.txt" 2>&1
export ATOS_CACHE_DIR=/tmp/atos-kernels
t0=$(date +%s)
step() { echo "=== $* (t=$(( $(date +%s) - t0 )) s)" >> "$log"; }
c() { timeout 150 ./atos_new bench --timeout 20 --quiet "$@" >> "$log" 2>&1; echo "rc=$?" >> "$log"; }
step correctness
for app in bfs bfs-owner pagerank; do
  c --app $app --graph kron:16 --graph grid:256x256 --graph data/luxembourg_osm.edges --devices 2 --aggregation eager,256:20 --worker warp,cta --partition edges,random:5 --runs 3 --warmup 1 --out "$out/rs1-correct.jsonl"
done
step stress
for s in 1 2 3; do
  c --app bfs --graph kron:14,seed=$s --graph grid:128x128 --devices 2 --aggregation eager,$((s*40)):$s --worker cta --fetch 32,64 --partition random:$s,edges --runs 10 --warmup 0 --out "$out/rs1-stress.jsonl"
done
echo "ok: $(cat $out/rs1-correct.jsonl $out/rs1-stress.jsonl | grep -c '"status":"ok"') not ok: $(cat $out/rs1-correct.jsonl $out/rs1-stress.jsonl | grep -vc '"status":"ok"')" >> "$log"
b() { bin=$1; shift; timeout 150 ./$bin bench --timeout 30 --quiet --out "$out/rs1-$bin.jsonl" "$@" >> "$log" 2>&1; echo "rc=$?" >> "$log"; }
for round in 1 2; do
  for bin in atos_nostage atos_new; do
    step $bin round $round kron:22
    b $bin --app bfs --graph kron:22 --devices 1,2 --aggregation eager,1024:20 --worker cta --fetch 64 --partition edges --runs 5
  done
done
for bin in atos_nostage atos_new; do
  step $bin kron:24, pagerank, owner, grid
  b $bin --app bfs --graph kron:24 --devices 1,2 --aggregation eager,1024:20 --worker cta --fetch 64 --partition edges --runs 3
  b $bin --app pagerank --graph kron:22 --devices 2 --aggregation eager,1024:20 --worker cta --fetch 64 --partition edges --runs 3
  b $bin --app bfs-owner --graph kron:22 --devices 2 --aggregation 1024:20 --worker cta --fetch 64 --partition edges --runs 5
  b $bin --app bfs --graph grid:4096x4096 --devices 1,2 --aggregation eager --worker cta --fetch 64 --partition vertices --runs 3
done
step done
python3 - "$out"/rs1-atos_nostage.jsonl "$out"/rs1-atos_new.jsonl >> "$log" <<'PY'
import json,sys
for f in sys.argv[1:]:
  for l in open(f):
    r=json.loads(l)
    print(f.split('-')[-1][:-6], r.get('app'), r.get('graph'), r.get('devices'), r.get('aggregation'), r.get('status'), 'ms %.2f' % (r.get('median_ms') or 0), 'remote', r.get('remote_items'), 'ratio %.2f' % (r.get('workload_ratio') or 0), 'grid', r.get('grid'))
PY
tail -c 7000 "$log"
