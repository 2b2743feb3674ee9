#!/usr/bin/env bash
# 2026-11-29 (second session) call 6 (one H100): PageRank re-scan at cta/64 spread on one device,
# the unit whose registers the smaller spread units changed (48 -> 40, kernel_resources.rs):
# `atos` (5162046, the same device code as call 5) against `atos_base` (edeaabf), alternated.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 ATOS_CACHE_DIR=/tmp/atos-kernels
out="${OUT:-.gpu/out}"; w=/tmp/c6; mkdir -p "$out" "$w"; log="$w/c6.log"
cat .gpu/BUILD_base.txt .gpu/BUILD.txt > "$log"
.gpu/atos graph convert kron:22 /tmp/k22.acsr > "$w/convert.txt" 2>&1
for r in 1 2; do for bin in atos atos_base; do
  echo "=== $bin $r" >> "$log"
  timeout 60 .gpu/$bin bench --timeout 30 --warmup 1 --out "$w/$bin-$r.jsonl" --app pagerank-rescan --graph /tmp/k22.acsr --graph .gpu/data/luxembourg_osm.edges --epsilon 0.01 --strategy persistent --worker cta --fetch 64 --runs 3 --spread-one >> "$log" 2>&1; echo "rc=$?" >> "$log"
done; done
tar czf "$out/c6.tgz" -C /tmp c6; cp "$log" "$out/"
grep -E "^===|rc=|^(k22|luxembourg\S*) +atos" "$log" | cut -c1-120
