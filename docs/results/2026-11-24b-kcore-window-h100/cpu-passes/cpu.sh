#!/usr/bin/env bash
# The far-ring pass work behind "How far ahead" (src/apps/kcore.rs), on the CPU executor (one
# thread, so the order is fixed): kron:16 and delaunay_n16 at windows 1, 4, 8 and unbounded (the
# window clamps to the bound + 1, which queues a vertex at its degree with a push per lowered
# degree: the scheme before a010a63). Run from the repository root on the CPU machine.
set -euo pipefail
out=docs/results/2026-11-24b-kcore-window-h100/cpu-passes
rm -f "$out/records.jsonl"
for w in 1 4 8 4294967295; do
  ./target/release/atos bench --device cpu --cpu-threads 1 --app kcore --graph kron:16 \
    --graph ../shared/data/delaunay_n16.edges --strategy persistent --runs 1 --warmup 0 --quiet \
    --kcore-window $w --out "$out/records.jsonl"
done
python3 - "$out/records.jsonl" <<'PY'
import json,sys
for l in open(sys.argv[1]):
    r=json.loads(l)
    print(r['graph'].split('/')[-1], 'window', r['kcore_window'], r['status'], 'tasks/vertex %.2f' % r['workload_ratio'],
          'advances', r['advances'], 'far examined', r['far_examined'], 'far moved', r['far_moved'])
PY
