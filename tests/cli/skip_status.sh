#!/usr/bin/env bash
# MG_SKIP's exit status, which ctest reads (SKIP_RETURN_CODE 77): a test binary whose every selected case skipped
# exits 77, so the case shows as skipped, not passed; one that ran or failed a case does not.
source "$(dirname "$0")/lib.bash"
: "${MG_BINARY_DIR:?}"
bin=$MG_BINARY_DIR/tests/test_core
[[ -x $bin ]] || fail "$bin is not built"
expect_status 77 "$bin" "[.skip-probe]"
grep -q "skipped: the probe always skips" "$TMP/out" || { cat "$TMP/out"; fail "the skip's reason is not shown"; }
expect_status 0 "$bin" "[.pass-probe]"
expect_status 0 "$bin" "[.skip-probe],[.pass-probe]"  # not every case skipped: the run passed
expect_status 1 "$bin" "[.fail-then-skip-probe]"      # a failed check before the skip is a failure
echo "skip_status: ok"
