#!/usr/bin/env bash
# Every committed baseline (results/baselines/NAME.json) carries the configuration it was made with: the resolved
# run description (config) and, per entry, the thread allotment. Today's code must run configs/NAME.json the
# same way, or the gate would compare different work (as when the CPU thread allotment changed and the old
# ci-smoke baseline turned into a 45 % "regression"). A one-step run of the preset shows how today's code
# resolves it; any difference fails here, visibly, instead of breaking the gate silently.
source "$(dirname "$0")/lib.bash"
: "${MG_SOURCE_DIR:?}"
command -v python3 >/dev/null || { echo "skipped: python3 is needed to read the results"; exit 77; }
shopt -s nullglob
baselines=("$MG_SOURCE_DIR"/results/baselines/*.json)
[[ ${#baselines[@]} -gt 0 ]] || fail "no baselines in results/baselines"
for b in "${baselines[@]}"; do
  name=$(basename "$b" .json)
  preset=$MG_SOURCE_DIR/configs/$name.json
  [[ -f $preset ]] || fail "$b has no preset $preset"
  expect_status 0 "$MGBENCH" --config "$preset" --steps 1 --warmup 0 --repeat 1 --no-progress --json "$TMP/$name.json"
  python3 - "$b" "$TMP/$name.json" "$preset" <<'PY' || fail "$b: today's code runs configs/$name.json differently (above); regenerate the baseline deliberately (results/baselines/README.md)"
import json, sys
base, today, preset = (json.load(open(p)) for p in sys.argv[1:4])
problems = []
# The run length comes from the preset itself (the one-step run overrides it); everything else is resolved
# by today's code and must match what the baseline ran with.
run_length = {"steps", "warmup", "repeat", "runs"}
recorded_elsewhere = {"json_path", "command_line", "config_file", "progress", "trace_path"}
# The correctness check runs before the timed window (mgbench check); it changes nothing that is timed.
before_timing = {"check"}
# Fields added since a baseline was made: what the baseline's binary ran without them.
added_later = {"cpu_conv_algo": "fastest"}
for k in sorted(set(base["config"]) | set(today["config"])):
    if k in run_length | recorded_elsewhere | before_timing:
        continue
    if base["config"].get(k, added_later.get(k)) != today["config"].get(k):
        problems.append(f"config.{k}: baseline {base['config'].get(k)!r}, today {today['config'].get(k)!r}")
for k in ("steps", "warmup", "repeat"):
    if k in preset and base["config"][k] != preset[k]:
        problems.append(f"config.{k}: baseline {base['config'][k]}, preset {preset[k]}")
if base["config"].get("runs", 1) < 2 and all(len(r.get("run_samples", [])) < 2 for r in base["runs"]):
    problems.append("the baseline holds one process run: compare cannot judge significance (make it with --runs)")
entry = lambda r: (r["devices"], r["transport"])
b_runs, t_runs = {entry(r): r for r in base["runs"]}, {entry(r): r for r in today["runs"]}
if set(b_runs) != set(t_runs):
    problems.append(f"entries: baseline {sorted(b_runs)}, today {sorted(t_runs)}")
for e in sorted(set(b_runs) & set(t_runs)):
    for k in ("threads_per_replica", "batch_per_device", "global_batch"):
        if k not in b_runs[e]:
            problems.append(f"entry {e}: the baseline does not record {k} (made by an older mgbench)")
        elif b_runs[e][k] != t_runs[e][k]:
            problems.append(f"entry {e}: {k} baseline {b_runs[e][k]}, today {t_runs[e][k]}")
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
PY
done

# The check can fail: a baseline whose 1-device entry ran on 2 threads (the old allotment) is caught.
python3 - "${baselines[0]}" "$TMP/old.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["runs"][0]["threads_per_replica"] = 2
json.dump(d, open(sys.argv[2], "w"))
PY
name=$(basename "${baselines[0]}" .json)
mkdir -p "$TMP/fake/results/baselines" "$TMP/fake/configs"
cp "$TMP/old.json" "$TMP/fake/results/baselines/$name.json"
cp "$MG_SOURCE_DIR/configs/$name.json" "$TMP/fake/configs/"
if [[ ${CI_BASELINES_INNER:-0} -eq 0 ]]; then
  CI_BASELINES_INNER=1 MG_SOURCE_DIR=$TMP/fake bash "$(dirname "$0")/ci_baselines.sh" >"$TMP/inner.out" 2>&1 \
    && { cat "$TMP/inner.out"; fail "a baseline with another thread allotment passed"; }
  grep -q "threads_per_replica baseline 2, today 1" "$TMP/inner.out" || { cat "$TMP/inner.out"; fail "the difference is not named"; }
fi
echo "ok"
