#!/usr/bin/env bash
# A rank killed mid-run makes the survivor exit non-zero within --comm-timeout, naming the lost rank, not hang.
source "$(dirname "$0")/lib.bash"
port=$(free_port)
args=(--device cpu --model tiny --num-classes 10 --batch-size 8 --steps 100000 --warmup 1 --threads 1
      --progress --comm-timeout 10)
RANK=0 WORLD_SIZE=2 LOCAL_RANK=0 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port "$MGBENCH" "${args[@]}" \
  --json "$TMP/r.json" >"$TMP/r0.out" 2>&1 &
p0=$!
RANK=1 WORLD_SIZE=2 LOCAL_RANK=1 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port "$MGBENCH" "${args[@]}" >"$TMP/r1.out" 2>&1 &
p1=$!
# Rank 0's progress past a timed step: both ranks are in the timed steps.
wait_for "$TMP/r0.out" "step [1-9]" $p0
kill -9 $p1 2>/dev/null || { cat "$TMP/r1.out"; fail "rank 1 ended before it was killed"; }
start=$SECONDS
wait $p0
status=$?
elapsed=$((SECONDS - start))
cat "$TMP/r0.out"
[[ $status -ne 0 ]] || fail "the surviving rank exited 0"
[[ $elapsed -le 40 ]] || fail "the surviving rank took ${elapsed}s (timeout 10s)"
grep -qi "rank 1" "$TMP/r0.out" || fail "the error does not name the lost rank"
[[ ! -e "$TMP/r.json" ]] || fail "a failed run wrote a result"
echo "ok"
