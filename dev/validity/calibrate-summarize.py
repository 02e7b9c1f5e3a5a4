#!/usr/bin/env python3
"""Summarises `ci-regression.sh --calibrate --slowdown 0` output folders (A vs A' only): false alarms with their
exact one-sided 95 % bound, the ratio A'/A, each gate's noise (compare's run spread and smallest detectable
slowdown) and how many gates --strict would have refused (noise floor above the threshold).

    dev/validity/calibrate-summarize.py [--threshold 0.05] DIR [DIR ...]   (each DIR an OUT_DIR of one stream)
"""
import json
import pathlib
import statistics
import subprocess
import sys

args = sys.argv[1:]
threshold = 0.05
if args[:1] == ["--threshold"]:
    threshold, args = float(args[1]), args[2:]
if not args:
    sys.exit("usage: calibrate-summarize.py [--threshold F] DIR [DIR ...]")
gates = []
for d in args:
    for f in sorted(pathlib.Path(d).glob("calibrate/trial-*/aa/compare.json")):
        p = json.loads(f.read_text())["pairs"][0]
        gates.append((f.parent.parent.name, p))
if not gates:
    sys.exit("calibrate-summarize.py: no calibrate/trial-*/aa/compare.json under " + " ".join(args))
alarms = [(t, p) for t, p in gates if p["verdict"] == "regression"]
bound = subprocess.run([sys.executable, str(pathlib.Path(__file__).resolve().parents[2] / "scripts/clopper-pearson.py"),
                        str(len(alarms)), str(len(gates))], capture_output=True, text=True, check=True).stdout.strip()
ratio = [p["ratio"] for _, p in gates]
spread = [p["noise"]["run_spread"] for _, p in gates]
mds = [p["noise"]["min_detectable_slowdown"] for _, p in gates]
above = sum(m > threshold for m in mds)
pct = lambda x: f"{100 * x:.1f} %"
print("| what | figure |\n|---|---|")
print(f"| A vs A' gates judged \"regression\" (false alarms) | **{len(alarms)} of {len(gates)}** "
      f"(rate <= {100 * float(bound):.2f} %, exact one-sided 95 % Clopper-Pearson) |")
print(f"| ratio estimate A'/A | median {statistics.median(ratio):.3f}, range {min(ratio):.3f}-{max(ratio):.3f} |")
print(f"| one run's spread (compare's run_spread) | median {pct(statistics.median(spread))}, "
      f"range {pct(min(spread))}-{pct(max(spread))} |")
print(f"| smallest slowdown detectable (80 % power) | median {pct(statistics.median(mds))}, range {pct(min(mds))}-"
      f"{pct(max(mds))}: above the {pct(threshold)} threshold in {above} of {len(gates)} gates, which --strict refuses |")
for t, p in alarms:
    lo, hi = p["ratio_ci95"]
    print(f"| false alarm {t} | ratio {p['ratio']:.3f} [{lo:.3f}, {hi:.3f}], p {p['p_value']:.4f}, "
          f"run spread {pct(p['noise']['run_spread'])} |")
