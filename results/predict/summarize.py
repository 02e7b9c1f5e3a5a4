#!/usr/bin/env python3
"""Table of predicted vs measured images/s for validate_netns.sh's cases (OUTDIR/cases.tsv, OUTDIR/raw/)."""
import json
import statistics
import sys

out = sys.argv[1]
rows = []
for line in open(f"{out}/cases.tsv"):
    fields = line.rstrip("\n").split("\t")
    name, rate, model, bucket, overlap, dtype, load, when = fields[:8]
    delay = fields[8] if len(fields) > 8 else "0"  # older runs (veth, no delay line) have 8 columns
    meas = json.load(open(f"{out}/raw/{name}.measured.json"))
    prof = json.load(open(f"{out}/raw/{name}.profile.json"))
    m2 = next(r for r in meas["runs"] if r["devices"] == 2)
    row = dict(name=name, rate=rate, model=model, bucket=bucket, overlap=overlap, dtype=dtype,
               load=load, when=when, profile=prof["runs"][0]["images_per_sec"], measured=m2["images_per_sec"],
               meas_exposed=m2["breakdown"]["comm_exposed_s"] * 1e3, meas_comm=m2["allreduce"]["time_s"] * 1e3)
    for kind in ("comm", "spec"):
        p = json.load(open(f"{out}/raw/{name}.pred_{kind}.json"))
        p2 = next(r for r in p["runs"] if r["devices"] == 2)
        row[kind] = p2["images_per_sec"]
        row[kind + "_err"] = (p2["images_per_sec"] - row["measured"]) / row["measured"]
        row[kind + "_comm"] = p2["allreduce"]["time_s"] * 1e3
        row[kind + "_exposed"] = p2["breakdown"]["comm_exposed_s"] * 1e3
    row["delay"] = delay
    rows.append(row)

lines = ["| case | link | delay ms | model | bucket MiB | overlap | wire | 1-dev img/s | measured 2-rank img/s | predicted (comm curve) | error | predicted (tc spec) | error | measured comm / exposed ms | predicted comm / exposed ms | load |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
for r in rows:
    lines.append(f"| {r['name']} | {r['rate']} | {r['delay']} | {r['model']} | {r['bucket']} | {r['overlap']} | {r['dtype']} | "
                 f"{r['profile']:.1f} | {r['measured']:.1f} | {r['comm']:.1f} | {100*r['comm_err']:+.1f} % | "
                 f"{r['spec']:.1f} | {100*r['spec_err']:+.1f} % | {r['meas_comm']:.1f} / {r['meas_exposed']:.1f} | "
                 f"{r['comm_comm']:.1f} / {r['comm_exposed']:.1f} | {r['load']} |")
def summary(label, sel, kind):
    errs = [abs(r[kind + "_err"]) for r in sel]
    if errs:
        lines.append("")
        lines.append(f"{label}: {len(errs)} cases, median |error| {100*statistics.median(errs):.1f} %, "
                     f"max {100*max(errs):.1f} %, within 15 %: {sum(e <= 0.15 for e in errs)}/{len(errs)}, "
                     f"within 5 %: {sum(e <= 0.05 for e in errs)}/{len(errs)}")


for kind, label in (("comm", "comm-curve link"), ("spec", "tc-spec link")):
    summary(label, rows, kind)
    groups = [("delay " + d + " ms", [r for r in rows if r["delay"] == d]) for d in sorted({r["delay"] for r in rows})]
    groups += [(m, [r for r in rows if r["model"] == m]) for m in sorted({r["model"] for r in rows})]
    groups += [("wire " + w, [r for r in rows if r["dtype"] == w]) for w in sorted({r["dtype"] for r in rows})]
    if len(rows) > 1:
        for g, sel in groups:
            if 0 < len(sel) < len(rows):
                summary(f"{label}, {g}", sel, kind)
text = "\n".join(lines) + "\n"
open(f"{out}/table.md", "w").write(text)
print(text)
