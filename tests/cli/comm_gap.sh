#!/usr/bin/env bash
# mgbench comm --gap: every size also timed one collective at a time, each issued after a gap of busy work, as a
# training step issues its all-reduce; recorded per row; predict prices an all-reduce that starts on an idle comm
# stream from it and one queued behind another from the back-to-back loop.
source "$(dirname "$0")/lib.bash"

# Sizes up to 16 MiB: predict fits a bandwidth to the back-to-back times, and under ctest -j2 on two cores the
# ranks' hand-overs wait for time slices; up to 1 MiB that wait could outweigh the transfer (1 run in 30 beside two
# busy loops timed 1 MiB no slower than 4 KiB, and predict rightly refused the file).
expect_status 0 "$MGBENCH" comm --device cpu --devices 2 -b 4K -e 16M -f 64 --warmup 1 --iters 3 --gap 0.005 \
  --min-time 0.05 --json "$TMP/gap.json"
grep -q "after a gap of 0.005 s of busy work" "$TMP/out" || { cat "$TMP/out"; fail "comm --gap: no gap table"; }
python3 - "$TMP/gap.json" <<'PY' || fail "comm --gap rows"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["gap_s"] == 0.005 and d["min_time_s"] == 0.05, d
assert len(d["results"]) == 6
for r in d["results"]:
    assert r["wrong"] == 0 and r["gap_time_us"] > 0, r
    # --min-time counts the gaps: the last loop of gap + collective lasted the time (as rank 0 timed it; the row
    # is the mean over ranks). 3 iterations of a 5 ms gap and a 4 KiB exchange between threads cannot, unless a
    # stall made them, so the 4 KiB rows fail this when the count never grows (a 16 MiB exchange may take
    # long enough for 3 to pass).
    assert r["gap_iters"] * (d["gap_s"] + r["gap_time_us"] * 1e-6) >= 0.05 * 0.5, r
PY
expect_status 0 "$MGBENCH" comm --device cpu --devices 2 -b 4K -e 4K --warmup 0 --iters 2 --json "$TMP/plain.json"
json_check "$TMP/plain.json" "d['gap_s'] == 0 and all('gap_time_us' not in r for r in d['results'])" \
  || fail "without --gap the rows have no gap time"
! grep -q "after a gap" "$TMP/out" || fail "without --gap no gap table"
expect_usage_error "--gap must be" "$MGBENCH" comm --device cpu --devices 2 --gap -1
expect_usage_error "--gap must be" "$MGBENCH" comm --device cpu --devices 2 --gap nan

# predict: the tiny model has one 6344-byte bucket, issued onto an idle comm stream after backward: it costs the
# gap curve (mean of both placements, linear between 4 and 256 KiB), not the back-to-back one.
"$MGBENCH" --device cpu --model tiny --num-classes 10 --batch-size 8 --steps 3 --warmup 1 --no-progress --devices 1 \
  --json "$TMP/prof.json" >/dev/null || fail "profile"
expect_status 0 "$MGBENCH" predict --profile "$TMP/prof.json" --gpus 2 --link "$TMP/gap.json" --json "$TMP/pg.json"
grep -q "after a gap of 0.005 s" "$TMP/out" || { cat "$TMP/out"; fail "predict does not describe the gap curve"; }
# The same measurement without its gap figures: the back-to-back price.
python3 - "$TMP/gap.json" "$TMP/nogap.json" <<'PY' || fail "stripping the gap"
import json, sys
d = json.load(open(sys.argv[1]))
d["gap_s"] = 0
for r in d["results"]:
    del r["gap_time_us"], r["gap_iters"]
json.dump(d, open(sys.argv[2], "w"))
PY
expect_status 0 "$MGBENCH" predict --profile "$TMP/prof.json" --gpus 2 --link "$TMP/nogap.json" --json "$TMP/pn.json"
python3 - "$TMP/gap.json" "$TMP/pg.json" "$TMP/pn.json" <<'PY' || fail "predict with a gap curve"
import json, sys
c, g, n = (json.load(open(p)) for p in sys.argv[1:])
def curve(key):
    by = {}
    for r in c["results"]:
        by.setdefault(r["bytes"], []).append(r[key] * 1e-6)
    return sorted((b, sum(v) / len(v)) for b, v in by.items())
def at(cv, x):
    (x0, y0), (x1, y1) = cv[0], cv[1]
    assert x0 <= x <= x1
    return y0 + (x - x0) / (x1 - x0) * (y1 - y0)
rg, rn = g["runs"][0], n["runs"][0]
assert rg["allreduce"]["buckets"] == 1 and rg["allreduce"]["bytes_per_step"] == 6344, rg["allreduce"]
want_g, want_n = at(curve("gap_time_us"), 6344), at(curve("time_us"), 6344)
assert abs(rg["allreduce"]["time_s"] - want_g) < 1e-6 * want_g, (rg["allreduce"]["time_s"], want_g)
assert abs(rn["allreduce"]["time_s"] - want_n) < 1e-6 * want_n, (rn["allreduce"]["time_s"], want_n)
ic = g["environment"]["topology"]["prediction"]["interconnects"][0]
assert ic["allreduces_after_gap"]["2"] == 1 and ic["intra"]["gap_s"] == 0.005 and ic["intra"]["gap_curve_points"] == 3, ic
assert n["environment"]["topology"]["prediction"]["interconnects"][0]["intra"]["gap_curve_points"] == 0
PY
# A result that claims --gap but lacks a row's figure is refused.
python3 - "$TMP/gap.json" "$TMP/half.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["results"][2:]:
    del r["gap_time_us"]
json.dump(d, open(sys.argv[2], "w"))
PY
expect_usage_error "lack gap_time_us" "$MGBENCH" predict --profile "$TMP/prof.json" --gpus 2 --link "$TMP/half.json"
echo "comm gap: ok"
