#!/usr/bin/env bash
# `mgbench compare` as a CI job uses it: exit status, table, --markdown, --json, one-line errors. Result files
# are crafted from a complete result (test_result's [example-result] case) with step times drawn from a seeded
# RNG, so every verdict below is known in advance.
source "$(dirname "$0")/lib.bash"
: "${MG_BINARY_DIR:?}"
command -v python3 >/dev/null || { echo "skipped: python3 is needed to craft result files"; exit 77; }

test_result="$MG_BINARY_DIR/tests/test_result"
[[ -x $test_result ]] || fail "$test_result not built (it writes the template result)"
MG_EXAMPLE_RESULT_OUT="$TMP/template.json" "$test_result" "[example-result]" >/dev/null 2>&1 \
  || fail "test_result [example-result] failed"

# craft OUT SCALE SEED [DEVICE_COUNTS...]: the template with 40 lognormal (3%) step times per run of median
# 0.1 s x devices-dependent factor x SCALE, keeping only the listed device counts (default all).
craft() {
  python3 - "$TMP/template.json" "$@" <<'PY'
import json, random, sys
src, out, scale, seed = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
keep = {int(x) for x in sys.argv[5:]}
d = json.load(open(src))
rng = random.Random(seed)
d["runs"] = [r for r in d["runs"] if not keep or r["devices"] in keep]
parts = {"input_wait_s": .02, "forward_s": .3, "backward_s": .45, "comm_exposed_s": .05,
         "comm_overlapped_s": .08, "optimizer_s": .1}
for r in d["runs"]:
    totals = [0.1 * (1 + 0.05 * r["devices"]) * scale * rng.lognormvariate(0, 0.03) for _ in range(40)]
    r["samples"] = {"total_s": totals, **{k: [f * t for t in totals] for k, f in parts.items()}}
json.dump(d, open(out, "w"))
PY
}

craft "$TMP/base.json" 1.0 1
craft "$TMP/same.json" 1.0 2
craft "$TMP/slow.json" 1.1 3
craft "$TMP/fast.json" 0.9 4
craft "$TMP/partial.json" 1.0 5 1 2

# Identical files and an equal distribution: no change, exit 0.
expect_status 0 "$MGBENCH" compare "$TMP/base.json" "$TMP/base.json"
[[ $(grep -c "no change" "$TMP/out") -ge 3 ]] || { cat "$TMP/out"; fail "identical files: expected 'no change' rows"; }
expect_status 0 "$MGBENCH" compare "$TMP/base.json" "$TMP/same.json"
grep -q "0 regression(s)" "$TMP/out" || { cat "$TMP/out"; fail "equal distributions: expected no regression"; }

# 10% slower: regression, exit 1, with the Markdown and JSON reports written.
expect_status 1 "$MGBENCH" compare "$TMP/base.json" "$TMP/slow.json" --markdown "$TMP/cmp.md" --json "$TMP/cmp.json"
grep -q "regression" "$TMP/out" || fail "slowdown: no regression row"
grep -q "^| run | BASE img/s" "$TMP/cmp.md" || fail "markdown table missing"
[[ $(json_get "$TMP/cmp.json" "d['regression'], d['exit_status'], len(d['pairs'])") == "True 1 3" ]] \
  || fail "compare JSON: $(json_get "$TMP/cmp.json" "d['regression'], d['exit_status'], len(d['pairs'])")"
# A 20% threshold tolerates it.
expect_status 0 "$MGBENCH" compare "$TMP/base.json" "$TMP/slow.json" --threshold 20%

# 10% faster: improvement, exit 0.
expect_status 0 "$MGBENCH" compare "$TMP/base.json" "$TMP/fast.json"
grep -q "3 improvement(s)" "$TMP/out" || { cat "$TMP/out"; fail "speed-up: expected 3 improvements"; }

# Runs on one side only are reported, not an error; folders work like files.
expect_status 0 "$MGBENCH" compare "$TMP/base.json" "$TMP/partial.json"
grep -q "only in BASE: .* x4" "$TMP/out" || { cat "$TMP/out"; fail "one-sided run not listed"; }
mkdir -p "$TMP/b" "$TMP/n" && cp "$TMP/base.json" "$TMP/b/" && cp "$TMP/slow.json" "$TMP/n/"
expect_status 1 "$MGBENCH" compare "$TMP/b" "$TMP/n"

# Unusable input: exit 2 and one line naming the file or option.
expect_usage_error "cannot read $TMP/absent.json" "$MGBENCH" compare "$TMP/base.json" "$TMP/absent.json"
echo '{"schema_version": 1, "runs": [' >"$TMP/malformed.json"
expect_usage_error "$TMP/malformed.json: not valid JSON" "$MGBENCH" compare "$TMP/malformed.json" "$TMP/base.json"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d['schema_version']=99; json.dump(d, open(sys.argv[2],'w'))" \
  "$TMP/base.json" "$TMP/v99.json"
expect_usage_error "v99.json: schema_version 99, this mgbench reads 1" "$MGBENCH" compare "$TMP/base.json" "$TMP/v99.json"
expect_usage_error "--threshold expects a number" "$MGBENCH" compare "$TMP/base.json" "$TMP/same.json" --threshold fast
expect_usage_error "cannot write $TMP/no/dir/c.md" "$MGBENCH" compare "$TMP/base.json" "$TMP/same.json" \
  --markdown "$TMP/no/dir/c.md"
expect_status 2 "$MGBENCH" compare "$TMP/base.json"
echo "ok"
