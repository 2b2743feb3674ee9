#!/usr/bin/env bash
# 2026-11-25, second session, call 10: a CTA group's kept chain counts `done` once, at its end
# (ATOS_KEPT_DONE_DEFER; this build, `atos`) against HEAD 2109cc7 (`atos_prev`,
# BUILD_prev.txt). Checks first: gpu_suite --dsl-only (the feature task on every worker against
# the CPU executor) and every balanced app at CTA fetch 1/8/64/256 and warp workers, every run
# verified; then 2 rounds of times, the two builds alternated (every run verified too).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
{ nvidia-smi --query-gpu=name,driver_version --format=csv; cat BUILD.txt; echo; cat BUILD_prev.txt; } > "$out/builds.txt"
t0=$(date +%s); stamp() { echo "$1 after $(( $(date +%s) - t0 )) s" >> "$out/checks.log"; }
./atos graph convert kron:16 /tmp/k16.acsr > /dev/null 2>&1
./atos graph convert kron:22 /tmp/k22.acsr > /dev/null 2>&1
./atos graph convert grid:4096x4096 /tmp/g4k.acsr > /dev/null 2>&1; stamp graphs
L=data/luxembourg_osm.edges; D=data/delaunay_n16.edges; R=data/rome99.gr; K=/tmp/k16.acsr
check() { timeout 150 ./atos bench "$@" --runs 2 --quiet --timeout 20 --out "$out/check.jsonl" > /tmp/c.log 2>&1; echo "== $* rc=$?" >> "$out/checks.log"; grep -iE "fail|wrong|error|mismatch|timed out" /tmp/c.log | head -5 >> "$out/checks.log"; }
timeout 200 ./gpu_suite --dsl-only > "$out/dsl.log" 2>&1; echo "== gpu_suite --dsl-only rc=$?" >> "$out/checks.log"; tail -2 "$out/dsl.log" >> "$out/checks.log"; stamp dsl
check --app bfs --graph $L --graph $D --graph $K --graph grid:300x1 --worker cta,warp --fetch 1,8,64,256
check --app sssp --graph $L --graph $K --weights 1000 --worker cta,warp --fetch 1,8,64
check --app sssp-priority --graph $L --graph $D --graph $R --graph $K --weights 1000 --worker cta,warp --fetch 1,8,64,256 --park on
check --app sssp-priority --graph $L --graph $K --weights 1000 --float-weights --worker cta --fetch 8,64 --strategy persistent,discrete,bsp
check --app bfs-priority --graph $L --graph $D --graph $K --worker cta,warp --fetch 1,8,64,256 --strategy persistent,bsp
check --app pagerank --graph $L --graph $K --worker cta,warp --fetch 1,8,64,256 --strategy persistent,discrete
check --app pagerank-rescan --graph $L --graph $K --worker cta,warp --fetch 8,64
check --app pagerank-bsp --graph $L --graph $K --worker cta --fetch 8,64 --strategy bsp
check --app coloring --graph $L --graph $D --graph $K --worker cta,warp --fetch 1,8,64,256 --strategy persistent,bsp
check --app kcore --graph $L --graph $K --worker cta --fetch 1,8,64
stamp checks
for r in 1 2; do
  for b in atos_prev atos; do
    run() { timeout 150 ./$b bench "$@" --runs 5 --quiet --timeout 30 --out "$out/t_$b.jsonl" > /tmp/s.log 2>&1; echo "== $b r$r $2 rc=$?" >> "$out/checks.log"; grep -iE "fail|wrong|error" /tmp/s.log | head -3 >> "$out/checks.log"; }
    run --app bfs --graph grid:100000x1 --graph $L --graph $D --graph /tmp/g4k.acsr --graph /tmp/k22.acsr --worker cta --fetch 8,64
    run --app sssp --graph $L --graph $R --weights 1000 --worker cta --fetch 8,64
    run --app bfs-priority --graph $L --graph $R --worker cta --fetch 64
    run --app pagerank-rescan --graph /tmp/k22.acsr --worker cta --fetch 8,64
    run --app pagerank --graph /tmp/g4k.acsr --graph $L --worker cta --fetch 64,256
    run --app coloring --graph /tmp/k22.acsr --graph /tmp/g4k.acsr --graph $L --worker cta --fetch 8,64
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
    if r['status'] not in ('ok','skipped'): bad+=1; print('CHECK', r['status'], r['app'], r['graph'], r['worker'], r['fetch'], r.get('strategy'), r.get('error'))
print(f'checks: {n} records, {bad} not ok')
rows=collections.OrderedDict()
for b in ('atos_prev','atos'):
    for l in open(f'{out}/t_{b}.jsonl'):
        r=json.loads(l)
        k=(r['app'],r['graph'].split('/')[-1][:14],f"{r['worker']}/{r['fetch']}")
        rows.setdefault(k,{}).setdefault(b,[]).append((r['median_ms'] if r['status']=='ok' else float('nan'), round(r.get('workload_ratio') or 0,3)))
for k,v in rows.items():
    cells=[]
    for b in ('atos_prev','atos'):
        xs=v.get(b,[])
        cells.append(f"{b}: "+'/'.join(f'{x[0]:.3f}' for x in xs)+(f" w={xs[0][1]}" if xs else ""))
    print(' '.join(k),'|',' | '.join(cells))
PY
