#!/usr/bin/env bash
# A rank killed mid-sweep (kill -9: no clean-up, no goodbye) makes the survivor exit non-zero within
# --comm-timeout with a message naming the lost rank; checked for losing rank 1 and for losing rank 0 (which
# also serves the rendezvous store).
source "$(dirname "$0")/lib.bash"
tmp=$TMP
pids=()
trap 'for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done; rm -rf "$tmp"' EXIT
timeout_s=10

for victim in 1 0; do
  survivor=$((1 - victim))
  port=$(free_port)
  pids=()
  for r in 0 1; do
    RANK=$r WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port "$MGBENCH" comm --device cpu --op allreduce \
      -b 16M -e 16M --warmup 1 --iters 100000 --comm-timeout $timeout_s >"$tmp/out$r" 2>&1 &
    pids+=($!)
  done
  # Both past the rendezvous: each process says so once its world is formed.
  for r in 0 1; do wait_for "$tmp/out$r" "joined the world" "${pids[$r]}"; done
  kill -0 "${pids[$survivor]}" 2>/dev/null || { cat "$tmp/out$survivor"; fail "rank $survivor ended before the kill"; }
  kill -9 "${pids[$victim]}"
  wait "${pids[$victim]}" 2>/dev/null
  start=$(date +%s)
  # Bounded wait: a survivor that hangs is the failure this test exists to catch.
  for _ in $(seq 1 $((4 * (timeout_s + 10)))); do
    kill -0 "${pids[$survivor]}" 2>/dev/null || break
    sleep 0.25
  done
  if kill -0 "${pids[$survivor]}" 2>/dev/null; then
    fail "rank $survivor still running $((timeout_s + 10)) s after rank $victim was killed"
  fi
  wait "${pids[$survivor]}"
  rc=$?
  elapsed=$(( $(date +%s) - start ))
  pids=()
  [ "$rc" -ne 0 ] || fail "rank $survivor exited 0 after losing rank $victim"
  grep -q "rank $victim lost" "$tmp/out$survivor" || { cat "$tmp/out$survivor"; fail "message does not name rank $victim"; }
  [ "$elapsed" -le $((timeout_s + 5)) ] || fail "rank $survivor took ${elapsed}s to fail (timeout ${timeout_s}s)"
  echo "killed rank $victim: rank $survivor exited $rc after ${elapsed}s: $(tail -1 "$tmp/out$survivor")"
done
echo "comm dead rank: ok"
