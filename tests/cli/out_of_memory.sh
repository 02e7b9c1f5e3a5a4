#!/usr/bin/env bash
# Memory exhausted: one error naming the model, the batch size and the peak reached; exit 1; no result file.
# The CPU backend's "device" memory is host memory, so an address-space limit stands in for a full GPU.
source "$(dirname "$0")/lib.bash"
( ulimit -v 3000000
  "$MGBENCH" --device cpu --gpus 1 --model resnet50 --batch-size 512 --steps 1 --warmup 0 --no-progress \
    --json "$TMP/r.json" >"$TMP/out" 2>"$TMP/err"
  echo $? >"$TMP/status" )
[[ $(cat "$TMP/status") == 1 ]] || { cat "$TMP/err"; fail "expected exit status 1, got $(cat "$TMP/status")"; }
grep -q "out of memory training resnet50 at batch size 512" "$TMP/err" || { cat "$TMP/err"; fail "model/batch not named"; }
grep -q "peak" "$TMP/err" || { cat "$TMP/err"; fail "peak memory not named"; }
[[ $(wc -l <"$TMP/err") -eq 1 ]] || { cat "$TMP/err"; fail "not one line"; }
[[ ! -e "$TMP/r.json" ]] || fail "a failed run wrote a result"
echo "ok"
