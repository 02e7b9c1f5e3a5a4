#!/usr/bin/env bash
# scripts/ci-regression.sh as a CI job runs it, on a shortened preset (the real measurement of the gate is
# results/validity/gate-*): interleaved A/B with wrapper scripts as binaries, a known slowdown that must be found,
# runs that did not alternate refused, --strict, committed-baseline mode (a baseline only for the machine it was
# made on), --calibrate (and its failure when a comparison was unusable), and bad input (not mgbench, different
# presets): exit 2, one line, nothing written.
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
# Every run recorded when it ran, and the gate made them BASE NEW BASE NEW ...
python3 - "$OUT_DIR" <<'PY' || fail "the gate's runs did not alternate by their recorded times"
import glob, json, sys
runs = sorted((json.load(open(f))["process_runs"][0]["started_unix_s"], f.split("/")[-2])
              for f in glob.glob(sys.argv[1] + "/*/run-*.json"))
sys.exit(0 if [side for _, side in runs] == ["base", "new"] * 6 else 1)
PY
# The same files with two NEW runs swapped are no longer back-to-back pairs: refused, one line, no verdict.
mv "$OUT_DIR/new/run-01.json" "$TMP/swap.json" && mv "$OUT_DIR/new/run-03.json" "$OUT_DIR/new/run-01.json"
mv "$TMP/swap.json" "$OUT_DIR/new/run-03.json"
expect_usage_error "^mgbench: error: --paired: BASE .*/base/run-01.json and NEW .*/new/run-01.json \(pair 1\) did not run back to back: 4 other run\(s\)" \
  "$MGBENCH" compare "$OUT_DIR/base" "$OUT_DIR/new" --paired
expect_status 1 "$MGBENCH" compare "$OUT_DIR/base" "$OUT_DIR/new"  # unpaired, order does not matter

# A realistic slowdown, 10 %, at the gate's default 30 pairs and this VM's measured noise (one run varies by about
# 8 %, results/validity), with slow periods of the machine that hit both runs of a pair. A real 10 % slowdown
# is not found reliably on two busy cores in a test's time, so these runs are crafted, as a seeded function of
# side and run number, from a real result; the gate, its alternation check and compare run as in CI.
"$MGBENCH" --config "$MG_SOURCE_DIR/configs/ci-smoke.json" --no-progress --json "$TMP/template.json" \
  "${short[@]}" >/dev/null || fail "template run failed"
crafted=$TMP/crafted-mgbench
cat >"$crafted" <<PY
#!/usr/bin/env python3
import json, math, os, random, re, sys, time
if len(sys.argv) > 1 and sys.argv[1] in ("--version", "compare"):
    os.execv("$MGBENCH", ["$MGBENCH"] + sys.argv[1:])
started = time.time()
args = sys.argv[1:]
path = args[args.index("--json") + 1]
slowdown = float(args[args.index("--inject-slowdown") + 1]) if "--inject-slowdown" in args else 0.0
side, run = re.search(r"/(\w+)/run-(\d+)\.json$", path).groups()
rng = random.Random(f"{side}-{run}")
machine = 1 + 0.25 * max(0.0, math.sin(int(run) / 3))  # slow periods, shared by the pair
run_factor = machine * (1 + slowdown) * math.exp(rng.gauss(0, 0.08))
d = json.load(open("$TMP/template.json"))
d["config"]["inject_slowdown"] = slowdown
steps = [0.03 * run_factor * math.exp(rng.gauss(0, 0.02)) for _ in range(20)]
d["runs"][0]["samples"] = {k: [x * (1 if k == "total_s" else 0.2) for x in steps] for k in d["runs"][0]["samples"]}
d["process_runs"] = [{"started_unix_s": started, "finished_unix_s": time.time()}]
json.dump(d, open(path, "w"))
PY
chmod +x "$crafted"
crafted10=$TMP/crafted10-mgbench
printf '#!/usr/bin/env bash\ncase $1 in --version|compare) exec "%s" "$@" ;; esac\nexec "%s" "$@" --inject-slowdown 0.10\n' \
  "$MGBENCH" "$crafted" >"$crafted10" && chmod +x "$crafted10"
export OUT_DIR=$TMP/ab10
expect_status 1 "$gate" --base "$crafted" --new "$crafted10" --runs 30 -- "${short[@]}"
json_check "$OUT_DIR/compare.json" "d['pairs'][0]['verdict'] == 'regression' and 0.87 < d['pairs'][0]['ratio'] < 0.95" \
  || fail "10 % slowdown: $(json_get "$OUT_DIR/compare.json" "d['pairs'][0]['verdict'], d['pairs'][0]['ratio']")"
# The same noise without the slowdown is no regression.
export OUT_DIR=$TMP/aa10
expect_status 0 "$gate" --base "$crafted" --new "$crafted" --runs 30 -- "${short[@]}"

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

# Committed-baseline mode, in a copy of the tree whose baselines are known: a baseline is used only on the machine
# whose fingerprint it is filed under.
tree=$TMP/tree
mkdir -p "$tree/scripts" "$tree/configs"
cp "$MG_SOURCE_DIR"/scripts/{ci-regression.sh,machine-fingerprint.sh,clopper-pearson.py} "$tree/scripts/"
cp "$MG_SOURCE_DIR/configs/ci-smoke.json" "$tree/configs/"
here=$("$tree/scripts/machine-fingerprint.sh")
mkdir -p "$tree/results/baselines/other-cpu_avx2_64cpus_cpu"
first=$(ls "$MG_SOURCE_DIR"/results/baselines/*/ci-smoke.json | head -n 1)
[[ -n $first ]] || fail "no committed ci-smoke baseline"
cp "$first" "$tree/results/baselines/other-cpu_avx2_64cpus_cpu/ci-smoke.json"
export OUT_DIR=$TMP/committed
expect_usage_error "no committed ci-smoke baseline for this machine \($here; baselines exist for: other-cpu_avx2_64cpus_cpu\).*--base BASE_BIN" \
  "$tree/scripts/ci-regression.sh" --new "$MGBENCH" --runs 2 -- "${short[@]}"
[[ ! -e $OUT_DIR ]] || fail "a gate without a baseline for this machine wrote $OUT_DIR"
# --update-baseline files it under this machine, with a note of how it was made; then the gate uses it.
expect_status 0 "$tree/scripts/ci-regression.sh" --update-baseline --new "$MGBENCH" --runs 2 -- "${short[@]}"
note=$tree/results/baselines/$here/ci-smoke.txt
[[ -s $tree/results/baselines/$here/ci-smoke.json ]] || fail "--update-baseline wrote no $here/ci-smoke.json"
for line in "^command: scripts/ci-regression.sh --update-baseline --preset ci-smoke --runs 2 -- --steps 4" \
  "^machine: CPU '.*', ISA [a-z0-9]*, [0-9]* CPUs usable, device cpu" "^mgbench: mgbench " "^date: 20"; do
  grep -q -- "$line" "$note" || { cat "$note"; fail "baseline note lacks /$line/"; }
done
expect_status 1 "$tree/scripts/ci-regression.sh" --new "$slow" --runs 2 -- "${short[@]}"
json_check "$OUT_DIR/compare.json" "d['options']['across_time'] and not d['options']['paired']" \
  || fail "committed-baseline mode: not labelled across time"
# The baseline ran a shortened preset; the full preset is another one.
expect_status 2 "$tree/scripts/ci-regression.sh" --new "$MGBENCH" --runs 2
grep -q "ran different presets" "$TMP/err" || { cat "$TMP/err"; fail "committed baseline vs another preset"; }

# --calibrate with two binaries of the same source (A and A' as separate files): one trial with a 5x slowdown
# must be detected; both counts printed with their exact bounds.
cp "$MGBENCH" "$TMP/mgbench-a2"
export OUT_DIR=$TMP/cal
expect_status 0 "$gate" --calibrate --base "$TMP/mgbench-a2" --trials 1 --runs 6 --slowdown 4 -- "${short[@]}"
grep -Eq "^false alarms \(A vs A' judged a regression\): 0 of 1 \(exact one-sided 95 % upper bound of the rate: 95.0 %\)$|^false alarms .*: 1 of 1 \(.*: 100.0 %\)$" \
  "$TMP/out" || { cat "$TMP/out"; fail "no false-alarm rate"; }
grep -q "^detected (slowdown 4 judged a regression): 1 of 1 (exact one-sided 95 % lower bound of the rate: 5.0 %)$" \
  "$TMP/out" || { cat "$TMP/out"; fail "no detection rate"; }
# --slowdown 0 measures false alarms only: no slowed arm runs, no detection line, one gate per trial.
export OUT_DIR=$TMP/cal-fa
expect_status 0 "$gate" --calibrate --base "$TMP/mgbench-a2" --trials 1 --runs 4 --slowdown 0 -- "${short[@]}"
grep -q "^false alarms (A vs A' judged a regression): [01] of 1 " "$TMP/out" || { cat "$TMP/out"; fail "--slowdown 0: no false-alarm rate"; }
! grep -q "^detected" "$TMP/out" && [[ ! -e $OUT_DIR/calibrate/trial-01/slow ]] && grep -q "s for 1 gates$" "$TMP/out" \
  || { cat "$TMP/out"; fail "--slowdown 0 still ran the slowed arm"; }
# A' of another version is not a false-alarm measurement.
other_version=$TMP/other-version
printf '#!/usr/bin/env bash\n[[ $1 == --version ]] && { echo "mgbench 9.9 (other)"; exit 0; }\nexec "%s" "$@"\n' \
  "$MGBENCH" >"$other_version" && chmod +x "$other_version"
expect_usage_error "--calibrate: BASE and NEW report different versions" "$gate" --calibrate --base "$other_version" \
  --trials 1 --runs 2 -- "${short[@]}"
# A calibration whose comparisons were unusable (2 runs cannot be judged; --strict refuses them) fails, one line.
export OUT_DIR=$TMP/cal-unusable
expect_usage_error "^ci-regression: --calibrate: 2 of 2 comparisons were unusable \(exit 2\).*significance not judged" \
  "$gate" --calibrate --trials 1 --runs 2 --strict -- "${short[@]}"
grep -q "^comparisons that exited 2 (unusable or --strict): 2$" "$TMP/out" || { cat "$TMP/out"; fail "unusable count"; }
echo "ok"
