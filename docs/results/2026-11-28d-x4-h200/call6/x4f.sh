#!/usr/bin/env bash
# Call 6 of 2026-11-28d on nvidia-h200-x4, build 0d0619b (.gpu/atos): the NVSHMEM transport
# (one process per GPU, mappings, the bench starting its ranks) on 2 and 4 GPUs with shared
# ranges: kron:22 and kron:24 BFS, kron:22 PageRank re-scan, luxembourg_osm BFS. Every run
# verified by every rank.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; w=/tmp/x4f; mkdir -p "$out" "$w"; log="$w/x4f.log"
cat .gpu/BUILD.txt > "$log"; nvidia-smi -L >> "$log"
t0=$(date +%s)
left() { echo $(( ${BUDGET:-200} - ($(date +%s) - t0) )); }
b() { bin=$1; tag=$2; lim=$3; shift 3; [ "$(left)" -lt 10 ] && { echo "skip $tag" >> "$log"; return; }; [ "$lim" -gt "$(left)" ] && lim=$(left); echo "=== $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; timeout $lim .gpu/$bin bench --timeout 30 --warmup 1 --out "$w/$bin.jsonl" "$@" >> "$log" 2>&1; echo "rc=$? $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; }
.gpu/atos graph convert kron:22 /tmp/k22.acsr > "$w/convert.txt" 2>&1 &
.gpu/atos graph convert kron:24 /tmp/k24.acsr >> "$w/convert.txt" 2>&1 &
wait
NVL=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nvshmem/lib
export LD_LIBRARY_PATH="$NVL:$LD_LIBRARY_PATH"
b atos lux-nv4 40 --app bfs --graph .gpu/data/luxembourg_osm.edges --devices 4 --transport nvshmem --partition vertices --aggregation eager,64:20 --worker cta --fetch 64 --runs 3
b atos k22-nv2 40 --app bfs --graph /tmp/k22.acsr --devices 1,2 --transport nvshmem --partition edges --aggregation 4096:50 --worker cta --fetch 64 --runs 5
b atos k22-nv4 40 --app bfs --graph /tmp/k22.acsr --devices 1,4 --transport nvshmem --partition edges --aggregation 4096:50 --worker cta --fetch 64 --runs 5
b atos k24-nv4 70 --app bfs --graph /tmp/k24.acsr --devices 1,4 --transport nvshmem --partition edges --aggregation 4096:50 --worker cta --fetch 64 --runs 3
b atos k22-pr-nv4 60 --app pagerank-rescan --graph /tmp/k22.acsr --devices 1,4 --transport nvshmem --partition edges --worker cta --fetch 8 --runs 3
echo "end t=$(( $(date +%s) - t0 ))" >> "$log"
tar czf "$out/x4f.tgz" -C /tmp x4f; cp "$log" "$out/"
grep -E "^===|rc=[^0]|rror|FAIL|fail|skip|end t|^(k22|k24|lux\S*) +(bfs|pagerank\S*) " "$log" | cut -c1-140
