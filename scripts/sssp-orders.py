#!/usr/bin/env python3
"""FIFO against priority SSSP in bench records (issue 12's step floor,
docs/results/2026-12-08-step-floor-h100.md).

    python3 scripts/sssp-orders.py RECORDS.jsonl[.gz] ...

Every record must be verified and `ok` (any other is printed first). Runs are grouped by graph,
order and configuration (CTA fetch, blocks). The order: `FIFO` (`--app sssp`), `one band`
(`sssp-priority` with a delta of 4e9 or more: FIFO's schedule on the priority path), or
`delta D` (with `slack S` when not the default 512). Per graph it prints FIFO's fastest
configuration, then per order: its fastest median and configuration, its medians at FIFO's
fastest configuration (one per round, in record order) against FIFO's there, the work (tasks per
reached vertex) of its fastest run and the median over its runs, the median of its threshold
advances, and µs per step (median / max_depth, the fewest-edge shortest path's length).
"""
import collections
import gzip
import json
import statistics
import sys


def records(paths):
    for p in paths:
        with (gzip.open(p, "rt") if p.endswith(".gz") else open(p)) as f:
            for line in f:
                yield json.loads(line)


def order(r):
    if r["app"] == "sssp":
        return "FIFO"
    if r["delta"] >= 4e9:
        return "one band"
    slack = r.get("advance_slack")
    return f'delta {r["delta"]:g}' + (f" slack {slack}" if slack not in (None, 512) else "")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    runs = collections.defaultdict(list)
    for r in records(sys.argv[1:]):
        if not r["app"].startswith("sssp"):
            continue
        if not (r.get("verified") and r.get("status") == "ok"):
            print("NOT OK", r["app"], r["graph"], r.get("status"), r.get("error"))
            continue
        graph = r["graph"].rsplit("/", 1)[-1].split(".")[0]
        runs[(graph, order(r), (r["fetch"], r["grid"][0]))].append(r)
    for graph in sorted({g for g, _, _ in runs}):
        by = {(o, c): rs for (g, o, c), rs in runs.items() if g == graph}
        fifo = {c: rs for (o, c), rs in by.items() if o == "FIFO"}
        if not fifo:
            continue
        best_c = min(fifo, key=lambda c: min(r["median_ms"] for r in fifo[c]))
        ref = [r["median_ms"] for r in fifo[best_c]]
        steps = fifo[best_c][0]["max_depth"]
        print(f"{graph}: {steps} steps; FIFO fastest at cta/{best_c[0]}, {best_c[1]} blocks")
        for o in sorted({o for o, _ in by}, key=lambda o: (o != "FIFO", o)):
            cs = {c: rs for (oo, c), rs in by.items() if oo == o}
            c, rs = min(cs.items(), key=lambda kv: min(r["median_ms"] for r in kv[1]))
            fastest = min(rs, key=lambda r: r["median_ms"])
            best = fastest["median_ms"]
            at = [r["median_ms"] for r in cs.get(best_c, [])]
            work = statistics.median(r["workload_ratio"] for rr in cs.values() for r in rr)
            adv = statistics.median(r.get("advances") or 0 for rr in cs.values() for r in rr)
            ratio = f"{statistics.median(at) / statistics.median(ref):.3f}x FIFO's" if at else "-"
            print(
                f"  {o:22} fastest {best:7.3f} ms (cta/{c[0]}, {c[1]} blocks, {1000 * best / steps:.2f} us/step)"
                f"  at FIFO's: {' '.join(f'{m:.3f}' for m in at) or '-'} ({ratio})"
                f"  work {fastest['workload_ratio']:.2f} (median {work:.2f})  advances {adv:g}"
            )


main()
