#!/usr/bin/env bash
# --runs P: the benchmark repeated in P fresh processes and pooled into one result whose CI comes from the
# runs' medians; bad values and launcher use refused; the trace comes from the first run.
source "$(dirname "$0")/lib.bash"
args=(--device cpu --model tiny --num-classes 10 --batch-size 8 --steps 6 --warmup 1 --no-progress)

expect_status 0 "$MGBENCH" "${args[@]}" --gpus 1,2 --runs 3 --json "$TMP/r.json" --trace "$TMP/t.json"
python3 - "$TMP/r.json" <<'PY' || fail "pooled result"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["config"]["runs"] == 3, d["config"]["runs"]
for r in d["runs"]:
    st = r["step_time"]
    assert r["run_samples"] == [6, 6, 6], r["run_samples"]
    assert st["samples"] == 18 and st["runs"] == 3 and st["ci95_method"] == "between-runs", st
    assert len(r["samples"]["total_s"]) == 18
    assert st["ci95_lo_s"] <= st["median_s"] <= st["ci95_hi_s"]
    assert r["replicas_identical"]
assert d["runs"][0]["scaling_efficiency"] == 1.0
PY
grep -q "3 runs in fresh processes" "$TMP/out" || { cat "$TMP/out"; fail "table header must say the runs were pooled"; }
[[ $(grep -c "images/s" "$TMP/out") -eq 1 ]] || { cat "$TMP/out"; fail "one table, not one per run"; }
json_check "$TMP/t.json" "len(d['traceEvents']) > 0" || fail "--trace with --runs: the first run writes it"

# A preset with runs must not make the children recurse: they get --runs 1 on their command line.
printf '{"runs": 2}\n' >"$TMP/preset.json"
expect_status 0 timeout 120 "$MGBENCH" "${args[@]}" --gpus 1 --config "$TMP/preset.json" --json "$TMP/p.json"
json_check "$TMP/p.json" "d['runs'][0]['run_samples'] == [6, 6]" || fail "--runs from a preset"

expect_usage_error "--runs 0 must be between 1 and 100" "$MGBENCH" "${args[@]}" --runs 0
expect_usage_error "--runs" env RANK=0 WORLD_SIZE=1 MASTER_ADDR=127.0.0.1 MASTER_PORT="$(free_port)" \
  "$MGBENCH" "${args[@]}" --runs 2
# A failing run stops the rest and its one-line error is the user's.
expect_usage_error "unknown model" "$MGBENCH" "${args[@]/tiny/nosuchnet}" --runs 2 --json "$TMP/none.json"
[[ ! -e "$TMP/none.json" ]] || fail "no result file after a failure"
echo "ok"
