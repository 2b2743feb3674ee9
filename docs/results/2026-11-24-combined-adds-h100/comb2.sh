#!/usr/bin/env bash
# Combined adds on 2 devices sharing one H100, PageRank re-scan on kron:22: what the change
# costs without combining (--combine off, against atos_sweep, the previous HEAD), combining
# (--combine on), and combining with 6 blocks per SM (--min-blocks 6: 40 registers, the
# previous HEAD's occupancy). Every run verified.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
log="$out/comb2.log"
cd .gpu
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/device.txt"
t0=$(date +%s)
b() { tag=$1; bin=$2; shift 2; echo "=== $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; timeout 200 ./$bin bench --timeout 30 --quiet --share-gpus --app pagerank-rescan --graph kron:22 --aggregation eager --worker cta --fetch 8 --partition edges --runs 5 --out "$out/comb2-$tag.jsonl" "$@" >> "$log" 2>&1; echo "rc=$? $tag" >> "$log"; }
b sweep atos_sweep --devices 1,2
b off atos_comb --devices 1,2 --combine off
b on atos_comb --devices 2 --combine on
b on-mb6 atos_comb --devices 2 --combine on --min-blocks 6
b off-mb6 atos_comb --devices 2 --combine off --min-blocks 6
OUTDIR="$out" python3 - >> "$log" <<'PY'
import json,glob,os
for f in sorted(glob.glob(os.environ['OUTDIR']+'/comb2-*.jsonl')):
    for l in open(f):
        r=json.loads(l)
        print(os.path.basename(f)[6:-6], r['devices'], r['status'], 'ms %.2f' % (r.get('median_ms') or 0), 'runs', r.get('runs_ms'), 'ratio %.2f' % (r.get('workload_ratio') or 0), 'ops', r.get('device_remote_ops'), 'delivered', r.get('device_delivered'), 'combining', r.get('combining'), 'grid', r['grid'])
PY
grep -v "^graph\|^kron\|^$\|strong scaling" "$log" | tail -c 6000
