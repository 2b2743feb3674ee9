#!/usr/bin/env bash
# The feature task spread over NVSHMEM ranks sharing one GPU, mappings and calls, the hand-
# started disagreement (only rank 0 asks for calls), against the CPU executor's one device.
set -uo pipefail
NV=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nvshmem/lib
export LD_LIBRARY_PATH=$NV:/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 NVSHMEM_REMOTE_TRANSPORT=none ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"; cd .gpu
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
# ranks NAME N CALLS0 CALLSREST: N hand-started ranks of gpu_suite --spread-features.
ranks() {
  local name=$1 n=$2 c0=$3 crest=$4
  rm -rf /tmp/rv; mkdir -p /tmp/rv
  local t0=$(date +%s)
  for ((r = 0; r < n; r++)); do
    local c=$crest; [ $r -eq 0 ] && c=$c0
    ( if [ "$c" = unset ]; then unset ATOS_NVSHMEM_CALLS; else export ATOS_NVSHMEM_CALLS=$c; fi
      ATOS_RANK=$r ATOS_RANKS=$n ATOS_RENDEZVOUS=/tmp/rv/uid ATOS_BOOTSTRAP_TIMEOUT=200 \
        timeout 400 ./gpu_suite --spread-features > "$out/$name-r$r.log" 2>&1; echo "rc $?" >> "$out/$name-r$r.log" ) &
  done
  wait
  echo "== $name ($n ranks, calls rank0=$c0 others=$crest) $(( $(date +%s) - t0 )) s"
  for ((r = 0; r < n; r++)); do
    echo "-- rank $r: $(grep -c 'identical' "$out/$name-r$r.log") identical, $(grep -c FAIL "$out/$name-r$r.log") FAIL, $(tail -1 "$out/$name-r$r.log")"
  done
  grep -v "^\s*$" "$out/$name-r0.log" | grep -v "^    " | head -16
  for ((r = 1; r < n; r++)); do grep -E "FAIL|error|panic|==" "$out/$name-r$r.log" | head -5; done
}
echo "== one process, one GPU (peer-to-peer spread on one device)"
timeout 300 ./gpu_suite --spread-features 2>&1 | tail -16
ranks map2 2 0 0
ranks calls2 2 1 1
ranks mixed2 2 1 unset
ranks calls4 4 1 1
ranks calls3 3 1 1
ranks map3 3 unset unset
echo "== PageRank and BFS under calls after the link fix (2 shared ranks)"
for app in pagerank bfs; do
ATOS_NVSHMEM_CALLS=1 timeout 300 ./atos bench --app $app --graph data/luxembourg_osm.edges --graph kron:14 --devices 2 --transport nvshmem --share-gpus --partition random:7 --aggregation eager,64:20 --worker cta --fetch 64 --runs 1 --warmup 0 --quiet --out "$out/apps.jsonl" 2>&1 | tail -3
done
python3 -c "
import json,collections
rows=[json.loads(l) for l in open('$out/apps.jsonl')]
print(collections.Counter((r['app'],r['devices'],r['device'][-40:],r['status']) for r in rows))
for r in rows:
    if r['status']!='ok': print('NOT OK', r['app'], r['graph'][-16:], r.get('aggregation'), r.get('error'))"
