#!/usr/bin/env bash
# Pass hand-off, re-run with builds checked by scripts/gpu-bundle.sh: atos = the work tree (split_sweep), atos_handoff = it + handoff.patch.
# priority program on every worker, then prev (HEAD without it) against new, alternated.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu; cp BUILD.txt BUILD_handoff.txt "$out/"
nvidia-smi --query-gpu=name,driver_version --format=csv > "$out/device.txt"
t0=$(date +%s); stamp() { echo "$1 after $(( $(date +%s) - t0 )) s" >> "$out/times.txt"; }
bench() { local name=$1 to=$2 bin=$3; shift 3; timeout $to ./$bin bench "$@" --quiet --out "$out/$bin.jsonl" > /tmp/b.log 2>&1; echo "rc=$?" >> /tmp/b.log; { echo "== $bin $name"; cat /tmp/b.log; } >> "$out/bench.log"; stamp "$bin $name"; }
./atos graph convert grid:4096x4096,w=100 /tmp/gridw.acsr > /dev/null 2>&1
./atos graph convert kron:22,w=1000 /tmp/kronw.acsr > /dev/null 2>&1; stamp graphs
# (1) correctness, new build: every worker, fetch 1/8/64, slack 0 and default, u32 and f32
S="--graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges --graph data/rome99.gr --graph kron:16,w=100 --graph grid:256x256,w=50 --weights 1000"
V="--worker thread,warp,cta --fetch 1,8,64 --runs 2 --warmup 1 --timeout 20"
bench "check sssp-priority" 200 atos_handoff --app sssp-priority $S $V
bench "check sssp-priority slack0 narrow" 200 atos_handoff --app sssp-priority $S $V --advance-slack 0 --delta-scale 0.0625
bench "check sssp-priority float" 200 atos_handoff --app sssp-priority $S $V --float-weights
bench "check bfs-priority" 200 atos_handoff --app bfs-priority --graph data/luxembourg_osm.edges --graph data/rome99.gr --graph kron:16 --graph grid:256x256 $V
bench "check kcore" 200 atos_handoff --app kcore --graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges --graph kron:16 $V
stamp checks
# (2) timing, prev vs new alternated, cta/8 and cta/64
T="--worker cta --fetch 8,64 --runs 3 --timeout 20"
for r in 1 2; do for b in atos atos_handoff; do
  bench "bfs-priority r$r" 120 $b --app bfs-priority --graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges --graph data/rome99.gr --graph grid:1024x1024 $T
  bench "sssp-priority small r$r" 120 $b --app sssp-priority --graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges --graph data/rome99.gr --weights 1000 $T
  bench "sssp-priority narrow r$r" 120 $b --app sssp-priority --graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges --graph data/rome99.gr --weights 1000 --delta-scale 0.0625 $T
  bench "kcore r$r" 120 $b --app kcore --graph kron:16 --graph kron:18 --graph data/luxembourg_osm.edges $T
done; done
for b in atos atos_handoff; do
  bench "sssp-priority large" 200 $b --app sssp-priority --graph /tmp/gridw.acsr --graph /tmp/kronw.acsr $T
done
bench "sssp fifo small" 120 atos --app sssp --graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges --graph data/rome99.gr --weights 1000 $T
cat "$out/times.txt"
grep -E "rc=|FAIL|WRONG|rror" "$out/bench.log" | sort | uniq -c | head -30
python3 - "$out" <<'PY'
import json,sys,glob,os
for f in sorted(glob.glob(sys.argv[1]+'/*.jsonl')):
    bad=0; n=0
    for l in open(f):
        r=json.loads(l); n+=1
        if r['status']!='ok': bad+=1; print('NOT OK', os.path.basename(f), r['app'], r['graph'], r['worker'], r['fetch'], r['status'])
    print(os.path.basename(f), n, 'records', bad, 'not ok')
PY
python3 - "$out" <<'PY'
import json,sys,collections
t=collections.defaultdict(list)
for b in ['atos','atos_handoff']:
    for l in open(f"{sys.argv[1]}/{b}.jsonl"):
        r=json.loads(l)
        if r['worker']=='cta' and r['fetch'] in (8,64) and r['runs']==3:
            t[(r['app'],r['graph'].split('/')[-1][:16],r['fetch'],r.get('delta'))].append((b,round(r['median_ms'] or 0,3)))
for k,v in sorted(t.items(), key=str): print(k, v)
PY
