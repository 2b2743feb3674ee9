#!/usr/bin/env python3
"""Summarizes the bench records a device call wrote (scripts/device-lib.sh: $w/<bin>.jsonl).

    python3 scripts/records-summary.py DIR [BIN ...]     (default BINs: atos_prev atos)

Prints every record that is not verified and `ok` (NOT OK ...), then one line per configuration
and build: graph, strategy, worker/fetch, the options that set it apart (split degree and
fetch, min blocks, devices, delta, idle nap, the launch's blocks x threads), the build, and each run's (median ms, tasks per vertex, colours or depth),
in record order. Written 2026-12-06 from the summary every device script of that day repeated
(the recorded scripts under docs/results stay as they ran).
"""
import collections
import json
import sys


def main() -> None:
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    folder, bins = sys.argv[1], sys.argv[2:] or ["atos_prev", "atos"]
    rows = collections.defaultdict(list)
    for b in bins:
        try:
            lines = open(f"{folder}/{b}.jsonl").read().splitlines()
        except FileNotFoundError:
            continue
        for line in lines:
            r = json.loads(line)
            if not (r.get("verified") and r.get("status") == "ok"):
                # The original's rows in atos's files are never `verified` (their own checks
                # judge them): only a failed or skipped one is news.
                if r.get("impl") != "original" or r.get("status") != "ok":
                    print("NOT OK", b, r.get("impl"), r.get("binary") or "", r.get("app"), r.get("graph"), r.get("status"))
                if r.get("median_ms") is None:
                    continue
            extra = [f"{k}={r[k]}" for k in ("split_degree", "split_big_fetch", "tie_skip", "wide_window", "min_blocks", "devices", "delta") if r.get(k)]
            extra += [f"{k}={r[k]}" for k in ("idle_nap_ns", "idle_nap_doublings", "inline_check", "hub_windows", "hubs_by_degree", "fused_check", "share", "stamped_rings", "chunked_publish") if r.get(k) is not None]
            if r.get("grid"):
                extra.append(f"blocks={r['grid'][0]}x{r['grid'][1]}")
            name = b if r.get("impl") != "original" else f'{b}:{r.get("binary")} -i {r.get("idle")}'
            key = (r["app"], r["graph"].split("/")[-1], r["strategy"], f'{r["worker"]}/{r["fetch"]}', " ".join(extra), name)
            work = r.get("workload_ratio")
            rows[key].append((round(r["median_ms"], 3), round(work, 3) if work else None, r.get("colors") or r.get("max_depth")))
    for key, runs in sorted(rows.items(), key=str):
        print(*[k for k in key if k], runs)


if __name__ == "__main__":
    main()
