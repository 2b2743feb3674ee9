#!/usr/bin/env bash
# 2026-12-06 call 2 (one GPU): the Mesh in constant memory (.gpu/atos) against bbced0e
# (.gpu/atos_prev, the Mesh copied into shared memory). Correctness: gpu_suite --spread-features
# on 2 and 3 devices sharing the GPU (one module per device: each reads its own constant),
# BFS and PageRank over 2 shared devices with a ranges and an owner-map placement. Timing:
# the spread unit on one device (--spread-one) against the one-GPU unit, alternated; the grid
# with --min-blocks 5.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; w=/tmp/d2; mkdir -p "$out" "$w"; log="$w/d2.log"
cat .gpu/BUILD_prev.txt .gpu/BUILD.txt > "$log"; nvidia-smi -L >> "$log"
t0=$(date +%s)
left() { echo $(( ${BUDGET:-480} - ($(date +%s) - t0) )); }
b() { bin=$1; tag=$2; lim=$3; shift 3; [ "$(left)" -lt 10 ] && { echo "skip $tag" >> "$log"; return; }; [ "$lim" -gt "$(left)" ] && lim=$(left); echo "=== $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; timeout $lim .gpu/$bin bench --timeout 30 --warmup 1 --out "$w/$bin.jsonl" "$@" >> "$log" 2>&1; echo "rc=$? $bin $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"; }
.gpu/atos graph convert kron:22 /tmp/k22.acsr > "$w/convert.txt" 2>&1 &
.gpu/atos graph convert grid:4096x4096 /tmp/g4k.acsr >> "$w/convert.txt" 2>&1 &
(cd .gpu && timeout 150 ./gpu_suite --data data --spread-features --spread-devices 2 > "$w/spread2.log" 2>&1; echo "rc=$? t=$(( $(date +%s) - t0 ))" >> "$w/spread2.log")
wait
b atos shared2-bfs 60 --app bfs --graph /tmp/k22.acsr --graph .gpu/data/luxembourg_osm.edges --strategy persistent --worker cta,warp --fetch 64 --runs 2 --devices 2 --share-gpus --partition edges,random:3 --aggregation eager,1024:20:idle
b atos shared2-pr 40 --app pagerank-rescan --graph .gpu/data/luxembourg_osm.edges --graph .gpu/data/delaunay_n16.edges --epsilon 0.01 --strategy persistent --worker cta --fetch 8 --runs 2 --devices 2 --share-gpus --partition edges,random:3
echo "checks end t=$(( $(date +%s) - t0 ))" >> "$log"
for r in 1 2; do for bin in atos_prev atos; do
  b $bin bfs-$r 70 --app bfs --graph /tmp/g4k.acsr --graph /tmp/k22.acsr --graph .gpu/data/luxembourg_osm.edges --strategy persistent --worker cta --fetch 64 --runs 5 --spread-one
  b $bin pr-$r 40 --app pagerank-rescan --graph /tmp/k22.acsr --epsilon 0.01 --strategy persistent --worker cta --fetch 8 --runs 3 --spread-one
done
  # the new spread unit without share (the grid's) took 64 registers (4 blocks of 256 per SM) where bbced0e's took 48: bound it to 5 as a check
  b atos grid-b5-$r 40 --app bfs --graph /tmp/g4k.acsr --strategy persistent --worker cta --fetch 64 --runs 5 --spread-one --min-blocks 5
done
echo "bench end t=$(( $(date +%s) - t0 ))" >> "$log"
[ "$(left)" -gt 90 ] && (cd .gpu && timeout $(( $(left) - 10 )) ./gpu_suite --data data --spread-features --spread-devices 3 > "$w/spread3.log" 2>&1; echo "rc=$? t=$(( $(date +%s) - t0 ))" >> "$w/spread3.log")
tar czf "$out/d2.tgz" -C /tmp d2; cp "$log" "$out/"
grep -E "^===|rc=[^0]|rror|WRONG|skip|end t|^(k22|g4k|luxembourg\S*|delaunay\S*) +atos" "$log" | cut -c1-170
for f in $w/spread2.log $w/spread3.log; do echo "== $f"; grep -E "SUMMARY|FAIL|rc=|panick" $f | head; done
