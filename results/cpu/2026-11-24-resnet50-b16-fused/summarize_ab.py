#!/usr/bin/env python3
"""Before/after table of a before-after/ folder: img/s per round, median, ratio, peak memory."""
import glob
import json
import statistics
import sys

d = sys.argv[1] if len(sys.argv) > 1 else "before-after"
rows = {}
for side in ("before", "after"):
    runs = []
    for f in sorted(glob.glob(f"{d}/{side}-*.json"), key=lambda p: int(p.rsplit("-", 1)[1].split(".")[0])):
        r = json.load(open(f))["runs"][0]
        runs.append((r["images_per_sec_from_steps"], r["peak_memory_bytes"], r.get("device_memory_in_use_bytes", 0)))
    rows[side] = runs
for side, runs in rows.items():
    ips = [x[0] for x in runs]
    print(f"{side:<7} img/s per round: {', '.join(f'{v:.2f}' for v in ips)}  median {statistics.median(ips):.2f}"
          f"  peak {runs[0][1] / 2**30:.3f} GiB  process {runs[0][2] / 2**30:.3f} GiB")
b = statistics.median(x[0] for x in rows["before"])
a = statistics.median(x[0] for x in rows["after"])
pairs = [x[0] / y[0] for x, y in zip(rows["after"], rows["before"])]
print(f"after / before: {a / b:.3f} (median of medians); per round {', '.join(f'{p:.3f}' for p in pairs)}")
