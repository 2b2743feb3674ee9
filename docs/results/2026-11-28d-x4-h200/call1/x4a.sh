#!/usr/bin/env bash
# Call 1 of 2026-11-28d on nvidia-h200-x4: main fc239c2 (atos_prev: shared ranges with the
# review's mends, not yet run on a GPU) against wip d3201a0 (atos: empty polls probe the share
# board in the leader's turn), alternated; every run verified. Then a short gpu_suite of wip.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; w=/tmp/x4a; mkdir -p "$out" "$w"; log="$w/x4a.log"
cat .gpu/BUILD_prev.txt .gpu/BUILD.txt > "$log"
nvidia-smi -L >> "$log"; nvidia-smi topo -m > "$w/topo.txt" 2>&1
t0=$(date +%s)
left() { echo $(( ${BUDGET:-200} - ($(date +%s) - t0) )); }
b() { bin=$1; tag=$2; lim=$3; shift 3; [ "$(left)" -lt 10 ] && { echo "skip $tag" >> "$log"; return; }; [ "$lim" -gt "$(left)" ] && lim=$(left); echo "=== $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; timeout $lim .gpu/$bin bench --timeout 30 --quiet --warmup 1 --out "$w/$bin.jsonl" "$@" >> "$log" 2>&1; echo "rc=$? $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; }
.gpu/atos graph convert kron:22 /tmp/k22.acsr > "$w/convert.txt" 2>&1 &
.gpu/atos graph convert grid:4096x4096 /tmp/g4k.acsr >> "$w/convert.txt" 2>&1 &
.gpu/atos graph convert kron:24 /tmp/k24.acsr >> "$w/convert.txt" 2>&1 &
b atos stress-k18 40 --app bfs --graph kron:18 --devices 2,4 --partition edges --aggregation eager,64:20 --worker cta --fetch 8,64 --runs 5
b atos_prev stress-k18 40 --app bfs --graph kron:18 --devices 2,4 --partition edges --aggregation eager,64:20 --worker cta --fetch 8,64 --runs 5
wait
for r in 1 2; do for bin in atos_prev atos; do
  b $bin k22-$r 30 --app bfs --graph /tmp/k22.acsr --devices 1,2,4 --partition edges --aggregation 1024:20 --worker cta --fetch 64 --runs 5
  b $bin grid-$r 40 --app bfs --graph /tmp/g4k.acsr --devices 1,2 --partition vertices --worker cta --fetch 64 --runs 5
  b $bin col-$r 30 --app coloring --graph /tmp/k22.acsr --worker cta --fetch 64 --runs 5
done; done
for bin in atos_prev atos; do
  b $bin k24 40 --app bfs --graph /tmp/k24.acsr --devices 1,2,4 --partition edges --aggregation 1024:20 --worker cta --fetch 64 --runs 3
  b $bin stress-k22v 30 --app bfs --graph /tmp/k22.acsr --devices 2 --partition vertices --aggregation eager,1024:20 --worker cta --fetch 64 --runs 8
done
if [ "$(left)" -gt 60 ]; then
  (cd .gpu && timeout $(( $(left) - 10 )) ./gpu_suite --data data --runs 1 --stress 100 --program-stress 100 --flag-tasks 200000 --graph kron:20 > "$w/suite.log" 2>&1; echo "rc=$?" >> "$w/suite.log")
fi
echo "end t=$(( $(date +%s) - t0 ))" >> "$log"
tar czf "$out/x4a.tgz" -C /tmp x4a; cp "$log" "$out/"
grep -E "^===|rc=[^0]|rror|FAIL|fail|skip|end t|^(g4k|k22|k24|k18|kron\S*) +(atos|bfs|coloring|pagerank|sssp)" "$log" | cut -c1-160
tail -5 "$w/suite.log" 2>/dev/null
