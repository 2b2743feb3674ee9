#!/usr/bin/env python3
"""Where a persistent run's time goes (written 2026-12-07 for kron:22's colouring tail).

    python3 scripts/timeline-tail.py FILE.jsonl [SLICES]

For every record with `timeline_queues` (`atos bench --timeline`, persistent GPU runs): its
configuration, the sampled run's length, when 50/90/99% of its tasks were done, and per slice
of the run (SLICES equal slices of time, default 10) the tasks each queue finished in it. Then
one line per record with `phases_us` (`--phases`): its median and the traced run's last batch,
end seen, last exit and event time, in µs after its first block started.
"""
import json
import sys


def at(points, t):
    """Tasks done at time t (the last sample at or before it)."""
    done = 0
    for us, d in points:
        if us > t:
            break
        done = d
    return done


def main() -> None:
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    slices = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    for line in open(sys.argv[1]):
        r = json.loads(line)
        queues = r.get("timeline_queues")
        total = r.get("timeline")
        if not queues or not total:
            continue
        times = [us for us, _ in total]
        end = times[-1]
        last = total[-1][1] or 1
        grid = r["grid"][0] if r.get("grid") else "-"
        print(f'{r["app"]} {r["graph"].split("/")[-1]} {r["strategy"]} {r["worker"]}/{r["fetch"]} '
              f'blocks={grid} split={r.get("split_degree")}: sampled run {end:.0f} us, {last} tasks')
        marks = []
        for share in (0.5, 0.9, 0.99, 1.0):
            t = next(us for us, d in total if d >= share * last)
            marks.append(f"{share:.0%} at {t:.0f} us")
        print("  " + ", ".join(marks))
        print("  slice (us)      " + " ".join(f"{name:>10}" for name, _ in queues))
        for k in range(slices):
            lo, hi = end * k / slices, end * (k + 1) / slices
            row = []
            for _, done in queues:
                pts = list(zip(times, done))
                row.append(at(pts, hi) - (at(pts, lo) if k else 0))
            print(f"  {lo:6.0f}-{hi:6.0f}  " + " ".join(f"{n:>10}" for n in row))
    for line in open(sys.argv[1]):
        r = json.loads(line)
        if r.get("phases_us"):
            grid = r["grid"][0] if r.get("grid") else "-"
            print("phases", r["app"], r["graph"].split("/")[-1], f'{r["worker"]}/{r["fetch"]}',
                  f"blocks={grid}", "median", r.get("median_ms"),
                  "work/stop/exit/event us", [round(x, 1) for x in r["phases_us"]])


if __name__ == "__main__":
    main()
