#!/usr/bin/env bash
# A rank that stalls (SIGSTOP: alive, sockets open, silent) rather than dies: the other rank exits non-zero
# within --comm-timeout (plus the moment it takes to name the culprit), naming the stalled rank. Checked for a
# stalled rank 1 and a stalled rank 0 (which also serves the rendezvous store), in training and in
# `mgbench comm`.
source "$(dirname "$0")/lib.bash"
tmp=$TMP
pids=()
trap 'for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; kill -CONT "$p" 2>/dev/null; done; rm -rf "$tmp"' EXIT
timeout_s=8
# Margin over --comm-timeout: naming the rank asks the store (which answers at once, or within the timeout
# when its own process is the stalled one) on a loaded 2-core machine.
limit_s=$((timeout_s + 8))

train=(--device cpu --model resnet18 --image-size 32 --batch-size 4 --warmup 1 --steps 100000 --threads 1 --progress)

for what in train comm; do
  for victim in 1 0; do
    survivor=$((1 - victim))
    port=$(free_port)
    pids=()
    for r in 0 1; do
      if [[ $what == train ]]; then args=("${train[@]}"); else args=("${comm[@]}"); fi
      # comm: enough sizes that the run is still going when the rank is stopped.
      [[ $what == comm ]] && args=(comm --device cpu --op allreduce -b 4K -e 4M -f 1.01 --warmup 1 --iters 200)
      RANK=$r WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port "$MGBENCH" "${args[@]}" \
        --comm-timeout $timeout_s >"$tmp/out$r" 2>&1 &
      pids+=($!)
    done
    # Both past the rendezvous (each process says so once its world is formed) and, training, in the timed steps
    # (rank 0's progress past a timed step, which took an all-reduce with rank 1): set-up is not part of the limit.
    for r in 0 1; do wait_for "$tmp/out$r" "joined the world" "${pids[$r]}"; done
    [[ $what == comm ]] || wait_for "$tmp/out0" "step [1-9]" "${pids[0]}"
    kill -0 "${pids[$survivor]}" 2>/dev/null || { cat "$tmp/out$survivor"; fail "$what: rank $survivor ended early"; }
    kill -STOP "${pids[$victim]}"
    start=$(date +%s)
    for _ in $(seq 1 $((4 * (limit_s + 10)))); do
      kill -0 "${pids[$survivor]}" 2>/dev/null || break
      sleep 0.25
    done
    kill -0 "${pids[$survivor]}" 2>/dev/null && fail "$what: rank $survivor still running $((limit_s + 10)) s after rank $victim stalled"
    wait "${pids[$survivor]}"
    rc=$?
    elapsed=$(( $(date +%s) - start ))
    kill -KILL "${pids[$victim]}" 2>/dev/null
    kill -CONT "${pids[$victim]}" 2>/dev/null
    wait "${pids[$victim]}" 2>/dev/null
    pids=()
    [[ $rc -ne 0 ]] || fail "$what: rank $survivor exited 0 with rank $victim stalled"
    grep -q "rank $victim lost" "$tmp/out$survivor" ||
      { cat "$tmp/out$survivor"; fail "$what: the message does not name stalled rank $victim"; }
    ((elapsed <= limit_s)) || fail "$what: rank $survivor took ${elapsed}s (--comm-timeout ${timeout_s}s, limit ${limit_s}s)"
    echo "$what, rank $victim stalled: rank $survivor exited $rc after ${elapsed}s: $(tail -1 "$tmp/out$survivor")"
  done
done
echo "stall rank: ok"
