#!/usr/bin/env bash
# scripts/clopper-pearson.py, the exact one-sided upper bound the gate's calibration prints beside a false-alarm
# count: the closed form at 0 events (1 - alpha^(1/N)), published table values at 1 and 2 events, the edges, and
# one-line errors.
source "$(dirname "$0")/lib.bash"
: "${MG_SOURCE_DIR:?}"
command -v python3 >/dev/null || { echo "skipped: python3 is needed"; exit 77; }
cp_bound=$MG_SOURCE_DIR/scripts/clopper-pearson.py

expect_bound() {  # expect_bound X N [CONF] WANT
  local want=${*: -1}
  expect_status 0 python3 "$cp_bound" "${@:1:$#-1}"
  [[ $(cat "$TMP/out") == "$want" ]] || fail "clopper-pearson ${*:1:$#-1}: got $(cat "$TMP/out"), expected $want"
}
# 0 events: 1 - 0.05^(1/N), so 0 of 20 allows up to 13.9 % and 0 of 59 up to 4.95 %.
expect_bound 0 20 0.1391
expect_bound 0 59 0.0495
expect_bound 0 20 0.99 0.2057
# With events (Clopper-Pearson tables, one-sided 95 %): 1 of 20 -> 0.2161, 2 of 10 -> 0.5069.
expect_bound 1 20 0.2161
expect_bound 2 10 0.5069
expect_bound 20 20 1.0000
expect_bound 0 1 0.9500

expect_usage_error "need 0 <= X <= N" python3 "$cp_bound" 3 2
expect_usage_error "X and N must be counts" python3 "$cp_bound" none 20
expect_usage_error "CONFIDENCE must be in \(0, 1\)" python3 "$cp_bound" 0 20 95
expect_usage_error "usage" python3 "$cp_bound" 0
echo "ok"
