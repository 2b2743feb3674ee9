#!/usr/bin/env bash
# Graph substrate benchmark (not a test): parse throughput of the text readers, build time,
# generation time of kron:22 and grid:4096x4096, and peak memory against the final CSR.
# Each measurement is its own process, so peak RSS is that load's. Usage:
#   bash scripts/graph-bench.sh [work-dir]     (needs ~1.7 GB of disk in work-dir)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
work="${1:-/tmp/atos-graph-bench}"
mkdir -p "$work"
cargo build --release -q -p atos-cli
atos=target/release/atos
echo "# $(date -u +%F) $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "## inputs"
$atos graph convert kron:20 "$work/kron20.mtx" | tail -1
$atos graph convert kron:20 "$work/kron20.edges" | tail -1
$atos graph convert grid:2048x2048,w=1000 "$work/grid2048.gr" | tail -1
$atos graph convert kron:20 "$work/kron20.acsr" | tail -1
run() {
  echo "## $*"
  for i in 1 2 3; do
    /usr/bin/time -f "wall %e s, max RSS %M KiB" $atos graph info "$@" --quick 2>&1 |
      grep -E '^(read|generate|edges|weights|memory)|wall'
  done
}
run "$work/kron20.mtx"
run "$work/kron20.edges"
run "$work/grid2048.gr"
run "$work/kron20.acsr"
run kron:22
run grid:4096x4096
