#!/usr/bin/env bash
# scripts/measure/bench-ab.sh: before/after of two binaries, alternating, with the summary it writes; the direction of a
# known slowdown (AFTER slowed gives a ratio near the injected one, BEFORE slowed its inverse); and its one-line
# usage errors.
if ! command -v python3 >/dev/null; then echo "skipped: python3 is needed"; exit 77; fi
source "$(dirname "$0")/lib.bash"
script="$(dirname "$0")/../../scripts/measure/bench-ab.sh"
args=(--model tiny --device cpu --gpus 1 --batch-size 4 --steps 3 --warmup 1 --no-check)

BEFORE=$MGBENCH AFTER=$MGBENCH expect_status 0 bash "$script" "$TMP/ab" 2 "${args[@]}"
for f in before-1.json after-1.json before-2.json after-2.json log.txt summary.txt; do
  [[ -s $TMP/ab/$f ]] || fail "bench-ab wrote no $f"
done
grep -q "^after / before: [0-9.]* (medians); per round [0-9.]*, [0-9.]*$" "$TMP/ab/summary.txt" \
  || { cat "$TMP/ab/summary.txt"; fail "summary lacks the ratio line"; }
# The second round runs after first (order swapped), so both sides cannot be one fixed order.
grep -q "round 2 after done" "$TMP/ab/log.txt" || fail "log lacks round 2"
[[ $(grep -n "round 2" "$TMP/ab/log.txt" | head -1) == *"after"* ]] || fail "round 2 did not start with after"

# Direction: AFTER with every step twice as long (--inject-slowdown 1: throughput x 0.5), then the same binaries
# the other way round (x 2). Steps of tens of ms; the bands are wide, as a loaded machine moved a 3-round ratio
# of 0.667 to 0.358 (CI, 2026-11-27), so the bands check the direction and the arithmetic is checked exactly.
slowed=$TMP/slowed-mgbench
printf '#!/usr/bin/env bash\nexec "%s" "$@" --inject-slowdown 1\n' "$MGBENCH" >"$slowed" && chmod +x "$slowed"
long=(--model tiny --device cpu --gpus 1 --threads 1 --batch-size 256 --steps 8 --warmup 2 --no-check)
ratio() { sed -n 's/^after \/ before: \([0-9.]*\) (medians).*/\1/p' "$1/summary.txt"; }
BEFORE=$MGBENCH AFTER=$slowed expect_status 0 bash "$script" "$TMP/slower" 3 "${long[@]}"
json_check "$TMP/slower/after-1.json" "d['config']['inject_slowdown'] == 1" || fail "AFTER did not run slowed"
python3 -c "import sys; sys.exit(0 if 0.25 < float(sys.argv[1]) < 0.8 else 1)" "$(ratio "$TMP/slower")" \
  || { cat "$TMP/slower/summary.txt"; fail "AFTER 2x slower: ratio $(ratio "$TMP/slower"), expected about 0.5"; }
# The arithmetic, whatever the load: the headline is the ratio of the two sides' medians of their rounds.
python3 - "$TMP/slower/summary.txt" <<'PY' || { cat "$TMP/slower/summary.txt"; fail "after / before is not the ratio of the medians"; }
import re, statistics, sys
t = open(sys.argv[1]).read()
side = {s: [float(x) for x in re.search(rf"^{s} +img/s per round: ([0-9., ]+?)  median", t, re.M).group(1).split(", ")]
        for s in ("before", "after")}
ratio = float(re.search(r"^after / before: ([0-9.]+) \(medians\)", t, re.M).group(1))
assert abs(ratio - statistics.median(side["after"]) / statistics.median(side["before"])) < 1e-3, (ratio, side)
PY
grep -q "^direction: AFTER [0-9.]* % slower than BEFORE" "$TMP/slower/summary.txt" \
  || { cat "$TMP/slower/summary.txt"; fail "a slower AFTER is not called slower"; }
BEFORE=$slowed AFTER=$MGBENCH expect_status 0 bash "$script" "$TMP/faster" 3 "${long[@]}"
python3 -c "import sys; sys.exit(0 if 1.25 < float(sys.argv[1]) < 4 else 1)" "$(ratio "$TMP/faster")" \
  || { cat "$TMP/faster/summary.txt"; fail "BEFORE 2x slower: ratio $(ratio "$TMP/faster"), expected about 2"; }
grep -q "^direction: AFTER [0-9.]* % faster than BEFORE" "$TMP/faster/summary.txt" \
  || { cat "$TMP/faster/summary.txt"; fail "a faster AFTER is not called faster"; }

expect_usage_error "usage" env BEFORE="$MGBENCH" AFTER="$MGBENCH" bash "$script" "$TMP/x"
expect_usage_error "ROUNDS must be a positive integer" env BEFORE="$MGBENCH" AFTER="$MGBENCH" bash "$script" "$TMP/x" two
expect_usage_error "AFTER must name an mgbench binary" env BEFORE="$MGBENCH" AFTER=/nonexistent bash "$script" "$TMP/x" 1
expect_usage_error "give no --json" env BEFORE="$MGBENCH" AFTER="$MGBENCH" bash "$script" "$TMP/z" 1 --json "$TMP/z.json"
expect_usage_error "before run 1 failed" env BEFORE="$MGBENCH" AFTER="$MGBENCH" bash "$script" "$TMP/y" 1 --model nosuchnet
