#!/usr/bin/env python3
"""Tabulates a gate-measure.sh output folder: per trial and comparison (A vs A', A vs S10, A vs S5) the gate's
verdict (mgbench compare --paired on the K run pairs, read from compare-*.json) beside the old method on the
same data: (1) the U test over all pooled step times of the K runs per side (compare's per_step_diagnostic) and
(2) the gate as it was first written: one invocation per side (run 01 of each) judged by a U test over its
steps (recomputed here by `mgbench compare RUN01 RUN01`, whose per_step_diagnostic is exactly that method).

  dev/validity/gate-analyze.py OUT MGBENCH > summary.md
"""
import json
import os
import subprocess
import sys
import tempfile

out, mg = sys.argv[1], sys.argv[2]
trials = sorted(d for d in os.listdir(out) if d.startswith("trial-") and
                all(os.path.exists(os.path.join(out, d, f"compare-{s}.json")) for s in ("a2", "s10", "s5")))
kinds = [("a2", "A vs A (unchanged code)", "false alarms"), ("s10", "10 % slowdown", "detected"),
         ("s5", "5 % slowdown", "detected")]


def old_single(trial, side):
    with tempfile.TemporaryDirectory() as tmp:
        j = os.path.join(tmp, "c.json")
        subprocess.run([mg, "compare", os.path.join(out, trial, "a", "run-01.json"),
                        os.path.join(out, trial, side, "run-01.json"), "--json", j],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return json.load(open(j))["pairs"][0]["per_step_diagnostic"]


rows, counts = [], {k: [0, 0, 0, 0] for k, _, _ in kinds}  # gate, pooled-steps, one-invocation, n
floors = {k: [] for k, _, _ in kinds}
for t in trials:
    for k, _, _ in kinds:
        p = json.load(open(os.path.join(out, t, f"compare-{k}.json")))["pairs"][0]
        one = old_single(t, k)
        gate = p["verdict"]
        pooled = p["per_step_diagnostic"]["verdict"]
        c = counts[k]
        c[0] += gate == "regression"
        c[1] += pooled == "regression"
        c[2] += one["verdict"] == "regression"
        c[3] += 1
        md = p["noise"]["min_detectable_slowdown"]
        floors[k].append(md)
        rows.append(f"| {t[6:]} | {k} | {p['ratio']:.3f} [{p['ratio_ci95'][0]:.3f}, {p['ratio_ci95'][1]:.3f}] | "
                    f"{p['p_value']:.4f} | **{gate}** | {100 * p['noise']['run_spread']:.1f} % | "
                    f"{'-' if md is None else f'{100 * md:.1f} %'} | "
                    f"{p['per_step_diagnostic']['p_value']:.1e} {pooled} | {one['p_value']:.1e} {one['verdict']} |")

k_runs = len([f for f in os.listdir(os.path.join(out, trials[0], "a")) if f.endswith(".json")]) if trials else 0
print(f"Trials: {len(trials)}, K = {k_runs} runs per side\n")
print(f"| comparison | trials | gate (run medians, paired) | old: U test on pooled steps of the same {k_runs} runs | "
      "old gate: one invocation per side, U test on its steps | median smallest detectable slowdown |")
print("|---|---|---|---|---|---|")
for k, label, what in kinds:
    c = counts[k]
    fl = sorted(x for x in floors[k] if x is not None)
    med = f"{100 * fl[len(fl) // 2]:.1f} %" if fl else "-"
    print(f"| {label} | {c[3]} | {c[0]} {what} | {c[1]} | {c[2]} | {med} |")
print("\nPer trial (ratio NEW/BASE with its 95 % interval, p of the signed-rank test, verdict, one run's spread, "
      "smallest detectable slowdown; old methods: p and verdict):\n")
print("| trial | side | ratio [95 %] | p | gate verdict | run spread | detectable | pooled steps (old) | "
      "one invocation (old gate) |")
print("|---|---|---|---|---|---|---|---|---|")
print("\n".join(rows))
