#!/usr/bin/env bash
# scripts/measure/predict-summarize.py on a case run several times: every figure of the case is the median over its
# repetitions (each predicted from its own profile) and the error compares the median prediction with the
# median measurement; a case of one repetition, as older runs' cases.tsv without the count, reads as before.
# Beside every prediction the naive forecast (2 x the 1-device rate) and its error; given two run folders, one
# line per run with both link models and the naive forecast. The repetitions are the committed raw JSON of one
# case from three validation runs (results/predict/<run>/raw.tar.xz).
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
case=r100d0_tiny_b25_overlap_fp32
mkdir -p "$out/raw" "$out/src"
k=1
for run in netns-2026-11-24c netns-2026-11-26 netns-2026-11-26b; do
  mkdir -p "$out/src/$run"
  tar -xJf "$here/results/predict/$run/raw.tar.xz" -C "$out/src/$run" || exit 1
  stem=$case
  [ $k -gt 1 ] && stem=$case.r$k
  for kind in profile measured pred_comm pred_spec; do
    cp "$out/src/$run/raw/$case.$kind.json" "$out/raw/$stem.$kind.json" || exit 1
  done
  k=$((k + 1))
done
# Case B: one repetition, the older 9-column line.
for kind in profile measured pred_comm pred_spec; do
  cp "$out/src/netns-2026-11-26/raw/$case.$kind.json" "$out/raw/one.$kind.json" || exit 1
done
printf '%s\t100mbit\ttiny\t25\toverlap\tfp32\t0.5\t10:00:00\t0\t3\n' "$case" >"$out/cases.tsv"
printf 'one\t100mbit\ttiny\t25\toverlap\tfp32\t0.5\t10:01:00\t0\n' >>"$out/cases.tsv"
python3 "$here/scripts/measure/predict-summarize.py" "$out" >"$out/log" 2>&1 || { cat "$out/log"; echo "FAIL: summarize"; exit 1; }
python3 - "$out/src" "$out" "$case" <<'PY' || exit 1
import json, statistics, sys
src, out, case = sys.argv[1:]
def rate(run, kind):
    doc = json.load(open(f"{src}/{run}/raw/{case}.{kind}.json"))
    return next(r for r in doc["runs"] if r["devices"] == (1 if kind == "profile" else 2))["images_per_sec"]
runs = ["netns-2026-11-24c", "netns-2026-11-26", "netns-2026-11-26b"]
meas = [rate(r, "measured") for r in runs]
pred = [rate(r, "pred_comm") for r in runs]
prof = [rate(r, "profile") for r in runs]
assert len(set(meas)) == 3, "the three runs must differ for the median to mean anything"
rows = [l for l in open(f"{out}/table.md") if l.startswith(f"| {case} ") and "mbit" in l]
one = [l for l in open(f"{out}/table.md") if l.startswith("| one ") and "mbit" in l]
assert len(rows) == 1 and len(one) == 1, open(f"{out}/table.md").read()
cells = [c.strip() for c in rows[0].split("|")[1:-1]]
want_err = 100 * (statistics.median(pred) - statistics.median(meas)) / statistics.median(meas)
naive_err = 100 * (2 * statistics.median(prof) - statistics.median(meas)) / statistics.median(meas)
got = dict(profile=cells[7], measured=cells[8], naive=cells[9], naive_err=cells[10], pred=cells[11], err=cells[12])
want = dict(profile=f"{statistics.median(prof):.1f}",
            measured=f"{statistics.median(meas):.1f} ({min(meas):.0f}–{max(meas):.0f}, 3 runs)",
            naive=f"{2 * statistics.median(prof):.1f}", naive_err=f"{naive_err:+.1f} %",
            pred=f"{statistics.median(pred):.1f}", err=f"{want_err:+.1f} %")
if got != want:
    sys.exit(f"FAIL: median row {got} != {want}")
# The single repetition: its own figures, no range.
cells = [c.strip() for c in one[0].split("|")[1:-1]]
m, p = rate("netns-2026-11-26", "measured"), rate("netns-2026-11-26", "pred_comm")
n = 2 * rate("netns-2026-11-26", "profile")
if cells[8] != f"{m:.1f}" or cells[12] != f"{100 * (p - m) / m:+.1f} %" or cells[10] != f"{100 * (n - m) / m:+.1f} %":
    sys.exit(f"FAIL: one-repetition row {cells}")
# The naive forecast's summary: the two cases' |errors|, their median.
errs = sorted([abs(naive_err), abs(100 * (n - m) / m)])
line = next(l for l in open(f"{out}/table.md") if l.startswith("naive 2 x 1-device: "))
if f"median |error| {(errs[0] + errs[1]) / 2:.1f} %, max {errs[1]:.1f} %" not in line:
    sys.exit(f"FAIL: naive summary {line!r}, |errors| {errs}")
print(f"ok: median of 3 runs {want}")
PY
# Two run folders: one line per run, each model's median |error| over that run's cases.
mkdir -p "$out/second/raw"
cp "$out/raw/one."* "$out/second/raw/"
printf 'one\t100mbit\ttiny\t25\toverlap\tfp32\t0.5\t10:01:00\t0\n' >"$out/second/cases.tsv"
python3 "$here/scripts/measure/predict-summarize.py" "$out" "$out/second" >"$out/runs" 2>&1 || { cat "$out/runs"; echo "FAIL: two runs"; exit 1; }
python3 - "$out" <<'PY' || exit 1
import re, sys
out = sys.argv[1]
def medians(table):  # comm-curve, tc-spec and naive medians from a run's own summary lines
    return [re.search(rf"^{k}: .*median \|error\| ([\d.]+ %)", open(table).read(), re.M).group(1)
            for k in ("comm-curve link", "tc-spec link", "naive 2 x 1-device")]
rows = {l.split("|")[1].strip(): l for l in open(f"{out}/runs") if l.startswith("| ")}
for name, folder in ((out.rstrip("/").split("/")[-1], out), ("second", f"{out}/second")):
    cells = [c.strip().split(" / ")[0] for c in rows[name].split("|")[3:6]]
    if cells != medians(f"{folder}/table.md"):
        sys.exit(f"FAIL: run line {rows[name]!r} against {medians(folder + '/table.md')}")
print("ok: one line per run")
PY
