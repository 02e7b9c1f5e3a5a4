#!/usr/bin/env bash
# A language model on the training command line: one clear line and status 2, no result file, until the input
# pipeline makes tokens (the models and the layers exist; ModelGraph trains them in tests/train).
set -euo pipefail
if [[ -z "${MGBENCH:-}" || ! -x "$MGBENCH" ]]; then echo "skipped: MGBENCH is not an executable ('${MGBENCH:-}')"; exit 77; fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

rc=0
"$MGBENCH" --device cpu --model gpt2-tiny --steps 3 --batch-size 2 --json "$tmp/r.json" >"$tmp/out" 2>"$tmp/err" || rc=$?
[[ $rc -eq 2 ]] || fail "exit status $rc, expected 2: $(cat "$tmp/err")"
[[ $(wc -l <"$tmp/err") -eq 1 ]] || fail "expected one line on stderr: $(cat "$tmp/err")"
grep -q "gpt2-tiny is a language model" "$tmp/err" || fail "the error does not name the model: $(cat "$tmp/err")"
[[ ! -e "$tmp/r.json" ]] || fail "a result file was written"
echo "ok"
