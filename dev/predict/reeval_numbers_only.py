#!/usr/bin/env python3
"""Offline re-evaluation of the numbers-only link model: every committed netns campaign's cases predicted again
with `mgbench predict` from the committed profiles and the same tc numbers, as `transport=gloo-tcp` links
(docs/predict.md), beside the committed predictions (comm curve, old `bw=,lat=`) and the naive forecast.

  MGBENCH=build/mgbench [PREVIOUS=OLD_OUTDIR/cases.json.xz] dev/predict/reeval_numbers_only.py OUTDIR CAMPAIGN_DIR...

Writes OUTDIR/table.md (median and max |error| per campaign and link model, then every case), OUTDIR/curves.md
(each link's measured all-reduce curve beside both models, size by size) and OUTDIR/cases.json.xz (per case and
repetition: measured and predicted images/s). PREVIOUS: an earlier re-evaluation's cases.json.xz, whose "new"
prediction is set beside this one as "previous numbers-only". The link of a case is
bw=<rate>,lat=<delay>ms,transport=gloo-tcp,mtu=9000,burst=256kb: the MTU and tbf burst validate_netns.sh gives
both TAP devices."""
import concurrent.futures
import importlib.util
import json
import lzma
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MTU = 9000  # validate_netns.sh: `ip link set ... mtu 9000` on both TAP devices
# validate_netns.sh: `tc qdisc ... tbf rate R burst 256kb latency 400ms` on both TAP devices
BURST, BURST_B = "256kb", 256 * 1024
KINDS = (("comm", "comm curve (committed)"), ("spec", "old numbers-only (committed)"),
         ("new", "new numbers-only (transport=gloo-tcp)"), ("naive", "naive 2 x 1-device"))
PREV_KIND = ("prev", "previous numbers-only (PREVIOUS)")


def summarize_module():
    """scripts/measure/predict-summarize.py: its case reader."""
    path = os.path.join(ROOT, "scripts", "measure", "predict-summarize.py")
    spec = importlib.util.spec_from_file_location("predict_summarize", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def link_spec(rate, delay_ms):
    return f"bw={rate},lat={delay_ms}ms,transport=gloo-tcp,mtu={MTU},burst={BURST}"


def predict(mgbench, raw, stem, link):
    out = f"{raw}/{stem}.pred_new.json"
    cmd = [mgbench, "predict", "--profile", f"{raw}/{stem}.profile.json", "--gpus", "2", "--link", link,
           "--json", out]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {r.returncode}: {r.stderr.strip()}")
    return next(x for x in json.load(open(out))["runs"] if x["devices"] == 2)["images_per_sec"]


def campaign(mgbench, summ, folder, pool):
    """One campaign's cases with the new prediction added: summarize's rows, each with 'new' and 'new_err'."""
    with tempfile.TemporaryDirectory() as tmp:
        with tarfile.open(f"{folder}/raw.tar.xz", "r:xz") as t:
            t.extractall(tmp, filter="data")
        with open(f"{folder}/cases.tsv") as src, open(f"{tmp}/cases.tsv", "w") as dst:
            dst.write(src.read())
        jobs = {}
        for line in open(f"{tmp}/cases.tsv"):
            f = line.rstrip("\n").split("\t")
            name, rate = f[0], f[1]
            delay = f[8] if len(f) > 8 else "0"
            repeats = int(f[9]) if len(f) > 9 else 1
            for k in range(1, repeats + 1):
                stem = name if k == 1 else f"{name}.r{k}"
                jobs[(name, k)] = pool.submit(predict, mgbench, f"{tmp}/raw", stem, link_spec(rate, delay))
        rows = summ.case_rows(tmp, summ.Raw(tmp))
        for row in rows:
            news = [jobs[(row["name"], k)].result() for k in range(1, row["repeats"] + 1)]
            row["new"] = statistics.median(news)
            row["new_runs"] = news
            row["new_err"] = (row["new"] - row["measured"]) / row["measured"]
            row["link"] = link_spec(row["rate"], row["delay"])
    return rows


# src/predict/gloo_tcp_cost.{h,cpp} restated, to set the models beside the comm curves size by size.
STEP_S, WAKE_S, WIRE = 0.506e-3 / 2, 3.390e-3 - 0.506e-3, (MTU + 14 + 66 / 2) / (MTU - 52)
PAYLOAD, IW, RTO_MIN = MTU - 52, 10, 0.2
GAP_S = 0.01  # the comm curves' --gap: the idle time before an all-reduce timed after compute
LONG_IDLE_S = 1.0  # a step with a second of compute: what the window restart adds there (no campaign measured it)


def window_after_idle(w, idle, rto):
    if not idle > rto:
        return w
    restart, left = min(IW, w), idle - rto
    while left > 0 and w > restart:
        w, left = w // 2, left - rto
    return max(w, restart)


def window_delay(segs, w, rtt, frame, rate):
    extra = 0.0
    while segs > w:
        extra += max(0.0, rtt - w * frame / rate)
        segs, w = segs - w, 2 * w
    return extra, w + segs


def gloo_tcp_ms(size, rate, one_way, burst, after_gap, idle=0.0):
    wait, send = 2 * one_way + STEP_S, size / 2 * WIRE
    segs = -(-(size / 2) // PAYLOAD)
    w, rto = 2 * segs, 2 * one_way + RTO_MIN
    tokens, t = (burst, WAKE_S) if after_gap else (0.0, 0.0)
    for s in range(2):
        w = window_after_idle(w, idle if s == 0 else wait, rto)
        tokens = min(burst, tokens + rate * wait)
        free = min(tokens, send)
        tokens -= free
        extra, w = window_delay(segs, w, 2 * one_way, PAYLOAD * WIRE, rate)
        t += wait + (send - free) / rate + extra
    return t * 1e3


CURVES_HEAD = ("The comm curves measured on each link (fp32, mean of in-place and out-of-place) beside the old "
               "bw,lat form and the gloo-tcp form, 2 ranks (the formula of src/predict/gloo_tcp_cost.cpp restated "
               "in dev/predict/reeval_numbers_only.py): back to back (idle 0), after the curves' 10 ms gap (idle "
               "10 ms, under the RTO: window kept) and, not measured by any campaign, after 1 s of idle "
               "(window restarted).\n\n")


def curves(folders):
    """Per campaign, link and size: the measured fp32 all-reduce (back to back / after the gap) beside both models."""
    lines = ["| campaign | link | size KiB | measured back to back / after gap ms | old bw,lat ms "
             "| new gloo-tcp back to back / after gap ms | new gloo-tcp after 1 s idle ms (not measured) |",
             "|---|---|---|---|---|---|---|"]
    for folder in folders:
        with tarfile.open(f"{folder}/raw.tar.xz", "r:xz") as t:
            for m in sorted(t.getmembers(), key=lambda m: m.name):
                base = os.path.basename(m.name)
                if not base.endswith("_comm_fp32.json"):
                    continue
                tag = base.split("_")[0]
                rate = int(tag[1:tag.index("d")]) * 1e6 / 8
                delay = float(tag[tag.index("d") + 1:]) * 1e-3
                by = {}
                for r in json.load(t.extractfile(m))["results"]:
                    by.setdefault(r["bytes"], []).append((r["time_us"], r.get("gap_time_us", 0)))
                for size, v in sorted(by.items()):
                    b2b, gap = (statistics.mean(x[i] for x in v) / 1e3 for i in (0, 1))
                    old = (2 * delay + size / rate) * 1e3
                    new = [gloo_tcp_ms(size, rate, delay, BURST_B, g, GAP_S if g else 0.0) for g in (False, True)]
                    idle = gloo_tcp_ms(size, rate, delay, BURST_B, True, LONG_IDLE_S)
                    lines.append(f"| {os.path.basename(os.path.normpath(folder))} | {tag} | {size // 1024} | "
                                 f"{b2b:.2f} / {gap:.2f} | {old:.2f} | {new[0]:.2f} / {new[1]:.2f} | {idle:.2f} |")
    return "\n".join(lines) + "\n"


def stats(rows, kind):
    errs = [abs(r[kind + "_err"]) for r in rows]
    return statistics.median(errs), max(errs), sum(e <= 0.15 for e in errs), sum(e <= 0.20 for e in errs)


def render(runs, kinds):
    lines = ["| campaign | cases |" + "".join(f" {label}: median / max / within 15 % / within 20 % |" for _, label in kinds),
             "|---|---|" + "---|" * len(kinds)]
    every = []
    for name, rows in runs:
        every += rows
        cells = ""
        for kind, _ in kinds:
            med, mx, in15, in20 = stats(rows, kind)
            cells += f" {100*med:.1f} % / {100*mx:.1f} % / {in15}/{len(rows)} / {in20}/{len(rows)} |"
        lines.append(f"| {name} | {len(rows)} |{cells}")
    cells = ""
    for kind, _ in kinds:
        med, mx, in15, in20 = stats(every, kind)
        cells += f" {100*med:.1f} % / {100*mx:.1f} % / {in15}/{len(every)} / {in20}/{len(every)} |"
    lines.append(f"| all cases together | {len(every)} |{cells}")
    lines += ["", "| campaign | case | link (new) | measured img/s | "
              + " | ".join(label.split(" (")[0] for _, label in kinds) + " |",
              "|---|---|---|---|" + "---|" * len(kinds)]
    for name, rows in runs:
        for r in rows:
            lines.append(f"| {name} | {r['name']} | `{r['link']}` | {r['measured']:.1f} | "
                         + " | ".join(f"{r[k]:.1f} ({100*r[k + '_err']:+.1f} %)" for k, _ in kinds) + " |")
    return "\n".join(lines) + "\n"


def main(argv):
    if len(argv) < 2:
        print("usage: MGBENCH=build/mgbench reeval_numbers_only.py OUTDIR CAMPAIGN_DIR...", file=sys.stderr)
        return 2
    mgbench = os.environ.get("MGBENCH")
    if not mgbench or not os.access(mgbench, os.X_OK):
        print("reeval_numbers_only.py: MGBENCH must name the mgbench binary", file=sys.stderr)
        return 2
    out, folders = argv[0], argv[1:]
    previous = os.environ.get("PREVIOUS")
    prev = {}
    if previous:
        with lzma.open(previous, "rt") as f:
            prev = {(c["campaign"], c["name"]): c["new"] for c in json.load(f)}
    summ = summarize_module()
    runs = []
    with tempfile.TemporaryDirectory() as bindir, concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        # One copy for the whole run: a rebuild of MGBENCH meanwhile must not change or interrupt it.
        binary = shutil.copy2(mgbench, f"{bindir}/mgbench")
        version = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout.split("\n")[0].strip()
        for folder in folders:
            runs.append((os.path.basename(os.path.normpath(folder)), campaign(binary, summ, folder, pool)))
    kinds = KINDS
    if prev:
        kinds = KINDS[:2] + (PREV_KIND,) + KINDS[2:]
        for name, rows in runs:
            for r in rows:
                r["prev"] = prev[(name, r["name"])]
                r["prev_err"] = (r["prev"] - r["measured"]) / r["measured"]
    os.makedirs(out, exist_ok=True)
    keep = ("name", "rate", "delay", "model", "bucket", "overlap", "dtype", "repeats", "link", "measured", "profile",
            "comm", "spec", "new", "new_runs", "naive", "comm_err", "spec_err", "new_err", "naive_err")
    keep += ("prev", "prev_err") if prev else ()
    doc = [{"campaign": name, **{k: r[k] for k in keep}} for name, rows in runs for r in rows]
    with lzma.open(f"{out}/cases.json.xz", "wt") as f:
        json.dump(doc, f, indent=1)
    text = f"Predicted by `{version}`.\n\n" + render(runs, kinds)
    with open(f"{out}/table.md", "w") as f:
        f.write(text)
    with open(f"{out}/curves.md", "w") as f:
        f.write(CURVES_HEAD + curves(folders))
    print(text.split("\n\n")[0])
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except (OSError, tarfile.TarError, ValueError, KeyError, RuntimeError) as e:
        print(f"reeval_numbers_only.py: {e}", file=sys.stderr)
        sys.exit(2)
