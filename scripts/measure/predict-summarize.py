#!/usr/bin/env python3
"""Table of predicted vs measured images/s for dev/predict/validate_netns.sh's cases (OUTDIR/cases.tsv and the
per-run files in OUTDIR/raw/ or, as committed under results/predict, in OUTDIR/raw.tar.xz holding raw/).

A case run several times (alternating profile and two-rank run) is the median of each figure over its runs. Beside
each prediction stands the naive forecast, 2 x the 1-device rate (linear scaling, no model), and its error.
Given several OUTDIRs, each gets its table.md and stdout gets one line per run: both link models and the naive
forecast side by side (the range over validation campaigns)."""
import fnmatch
import json
import os
import re
import statistics
import sys
import tarfile


class Raw:
    """A campaign's raw/ files, from the folder when there is one, else from the raw.tar.xz beside it."""

    def __init__(self, out):
        self.dir = f"{out}/raw"
        self.tar = None
        if not os.path.isdir(self.dir) and os.path.exists(f"{out}/raw.tar.xz"):
            self.tar = tarfile.open(f"{out}/raw.tar.xz", "r:xz")
            self.members = {m.name[len("raw/"):]: m for m in self.tar.getmembers()
                            if m.isfile() and m.name.startswith("raw/")}
        elif not os.path.isdir(self.dir):
            raise FileNotFoundError(f"{out}: neither raw/ nor raw.tar.xz")

    def names(self):
        return list(self.members) if self.tar else os.listdir(self.dir)

    def exists(self, name):
        return name in self.members if self.tar else os.path.exists(f"{self.dir}/{name}")

    def text(self, name):
        if self.tar:
            if name not in self.members:
                raise FileNotFoundError(f"raw/{name} is not in the campaign's raw.tar.xz")
            return self.tar.extractfile(self.members[name]).read().decode()
        return open(f"{self.dir}/{name}").read()

    def json(self, name):
        return json.loads(self.text(name))

    def glob(self, pattern):
        return sorted(n for n in self.names() if fnmatch.fnmatchcase(n, pattern))

def two_ranks(doc):
    return next(r for r in doc["runs"] if r["devices"] == 2)


def repetition(raw, stem, dtype):
    """One alternating repetition of a case: its profile, its two-rank run and the predictions from that profile."""
    meas = two_ranks(raw.json(f"{stem}.measured.json"))
    prof = raw.json(f"{stem}.profile.json")["runs"][0]
    rep = dict(profile=prof["images_per_sec"], naive=2 * prof["images_per_sec"], measured=meas["images_per_sec"],
               meas_exposed=meas["breakdown"]["comm_exposed_s"] * 1e3, meas_comm=meas["allreduce"]["time_s"] * 1e3)
    for kind in ("comm", "spec"):
        p = two_ranks(raw.json(f"{stem}.pred_{kind}.json"))
        rep[kind] = p["images_per_sec"]
        rep[kind + "_comm"] = p["allreduce"]["time_s"] * 1e3
        rep[kind + "_exposed"] = p["breakdown"]["comm_exposed_s"] * 1e3
        if kind == "comm":
            rep["pred_bwd"] = p["breakdown"]["backward_s"] * 1e3  # holds the outgoing wire casts with overlap
    # Compute on both sides: the profile's parts (scaled to its headline rate, as predict uses them) and the
    # two-rank run's.
    pb, mb = prof["breakdown"], meas["breakdown"]
    scale = (prof["global_batch"] / prof["images_per_sec"]) / pb["total_s"]
    rep["prof_fwd"], rep["prof_bwd"] = pb["forward_s"] * scale * 1e3, pb["backward_s"] * scale * 1e3
    rep["meas_fwd"], rep["meas_bwd"] = mb["forward_s"] * 1e3, mb["backward_s"] * 1e3
    c = next((c for c in prof.get("wire_casts", []) if c["dtype"] == dtype), None)
    elems = sum(g["elements"] for g in prof["gradient_layers"])
    rep["cast_ms"] = (f"{c['to_wire_s_per_element'] * elems * 1e3:.1f} / {c['from_wire_s_per_element'] * elems * 1e3:.1f}"
                      if c else ("-" if dtype == "fp32" else "not in profile"))
    return rep


KINDS = (("comm", "comm-curve link"), ("spec", "tc-spec link"), ("naive", "naive 2 x 1-device"))


def case_rows(out, raw):
    rows = []
    for line in open(f"{out}/cases.tsv"):
        fields = line.rstrip("\n").split("\t")
        name, rate, model, bucket, overlap, dtype, load, when = fields[:8]
        delay = fields[8] if len(fields) > 8 else "0"  # older runs (veth, no delay line) have 8 columns
        repeats = int(fields[9]) if len(fields) > 9 else 1  # and runs before 2026-11-27 one repetition per case
        reps = [repetition(raw, name if k == 1 else f"{name}.r{k}", dtype) for k in range(1, repeats + 1)]
        # A case is the median over its alternating repetitions of every figure, the prediction from each
        # repetition's own profile; the error compares the median prediction with the median measurement.
        row = {key: statistics.median(r[key] for r in reps) for key in reps[0] if key != "cast_ms"}
        row.update(name=name, rate=rate, model=model, bucket=bucket, overlap=overlap, dtype=dtype, load=load,
                   when=when, delay=delay, repeats=repeats, cast_ms=reps[0]["cast_ms"],
                   meas_range=(min(r["measured"] for r in reps), max(r["measured"] for r in reps)))
        for kind, _ in KINDS:
            row[kind + "_err"] = (row[kind] - row["measured"]) / row["measured"]
        rows.append(row)
    return rows


def stats(sel, kind):
    errs = [abs(r[kind + "_err"]) for r in sel]
    return dict(n=len(errs), median=statistics.median(errs), max=max(errs), in15=sum(e <= 0.15 for e in errs),
                in5=sum(e <= 0.05 for e in errs))


def summary_line(label, sel, kind):
    s = stats(sel, kind)
    return (f"{label}: {s['n']} cases, median |error| {100*s['median']:.1f} %, max {100*s['max']:.1f} %, "
            f"within 15 %: {s['in15']}/{s['n']}, within 5 %: {s['in5']}/{s['n']}")


def render(raw, rows):
    lines = ["| case | link | delay ms | model | bucket MiB | overlap | wire | 1-dev img/s | measured 2-rank img/s | naive 2 x 1-dev | error | predicted (comm curve) | error | predicted (tc spec) | error | measured comm / exposed ms | predicted comm / exposed ms | load |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        measured = f"{r['measured']:.1f}"
        if r["repeats"] > 1:
            measured += f" ({r['meas_range'][0]:.0f}–{r['meas_range'][1]:.0f}, {r['repeats']} runs)"
        lines.append(f"| {r['name']} | {r['rate']} | {r['delay']} | {r['model']} | {r['bucket']} | {r['overlap']} | "
                     f"{r['dtype']} | {r['profile']:.1f} | {measured} | {r['naive']:.1f} | {100*r['naive_err']:+.1f} % | "
                     f"{r['comm']:.1f} | {100*r['comm_err']:+.1f} % | {r['spec']:.1f} | {100*r['spec_err']:+.1f} % | "
                     f"{r['meas_comm']:.1f} / {r['meas_exposed']:.1f} | {r['comm_comm']:.1f} / {r['comm_exposed']:.1f} | "
                     f"{r['load']} |")
    for kind, label in KINDS:
        lines += ["", summary_line(label, rows, kind)]
        groups = [("delay " + d + " ms", [r for r in rows if r["delay"] == d]) for d in sorted({r["delay"] for r in rows})]
        groups += [(m, [r for r in rows if r["model"] == m]) for m in sorted({r["model"] for r in rows})]
        groups += [("wire " + w, [r for r in rows if r["dtype"] == w]) for w in sorted({r["dtype"] for r in rows})]
        if len(rows) > 1:
            for g, sel in groups:
                if 0 < len(sel) < len(rows):
                    lines += ["", summary_line(f"{label}, {g}", sel, kind)]
    lines += ["", "Compute, ms per step: the profile (scaled to its headline rate, as predict uses it) against the two-rank "
              "run; the predicted backward includes the outgoing casts with overlap. Casts: the profile's wire_casts "
              "over the whole gradient, out / back (the first run's profile where a case has several).", "",
              "| case | profile fwd / bwd | measured fwd / bwd | predicted bwd | measured - profile, fwd + bwd | casts out / back |",
              "|---|---|---|---|---|---|"]
    for r in rows:
        extra = r["meas_fwd"] + r["meas_bwd"] - r["prof_fwd"] - r["prof_bwd"]
        lines.append(f"| {r['name']} | {r['prof_fwd']:.1f} / {r['prof_bwd']:.1f} | {r['meas_fwd']:.1f} / {r['meas_bwd']:.1f} | "
                     f"{r['pred_bwd']:.1f} | {extra:+.1f} | {r['cast_ms']} |")
    lines += link_table(raw)
    return "\n".join(lines) + "\n"


def rate_of(path):  # r100d0, q100d2, ...: the rate in Mbit/s, for the table's order
    m = re.match(r"[a-z]+(\d+)d", os.path.basename(path))
    return int(m.group(1)) if m else 0


def link_table(raw):
    """What each link really did (raw/<link>_linkcheck.txt, raw/<link>_wire.txt), when the run has a delay line."""
    links = []
    for check in sorted(raw.glob("*_linkcheck.txt"), key=lambda f: (rate_of(f), f)):
        tag = check[: -len("_linkcheck.txt")]
        m = re.search(r"rtt median ([\d.]+) ms \(p10 ([\d.]+), p90 ([\d.]+).*at ([\d.]+) Mbit/s", raw.text(check))
        wire = raw.text(f"{tag}_wire.txt") if raw.exists(f"{tag}_wire.txt") else ""
        dirs = re.findall(r"delay ([\d.]+) ms.*?(\d+) dropped.*?lateness mean ([\d.]+) us max ([\d.]+) us", wire)
        cpu = re.search(r"cpu: ([\d.]+) s user, ([\d.]+) s system", wire)
        if not (m and dirs and cpu):
            continue
        links.append(f"| {tag} | {m.group(1)} ms ({m.group(2)}–{m.group(3)}) | {m.group(4)} Mbit/s | "
                     f"{sum(int(d[1]) for d in dirs)} | {statistics.mean(float(d[2]) for d in dirs):.0f} µs / "
                     f"{max(float(d[3]) for d in dirs) / 1e3:.1f} ms | {float(cpu.group(1)) + float(cpu.group(2)):.1f} s |")
    if not links:
        return []
    return ["", "| link | TCP round trip, median (p10–p90) | bulk TCP | frames dropped | delivery after due time, mean / max "
            "| delay-line CPU (user + system) |", "|---|---|---|---|---|---|"] + links


def campaigns(runs):
    """One line per run: median |error|, cases within 15 % and the worst case, per link model and for the naive forecast."""
    head = "| run | cases |" + "".join(f" {label}: median / within 15 % / max |" for _, label in KINDS)
    lines = [head, "|---|---|" + "---|" * len(KINDS)]
    for out, rows in runs:
        cells = []
        for kind, _ in KINDS:
            s = stats(rows, kind)
            cells.append(f" {100*s['median']:.1f} % / {s['in15']}/{s['n']} / {100*s['max']:.1f} % |")
        lines.append(f"| {os.path.basename(os.path.normpath(out))} | {len(rows)} |" + "".join(cells))
    return "\n".join(lines) + "\n"


def main(outs):
    runs = []
    for out in outs:
        raw = Raw(out)
        rows = case_rows(out, raw)
        text = render(raw, rows)
        open(f"{out}/table.md", "w").write(text)
        runs.append((out, rows))
        if len(outs) == 1:
            print(text)
    if len(outs) > 1:
        print(campaigns(runs), end="")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print("usage: predict-summarize.py OUTDIR [OUTDIR...]", file=sys.stderr)
        sys.exit(2)
    try:
        main(sys.argv[1:])
    except (OSError, tarfile.TarError, ValueError, KeyError) as e:  # a missing or damaged campaign, not a bug here
        print(f"predict-summarize.py: {e}", file=sys.stderr)
        sys.exit(2)
