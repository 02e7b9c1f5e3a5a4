#!/usr/bin/env bash
# scripts/measure/soak-check.py, the verdict of scripts/measure/soak.sh, fed synthetic series: flat memory,
# descriptors, threads and step times pass; a planted leak (resident memory, a descriptor, a thread) or step-time drift fails, naming
# the process and what grew; a folder without samples is exit 2.
source "$(dirname "$0")/lib.bash"
: "${MG_SOURCE_DIR:?}"
command -v python3 >/dev/null || { echo "skipped: python3 is needed"; exit 77; }
check=$MG_SOURCE_DIR/scripts/measure/soak-check.py

# soak DIR [PROCESS FIELD PER_SAMPLE] [STEP_GROWTH]: 60 samples of the three processes, seeded noise (RSS
# +-0.5 %, steps +-3 %), PROCESS's FIELD growing by PER_SAMPLE each sample after warm-up, and every step of both
# jobs slower by STEP_GROWTH at the end than at the start (linearly).
soak() {
  python3 - "$@" <<'PY'
import json, os, random, sys
out = sys.argv[1]
leak = (sys.argv[2], sys.argv[3], float(sys.argv[4])) if len(sys.argv) > 4 else (None, None, 0)
growth = float(sys.argv[5]) if len(sys.argv) > 5 else 0.0
rng = random.Random(7)
os.makedirs(out, exist_ok=True)
with open(f"{out}/samples.csv", "w") as f:
    f.write("elapsed_s,process,pid,rss_kib,fds,threads\n")
    for i in range(60):
        for name, rss, fds, thr in (("threads", 470000, 7, 8), ("rank0", 252000, 13, 10), ("rank1", 252000, 10, 7)):
            v = {"rss_kib": rss * (0.6 if i < 3 else 1) * (1 + rng.uniform(-0.005, 0.005)), "fds": fds, "threads": thr}
            if name == leak[0] and i >= 6:
                v[leak[1]] += leak[2] * (i - 5)
            f.write(f"{15 * i},{name},{100 + len(name)},{int(v['rss_kib'])},{int(v['fds'])},{int(v['threads'])}\n")
for job in ("threads", "procs"):
    n = 2000
    steps = [0.25 * (1 + growth * i / n) * (1 + rng.uniform(-0.03, 0.03)) for i in range(n)]
    json.dump({"runs": [{"samples": {"total_s": steps}}]}, open(f"{out}/{job}.json", "w"))
json.dump({"command": "synthetic"}, open(f"{out}/about.json", "w"))
PY
}

soak "$TMP/flat"
expect_status 0 python3 "$check" "$TMP/flat"
json_check "$TMP/flat/summary.json" "d['ok'] and d['command'] == 'synthetic' and not d['problems']" \
  || fail "flat soak: summary not ok"
json_check "$TMP/flat/summary.json" "abs(d['step_time']['threads']['drift']) < 0.05" || fail "flat soak: drift"

# A leak of 0.2 % of rank 1's memory per sample: +10 % over the run.
soak "$TMP/rss" rank1 rss_kib 500
expect_status 1 python3 "$check" "$TMP/rss"
grep -q "^soak: rank1: resident memory grew" "$TMP/err" || { cat "$TMP/err"; fail "RSS leak not named"; }
[[ $(wc -l <"$TMP/err") -eq 1 ]] || { cat "$TMP/err"; fail "RSS leak: other checks failed too"; }
json_check "$TMP/rss/summary.json" "not d['ok'] and not d['processes']['rank1']['flat']" || fail "RSS leak: summary ok"

# One descriptor, and one thread, more every 20 samples (1 -> 3 over the run).
soak "$TMP/fds" threads fds 0.05
expect_status 1 python3 "$check" "$TMP/fds"
grep -q "^soak: threads: file descriptors grew from 7 to" "$TMP/err" || { cat "$TMP/err"; fail "fd growth not named"; }
soak "$TMP/thr" rank0 threads 0.05
expect_status 1 python3 "$check" "$TMP/thr"
grep -q "^soak: rank0: threads grew from 10 to" "$TMP/err" || { cat "$TMP/err"; fail "thread growth not named"; }

# Steps 30 % slower at the end than at the start: drift of about +25 % from the first tenth to the last.
soak "$TMP/drift" "" "" 0 0.30
expect_status 1 python3 "$check" "$TMP/drift"
grep -q "^soak: threads: step time drifted +2[0-9]\.[0-9] %" "$TMP/err" || { cat "$TMP/err"; fail "drift not named"; }
grep -q "^soak: procs: step time drifted" "$TMP/err" || { cat "$TMP/err"; fail "drift of the processes not named"; }
# The limit is an option: the same series passes at 40 %.
expect_status 0 python3 "$check" "$TMP/drift" --max-drift 0.40

# Too few samples to judge is a failure, not a pass.
head -n 16 "$TMP/flat/samples.csv" >"$TMP/short.csv" && mkdir -p "$TMP/short" && mv "$TMP/short.csv" "$TMP/short/samples.csv"
expect_status 1 python3 "$check" "$TMP/short"
grep -q "samples, too few to judge" "$TMP/err" || { cat "$TMP/err"; fail "a short soak passed"; }

expect_usage_error "holds no samples.csv" python3 "$check" "$TMP/nothing"
expect_usage_error "--max-drift expects a fraction" python3 "$check" "$TMP/flat" --max-drift lots
echo "ok"
