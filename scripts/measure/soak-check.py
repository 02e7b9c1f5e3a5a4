#!/usr/bin/env python3
"""Judges a soak (scripts/measure/soak.sh): did resident memory, open file descriptors or threads grow, or did step
times drift, over the run? Reads DIR/samples.csv (elapsed_s,process,pid,rss_kib,fds,threads: every process sampled
over time), DIR/threads.json and DIR/procs.json (mgbench results with every step) and DIR/about.json (how the soak
was run, copied into the summary); writes DIR/summary.json and prints it with one line per failed check.

  scripts/measure/soak-check.py DIR [--max-rss-growth 0.05] [--max-drift 0.10]

Each series is judged after its first tenth (allocators, oneDNN's primitive cache and thread pools settle while
warming up), comparing the median of the first steady tenth with the median of the last tenth, so one odd
sample neither hides nor fakes a trend. Exit 0: flat; 1: something grew or drifted, or a series is too short to
judge; 2: DIR lacks the samples or an option is malformed.
"""
import csv
import json
import os
import statistics
import sys

PROCESSES = ("threads", "rank0", "rank1")
JOBS = ("threads", "procs")
MIN_SAMPLES = 10  # a tenth of fewer is one sample: no longer a median


def tenths(values):
    """(median of the first tenth after the first, median of the last tenth): the steady start and the end."""
    k = max(1, len(values) // 10)
    steady = values[k:]
    return statistics.median(steady[:k]), statistics.median(steady[-k:])


def judge_process(rows, max_rss_growth):
    """Memory, descriptors and threads of one process over time; 'problems' names what grew."""
    t = [float(r["elapsed_s"]) for r in rows]
    rss = [int(r["rss_kib"]) for r in rows]
    fds = [int(r["fds"]) for r in rows]
    threads = [int(r["threads"]) for r in rows]
    out = {"samples": len(rows), "problems": []}
    if len(rows) < MIN_SAMPLES:
        out["problems"].append(f"{len(rows)} samples, too few to judge (at least {MIN_SAMPLES})")
        return out
    rss_start, rss_end = tenths(rss)
    k = max(1, len(rows) // 10)
    steady_t, steady_rss = t[k:], rss[k:]
    mt, mr = statistics.fmean(steady_t), statistics.fmean(steady_rss)
    var = sum((x - mt) ** 2 for x in steady_t)
    slope = sum((x - mt) * (y - mr) for x, y in zip(steady_t, steady_rss)) / var if var else 0.0
    out.update({"duration_s": t[-1] - t[0], "rss_kib_first": rss[0], "rss_kib_steady_start": rss_start,
                "rss_kib_end": rss_end, "rss_kib_max": max(rss), "rss_growth_steady": (rss_end - rss_start) / rss_start,
                "rss_slope_kib_per_hour": slope * 3600})
    if out["rss_growth_steady"] > max_rss_growth:
        out["problems"].append(f"resident memory grew {100 * out['rss_growth_steady']:.1f} % "
                               f"({rss_start:.0f} -> {rss_end:.0f} KiB; limit {100 * max_rss_growth:g} %)")
    for key, name, series in (("fds", "file descriptors", fds), ("threads", "threads", threads)):
        start, end = max(series[k:2 * k]), max(series[-k:])
        out[f"{key}_steady_start"], out[f"{key}_end"] = start, end
        if end > start:
            out["problems"].append(f"{name} grew from {start} to {end}")
    out["flat"] = not out["problems"]
    return out


def judge_steps(steps, max_drift):
    """Step-time drift of one job: median of the last tenth of the timed steps against the first."""
    out = {"steps": len(steps), "problems": []}
    if len(steps) < MIN_SAMPLES:
        out["problems"].append(f"{len(steps)} timed steps, too few to judge (at least {MIN_SAMPLES})")
        return out
    n = len(steps)
    k = n // 10
    first, last = statistics.median(steps[:k]), statistics.median(steps[-k:])
    out.update({"median_first_tenth_s": first, "median_last_tenth_s": last, "drift": (last - first) / first,
                "median_per_tenth_s": [statistics.median(steps[i * n // 10:(i + 1) * n // 10]) for i in range(10)]})
    if out["drift"] > max_drift:
        out["problems"].append(f"step time drifted {100 * out['drift']:+.1f} % ({first * 1e3:.1f} -> "
                               f"{last * 1e3:.1f} ms, first to last tenth; limit {100 * max_drift:g} %)")
    return out


def judge(out_dir, max_rss_growth=0.05, max_drift=0.10):
    """The summary of a soak folder; summary['ok'] is the verdict. FileNotFoundError without samples.csv."""
    with open(os.path.join(out_dir, "samples.csv")) as f:
        rows = list(csv.DictReader(f))
    about_path = os.path.join(out_dir, "about.json")
    summary = json.load(open(about_path)) if os.path.exists(about_path) else {}
    summary.update({"limits": {"rss_growth": max_rss_growth, "step_time_drift": max_drift},
                    "processes": {}, "step_time": {}})
    for name in PROCESSES:
        summary["processes"][name] = judge_process([r for r in rows if r["process"] == name], max_rss_growth)
    for job in JOBS:
        path = os.path.join(out_dir, f"{job}.json")
        steps = json.load(open(path))["runs"][-1]["samples"]["total_s"] if os.path.exists(path) else []
        summary["step_time"][job] = judge_steps(steps, max_drift)
    summary["problems"] = [f"{name}: {p}" for part in ("processes", "step_time")
                           for name, v in summary[part].items() for p in v["problems"]]
    summary["ok"] = not summary["problems"]
    return summary


def main(argv):
    args = {"--max-rss-growth": 0.05, "--max-drift": 0.10}
    if not argv:
        raise ValueError("usage: soak-check.py DIR [--max-rss-growth F] [--max-drift F]")
    out_dir, rest = argv[0], argv[1:]
    while rest:
        if rest[0] not in args or len(rest) < 2:
            raise ValueError(f"unknown option or missing value: {' '.join(rest[:2])}")
        try:
            args[rest[0]] = float(rest[1])
        except ValueError:
            raise ValueError(f"{rest[0]} expects a fraction such as 0.05, got '{rest[1]}'") from None
        if not args[rest[0]] > 0:
            raise ValueError(f"{rest[0]} must be positive, got '{rest[1]}'")
        rest = rest[2:]
    if not os.path.isfile(os.path.join(out_dir, "samples.csv")):
        raise ValueError(f"{out_dir} holds no samples.csv (a soak.sh output folder)")
    summary = judge(out_dir, args["--max-rss-growth"], args["--max-drift"])
    with open(os.path.join(out_dir, "summary.json"), "w") as f:
        json.dump(summary, f, indent=2)
    print(json.dumps(summary, indent=2))
    for p in summary["problems"]:
        print(f"soak: {p}", file=sys.stderr)
    return 0 if summary["ok"] else 1


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except ValueError as e:
        print(f"soak-check: {e}", file=sys.stderr)
        sys.exit(2)
