#!/usr/bin/env bash
# scripts/bench-ab.sh: before/after of two binaries, alternating, with the summary it writes; and its one-line
# usage errors.
if ! command -v python3 >/dev/null; then echo "skipped: python3 is needed"; exit 77; fi
source "$(dirname "$0")/lib.bash"
script="$(dirname "$0")/../../scripts/bench-ab.sh"
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

expect_usage_error "usage" env BEFORE="$MGBENCH" AFTER="$MGBENCH" bash "$script" "$TMP/x"
expect_usage_error "ROUNDS must be a positive integer" env BEFORE="$MGBENCH" AFTER="$MGBENCH" bash "$script" "$TMP/x" two
expect_usage_error "AFTER must name an mgbench binary" env BEFORE="$MGBENCH" AFTER=/nonexistent bash "$script" "$TMP/x" 1
expect_usage_error "give no --json" env BEFORE="$MGBENCH" AFTER="$MGBENCH" bash "$script" "$TMP/z" 1 --json "$TMP/z.json"
expect_usage_error "before run 1 failed" env BEFORE="$MGBENCH" AFTER="$MGBENCH" bash "$script" "$TMP/y" 1 --model nosuchnet
