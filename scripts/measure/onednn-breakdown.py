#!/usr/bin/env python3
"""Where a CPU training step's time goes, per oneDNN primitive, and how close the convolutions run to the FMA peak.

Runs mgbench once with ONEDNN_VERBOSE=1, keeps the timed steps' primitive executions and prints, per
(primitive, propagation kind): milliseconds per step, share of the step, executions per step and, for
convolutions and inner products, the GFLOP/s achieved from the problem shapes oneDNN prints. With a probe file
(scripts/measure/machine-probe.sh) it also gives each as a percentage of the machine's measured FMA peak: the ceiling a
whole training step cannot pass is the convolutions' own rate, which this shows next to the step's. Every rate
and percentage is given twice (scripts/measure/onednn_flops.py): "direct" counts the problem shapes' direct-convolution
FLOPs, also where oneDNN ran Winograd; "executed" counts what the implementations computed (Winograd F(4x4, 3x3)
does 36 multiply-adds per 4x4 output tile and channel pair where direct convolution does 144).

    scripts/measure/onednn-breakdown.py OUT_DIR [--probe probe.json] [--mgbench build/mgbench] -- --model resnet50 ...

Writes OUT_DIR/verbose.log (oneDNN's lines), OUT_DIR/run.json (mgbench's result) and OUT_DIR/breakdown.json.
Verbose timing adds a little overhead per primitive; the result's own step time is the reference. fp32 batch
norm is mgbench's own code (src/backend/cpu/bn_kernels.h), not a oneDNN primitive: it is part of "outside oneDNN".
"""
import argparse
import collections
import json
import math
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from onednn_flops import direct_flops, executed_flops  # noqa: E402


def die(msg, code=2):
    print(f"onednn-breakdown: {msg}", file=sys.stderr)
    sys.exit(code)


def read_peak(path):
    """The probe's all-core FMA peak in GFLOP/s."""
    try:
        with open(path) as f:
            peak = json.load(f).get("fma_gflops_all_cores")
    except (OSError, ValueError, AttributeError) as e:
        die(f"--probe {path}: not a machine-probe.sh JSON file ({e.__class__.__name__})")
    if isinstance(peak, bool) or not isinstance(peak, (int, float)) or not (peak > 0 and math.isfinite(peak)):
        die(f"--probe {path}: no positive fma_gflops_all_cores")
    return float(peak)


def parse(log_path):
    rows = []
    with open(log_path, errors="replace") as f:
        for line in f:
            if not line.startswith("onednn_verbose,exec,"):
                continue
            p = line.rstrip("\n").split(",")
            # exec,engine,primitive,implementation,prop,memory descs,attrs,aux,problem,time
            rows.append({"prim": p[3], "impl": p[4], "prop": p[5], "problem": p[-2], "ms": float(p[-1])})
    return rows


def timed_rows(rows, steps, micro_batches):
    """The executions of the last `steps` steps, delimited by the last forward primitive (the classifier), which
    runs once per micro-batch: `micro_batches` (--accum-steps) times a step."""
    fwd = [i for i, r in enumerate(rows) if r["prop"] == "forward_training"]
    if not fwd:
        die("no forward_training primitive in the log (forward-only run?)")
    last = rows[fwd[-1]]
    key = (last["prim"], last["problem"])
    marks = [i for i in fwd if (rows[i]["prim"], rows[i]["problem"]) == key]
    n = steps * micro_batches
    if len(marks) <= n:
        die(f"{len(marks)} micro-batch boundaries in the log, need more than {n}")
    return rows[marks[-n - 1] + 1: marks[-1] + 1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out_dir")
    ap.add_argument("--probe", help="machine-probe.sh JSON: gives percentages of the FMA peak")
    ap.add_argument("--mgbench", default=os.path.join(os.path.dirname(__file__), "..", "..", "build", "mgbench"))
    argv = sys.argv[1:]
    if "--" not in argv:
        die("give mgbench's arguments after --, e.g. -- --model resnet50 --device cpu --gpus 1")
    cut = argv.index("--")
    a = ap.parse_args(argv[:cut])
    args = argv[cut + 1:]
    # Both checked before the run, which can take minutes: a typo must not cost it, nor end in a traceback.
    if not (os.path.isfile(a.mgbench) and os.access(a.mgbench, os.X_OK)):
        die(f"--mgbench {a.mgbench}: not an executable file")
    peak = read_peak(a.probe) if a.probe else None
    os.makedirs(a.out_dir, exist_ok=True)
    log = os.path.join(a.out_dir, "verbose.log")
    run_json = os.path.join(a.out_dir, "run.json")
    env = dict(os.environ, ONEDNN_VERBOSE="1")
    with open(log, "w") as f:
        rc = subprocess.call([a.mgbench, *args, "--no-progress", "--json", run_json], stdout=f, stderr=f, env=env)
    if rc != 0:  # its own status (2 for a usage error); killed by a signal: 1
        die(f"mgbench exited {rc}; see {log}", rc if rc > 0 else 1)
    result = json.load(open(run_json))
    if len(result["runs"]) != 1 or result["runs"][0]["devices"] != 1:
        die("give one device (--gpus 1): replicas' primitives interleave in the log")
    run = result["runs"][0]
    cfg = result["config"]
    steps = cfg["steps"] * cfg["repeat"]
    step_ms = 1e3 * run["step_time"]["median_s"]
    rows = timed_rows(parse(log), steps, cfg.get("accum_steps", 1))

    agg = collections.defaultdict(lambda: {"ms": 0.0, "n": 0, "flop": 0.0, "exec_flop": 0.0, "impls": set()})
    for r in rows:
        e = agg[(r["prim"], r["prop"])]
        e["ms"] += r["ms"]
        e["n"] += 1
        e["impls"].add(r["impl"])
        fl = direct_flops(r["prim"], r["problem"])
        if fl:
            e["flop"] += fl
            e["exec_flop"] += executed_flops(r["prim"], r["impl"], r["prop"], r["problem"])
    onednn_ms = sum(e["ms"] for e in agg.values()) / steps
    table = []
    for (prim, prop), e in sorted(agg.items(), key=lambda kv: -kv[1]["ms"]):
        gflops = e["flop"] / (e["ms"] * 1e-3) / 1e9 if e["flop"] else None
        exec_gflops = e["exec_flop"] / (e["ms"] * 1e-3) / 1e9 if e["flop"] else None
        table.append({"primitive": prim, "prop": prop, "ms_per_step": e["ms"] / steps, "per_step": e["n"] / steps,
                      "share_of_step": e["ms"] / steps / step_ms, "gflops": gflops, "executed_gflops": exec_gflops,
                      "pct_of_peak": 100 * gflops / peak if gflops and peak else None,
                      "executed_pct_of_peak": 100 * exec_gflops / peak if exec_gflops and peak else None,
                      "implementations": sorted(e["impls"])})
    # "gflops": direct-convolution FLOPs per second (what the step has to compute); "executed_gflops": what ran.
    wino_ms = sum(r["ms"] for r in rows if r["prim"] == "convolution" and "wino" in r["impl"]) / steps
    conv = [e for (p, _), e in agg.items() if p == "convolution"]
    conv_ms = sum(e["ms"] for e in conv)
    conv_flop = sum(e["flop"] for e in conv)
    conv_exec = sum(e["exec_flop"] for e in conv)
    all_flop = sum(e["flop"] for e in agg.values())
    all_exec = sum(e["exec_flop"] for e in agg.values())
    wino = [r for r in rows if r["prim"] == "convolution" and "wino" in r["impl"]]
    summary = {
        "model": cfg["model"], "batch_size": cfg["batch_size"], "steps": steps, "cpu": result["environment"]["cpu"],
        "step_ms": step_ms, "onednn_ms_per_step": onednn_ms, "outside_onednn_ms_per_step": step_ms - onednn_ms,
        "conv_ms_per_step": conv_ms / steps, "conv_gflops": conv_flop / (conv_ms * 1e-3) / 1e9 if conv_ms else None,
        "conv_executed_gflops": conv_exec / (conv_ms * 1e-3) / 1e9 if conv_ms else None,
        "step_gflops": all_flop / steps / (step_ms * 1e-3) / 1e9,
        "step_executed_gflops": all_exec / steps / (step_ms * 1e-3) / 1e9,
        "step_gflop_direct": all_flop / steps / 1e9, "step_gflop_executed": all_exec / steps / 1e9,
        "winograd_executions_per_step": len(wino) / steps,
        "winograd_layers": sum(r["prop"] == "forward_training" for r in wino) / steps / cfg.get("accum_steps", 1),
        "fma_peak_gflops": peak, "rows": table, "winograd_conv_ms_per_step": wino_ms,
    }
    if peak:
        for k in ("conv", "conv_executed", "step", "step_executed"):
            g = summary[k + "_gflops"]
            summary[k + "_pct_of_peak"] = 100 * g / peak if g else None
    with open(os.path.join(a.out_dir, "breakdown.json"), "w") as f:
        json.dump(summary, f, indent=1)

    pct = lambda x: f"{x:5.1f}%" if x is not None else "     -"
    print(f"{cfg['model']} batch {cfg['batch_size']}: step {step_ms:.1f} ms (result), oneDNN {onednn_ms:.1f} ms, "
          f"outside oneDNN {step_ms - onednn_ms:.1f} ms, {steps} timed steps")
    print("GFLOP/s and % of peak: direct-equivalent (the shapes' direct-convolution FLOPs) / executed (what ran)")
    print(f"{'primitive':<22}{'prop':<18}{'ms/step':>9}{'share':>8}{'n/step':>8}{'GFLOP/s':>15}{'peak':>16}")
    for t in table:
        gf = f"{t['gflops']:7.0f}/{t['executed_gflops']:<7.0f}" if t["gflops"] else "              -"
        print(f"{t['primitive']:<22}{t['prop']:<18}{t['ms_per_step']:9.1f}{pct(100 * t['share_of_step'])}"
              f"{t['per_step']:8.0f}{gf}{pct(t['pct_of_peak'])} /{pct(t['executed_pct_of_peak'])}")
    line = f"convolutions: {summary['conv_ms_per_step']:.1f} ms/step at {summary['conv_gflops']:.0f} GFLOP/s " \
           f"direct-equivalent, {summary['conv_executed_gflops']:.0f} executed; whole step " \
           f"{summary['step_gflops']:.0f} direct-equivalent, {summary['step_executed_gflops']:.0f} executed"
    print(line)
    if peak:
        print(f"% of the {peak:.0f} GFLOP/s probe: convolutions {summary['conv_pct_of_peak']:.1f} % direct-equivalent, "
              f"{summary['conv_executed_pct_of_peak']:.1f} % executed; whole step {summary['step_pct_of_peak']:.1f} % "
              f"direct-equivalent, {summary['step_executed_pct_of_peak']:.1f} % executed")
    if wino_ms:
        print(f"of which Winograd F(4x4, 3x3): {wino_ms:.1f} ms/step; per step {summary['step_gflop_direct']:.2f} GFLOP "
              f"direct-equivalent, {summary['step_gflop_executed']:.2f} GFLOP executed")


if __name__ == "__main__":
    sys.exit(main())
