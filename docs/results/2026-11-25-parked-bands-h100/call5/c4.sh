#!/usr/bin/env bash
# Call 5: the landed build (`--park` per app: bfs-priority and kcore on, sssp-priority off), parking only when the whole next-ring stage fits (this build, `atos`) against HEAD
# c3a5292 (`atos_prev`): verified checks of the parking paths, gpu_suite --priority-only, then
# one round of times alternated (every run verified by the bench). (Call 6 ran this script too.)
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
{ nvidia-smi --query-gpu=name,driver_version --format=csv; cat BUILD.txt; echo; cat BUILD_prev.txt; } > "$out/builds.txt"
t0=$(date +%s); stamp() { echo "$1 after $(( $(date +%s) - t0 )) s" >> "$out/checks.log"; }
./atos graph convert kron:16,w=100 /tmp/k16w.acsr > /dev/null 2>&1
./atos graph convert kron:16 /tmp/k16.acsr > /dev/null 2>&1
./atos graph convert kron:18 /tmp/k18.acsr > /dev/null 2>&1
./atos graph convert kron:22,w=1000 /tmp/k22w.acsr > /dev/null 2>&1
./atos graph convert grid:1024x1024 /tmp/g1k.acsr > /dev/null 2>&1
./atos graph convert grid:256x256 /tmp/g256.acsr > /dev/null 2>&1; stamp graphs
L=data/luxembourg_osm.edges; D=data/delaunay_n16.edges; R=data/rome99.gr
check() { timeout 150 ./atos bench "$@" --runs 5 --quiet --timeout 20 --out "$out/check.jsonl" > /tmp/c.log 2>&1; echo "== $* rc=$?" >> "$out/checks.log"; grep -iE "fail|wrong|error|mismatch|timed out" /tmp/c.log | head -5 >> "$out/checks.log"; }
for slack in 0 512; do
  check --app sssp-priority --graph $L --graph $D --graph $R --graph /tmp/k16w.acsr --graph /tmp/g256.acsr --weights 1000 --worker cta --fetch 1,8,64 --advance-slack $slack --park on
done
check --app sssp-priority --graph $L --graph $D --graph $R --weights 1000 --worker cta --fetch 8,64 --advance-slack 0 --delta-scale 0.0625 --park on
check --app sssp-priority --graph $L --graph /tmp/k16w.acsr --weights 1000 --float-weights --worker cta --fetch 8,64 --park on
check --app bfs-priority --graph $L --graph $D --graph $R --graph /tmp/g256.acsr --graph /tmp/k16.acsr --worker cta --fetch 1,8,64,256
check --app kcore --graph /tmp/k16.acsr --graph $L --graph $D --worker cta --fetch 1,8,64
stamp checks
timeout 200 ./gpu_suite --priority-only > "$out/priority.log" 2>&1; echo "== gpu_suite --priority-only rc=$?" >> "$out/checks.log"; tail -1 "$out/priority.log" >> "$out/checks.log"
stamp suite
for r in 1; do
  for b in atos_prev atos; do
    run() { timeout 150 ./$b bench "$@" --runs 5 --quiet --timeout 20 --out "$out/t_$b.jsonl" > /tmp/s.log 2>&1; echo "== $b r$r $2 rc=$?" >> "$out/checks.log"; grep -iE "fail|wrong|error" /tmp/s.log | head -3 >> "$out/checks.log"; }
    run --app bfs-priority --graph $L --graph $D --graph $R --graph /tmp/g1k.acsr --worker cta --fetch 8,64
    run --app sssp-priority --graph $L --graph $D --graph $R --weights 1000 --worker cta --fetch 8,64
    run --app sssp-priority --graph /tmp/k22w.acsr --worker cta --fetch 64
    run --app kcore --graph /tmp/k18.acsr --graph $L --worker cta --fetch 8
  done
  stamp "round $r"
done
grep -v "rc=0$" "$out/checks.log" | grep -v "^== " ; grep -c "rc=0$" "$out/checks.log"
python3 - "$out" <<'PY' | tee "$out/summary.txt"
import json,sys,collections
out=sys.argv[1]
bad=0; n=0
for l in open(out+'/check.jsonl'):
    r=json.loads(l); n+=1
    if r['status']!='ok': bad+=1; print('CHECK', r['status'], r['app'], r['graph'], r['worker'], r['fetch'], r.get('strategy'))
print(f'checks: {n} records, {bad} not ok')
rows=collections.OrderedDict()
for b in ('atos_prev','atos'):
    for l in open(f'{out}/t_{b}.jsonl'):
        r=json.loads(l)
        k=(r['app'],r['graph'].split('/')[-1][:14],f"{r['worker']}/{r['fetch']}",str(r.get('delta')),str(r.get('advance_slack')))
        rows.setdefault(k,{}).setdefault(b,[]).append((r['median_ms'] if r['status']=='ok' else float('nan'), round(r.get('workload_ratio') or 0,3), r.get('advances'), r.get('park')))
for k,v in rows.items():
    cells=[]
    for b in ('atos_prev','atos'):
        xs=v.get(b,[])
        cells.append(f"{b}: "+'/'.join(f'{x[0]:.3f}' for x in xs)+(f" w={xs[0][1]} adv={xs[0][2]} park={xs[0][3]}" if xs else ""))
    print(' '.join(k),'|',' | '.join(cells))
PY
