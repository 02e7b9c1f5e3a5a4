#!/usr/bin/env bash
# scripts/ci-regression.sh as a CI job runs it, on a shortened preset (the real measurement of the gate is
# results/validity/gate-*): interleaved A/B with wrapper scripts as binaries, a known slowdown that must be found,
# --strict, committed-baseline mode, --calibrate, and bad input (not mgbench, different presets): exit 2, one
# line, nothing written.
source "$(dirname "$0")/lib.bash"
: "${MG_SOURCE_DIR:?}"
command -v python3 >/dev/null || { echo "skipped: python3 is needed to read the reports"; exit 77; }
gate=$MG_SOURCE_DIR/scripts/ci-regression.sh
short=(--steps 4 --warmup 1 --batch-size 128)  # steps of tens of ms: 1 ms steps are scheduling noise

# wrapper NAME ARGS...: an executable that is mgbench with ARGS appended to benchmark runs (a wrapper script,
# as a CI job might use to pin or instrument a binary).
wrapper() {
  local path=$TMP/$1
  shift
  cat >"$path" <<SH
#!/usr/bin/env bash
case \$1 in --version|compare) exec "$MGBENCH" "\$@" ;; esac
exec "$MGBENCH" "\$@" $*
SH
  chmod +x "$path"
  echo "$path"
}
slow=$(wrapper slow-mgbench --inject-slowdown 4)      # every step 5x as long
other=$(wrapper other-preset --num-classes 20)                # the same preset, run differently

# A 5x slowdown in NEW is found: 6 pairs all slower (p = 2/64), ratio far below 0.95.
export OUT_DIR=$TMP/ab
expect_status 1 "$gate" --base "$MGBENCH" --new "$slow" --runs 6 -- "${short[@]}"
[[ $(ls "$OUT_DIR/base" | wc -l) -eq 6 && $(ls "$OUT_DIR/new" | wc -l) -eq 6 ]] || fail "expected 6 runs per side"
json_check "$OUT_DIR/compare.json" "d['options']['paired'] and d['pairs'][0]['verdict'] == 'regression'" \
  || fail "interleaved gate: expected a paired regression verdict"
json_check "$OUT_DIR/compare.json" "d['pairs'][0]['base']['runs'] == 6 and d['pairs'][0]['significance_judged']" \
  || fail "interleaved gate: six runs per side, significance judged"
json_check "$OUT_DIR/new/run-01.json" "d['config']['inject_slowdown'] == 4" || fail "--inject-slowdown not recorded"
json_check "$OUT_DIR/base/run-01.json" "d['config']['inject_slowdown'] == 0" || fail "BASE ran slowed"
grep -q "smallest detectable slowdown" "$OUT_DIR/compare.md" || fail "the report does not state its noise floor"
grep -q "performance regression" "$TMP/out" || fail "no regression line"

# Too few runs to judge significance: labelled; --strict refuses to vouch for it (exit 2 with the reason).
export OUT_DIR=$TMP/few
expect_status 2 "$gate" --base "$MGBENCH" --new "$slow" --runs 2 --strict -- "${short[@]}"
grep -q "^mgbench: --strict: .*significance not judged" "$TMP/err" || { cat "$TMP/err"; fail "--strict: no reason"; }
grep -q "regression (threshold only)" "$OUT_DIR/compare.md" || fail "threshold-only verdict not labelled"
json_check "$OUT_DIR/compare.json" "d['pairs'][0]['method'] == 'threshold only' and d['pairs'][0]['p_value'] is None" \
  || fail "threshold-only verdict not labelled in JSON"

# Bad input: one line, exit 2, nothing written.
export OUT_DIR=$TMP/never
expect_usage_error "BASE /bin/true is not mgbench" "$gate" --base /bin/true --new "$MGBENCH" --runs 2
expect_usage_error "NEW $TMP/absent is not an executable" "$gate" --base "$MGBENCH" --new "$TMP/absent"
expect_usage_error "--runs expects a count" "$gate" --base "$MGBENCH" --runs 0
expect_usage_error "no preset .*/configs/nope.json" "$gate" --base "$MGBENCH" --preset nope
expect_usage_error "inject-slowdown must be a fraction" "$MGBENCH" --model tiny --inject-slowdown -1 --json "$OUT_DIR.json"
[[ ! -e $OUT_DIR.json ]] || fail "a refused run wrote a result"
[[ ! -e $OUT_DIR ]] || fail "bad input wrote $OUT_DIR"
export OUT_DIR=$TMP/presets
expect_status 2 "$gate" --base "$MGBENCH" --new "$other" --runs 2 -- "${short[@]}"
grep -q "BASE and NEW ran different presets (num-classes 10 vs 20" "$TMP/err" || { cat "$TMP/err"; fail "differing presets"; }
[[ ! -e $OUT_DIR/compare.md && ! -e $OUT_DIR/compare.json ]] || fail "a refused comparison wrote a report"

# Committed-baseline mode: the committed baseline ran the full preset, a shortened run is another preset.
export OUT_DIR=$TMP/committed
expect_status 2 "$gate" --runs 2 -- "${short[@]}"
grep -q "ran different presets" "$TMP/err" || { cat "$TMP/err"; fail "committed baseline vs shortened preset"; }

# --calibrate: one trial with a 5x slowdown must be detected; both rates printed.
export OUT_DIR=$TMP/cal
expect_status 0 "$gate" --calibrate --trials 1 --runs 6 --slowdown 4 -- "${short[@]}"
grep -Eq "^false alarms \(A vs A judged a regression\): [01] of 1$" "$TMP/out" || { cat "$TMP/out"; fail "no false-alarm rate"; }
grep -q "^detected (slowdown 4 judged a regression): 1 of 1$" "$TMP/out" || { cat "$TMP/out"; fail "no detection rate"; }
echo "ok"
