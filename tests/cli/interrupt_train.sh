#!/usr/bin/env bash
# Ctrl-C and `kill` during training: a device-count sweep (replicas as threads), a --runs set (child
# processes), and 2 env-launched ranks. Every process of the run stops within the limit, the status is
# 128+signal (130 SIGINT, 143 SIGTERM), no result file is written and an existing one is left as it was;
# a --runs parent killed outright (SIGKILL) takes its child with it. Each signal goes in once the run shows (its
# progress line on stderr, --progress) that it is in the timed steps of the entry meant.
source "$(dirname "$0")/interrupt.bash"
# Short steps: a stop is noticed between steps, so the step time is part of the time to stop.
train=(--device cpu --model resnet18 --image-size 32 --batch-size 4 --warmup 1 --progress)
long=(--steps 100000)
echo '{"previous": true}' >"$IT/r.json"
previous=$(cat "$IT/r.json")

check_previous() {
  [[ $(cat "$IT/r.json") == "$previous" ]] || fail "$1: the previous r.json was changed"
  no_temporaries "$IT"
}

# A sweep (1 then 2 replicas): interrupted during the first entry, and during the second.
for entry in 1 2; do
  start_run sweep$entry "$MGBENCH" "${train[@]}" --devices 1,2 --steps 40 --trace "$IT/t.json" --json "$IT/r.json"
  wait_for "$IT/sweep$entry.err" "x$entry: step [1-9]" "$RUN_PID"
  stop_run "$RUN_PID" INT 130 sweep$entry
  check_previous sweep$entry
  [[ ! -e $IT/t.json ]] || fail "sweep$entry: a trace was written by an interrupted run"
done

# --runs: the signal goes to the parent only (kill PID); the child must stop too.
for sig in INT TERM; do
  start_run runs$sig "$MGBENCH" "${train[@]}" --devices 2 --runs 2 "${long[@]}" --json "$IT/r.json"
  # The child's progress (it inherits the parent's stderr).
  wait_for "$IT/runs$sig.err" "step [1-9]" "$RUN_PID"
  want=130; [[ $sig == TERM ]] && want=143
  stop_run "$RUN_PID" "$sig" "$want" "runs$sig"
  check_previous "runs$sig"
done
ls /tmp/mgbench-child-* >/dev/null 2>&1 && echo "note: /tmp/mgbench-child-* exist (other runs may own them)"

# --runs parent killed outright: the child dies with it (PR_SET_PDEATHSIG).
start_run runsKILL "$MGBENCH" "${train[@]}" --devices 1 --runs 2 "${long[@]}" --json "$IT/r.json"
wait_group "$RUN_PID" 2 300 || fail "runsKILL: no child process started"
kill -KILL "$RUN_PID"
wait "$RUN_PID" 2>/dev/null
for _ in $(seq 1 $((STOP_LIMIT_S * 10))); do (( $(group_size "$RUN_PID") == 0 )) && break; sleep 0.1; done
(( $(group_size "$RUN_PID") == 0 )) || { pgrep -a -s "$RUN_PID"; fail "runsKILL: the child outlived its killed parent"; }
echo "runsKILL: child gone with its parent"
check_previous runsKILL

# Two env-launched ranks (one process each) and a signal to rank 0 only (a launcher that signals every rank,
# like mpirun, makes each stop on its own): rank 0 stops; rank 1 loses its peer and fails naming rank 0, well
# before --comm-timeout (60 s) because rank 0's connections are closed.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
for r in 0 1; do
  RANK=$r WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port start_run rank$r "$MGBENCH" "${train[@]}" \
    --threads 1 "${long[@]}" --comm-timeout 60 --json "$IT/r.json"
  rank_pid[$r]=$RUN_PID
done
# Rank 0's progress past a timed step: both ranks are past the rendezvous and in the timed steps.
wait_for "$IT/rank0.err" "step [1-9]" "${rank_pid[0]}"
t0=$(date +%s%N)
# Rank 0's own all-reduce in flight ends only when rank 1 closes its side (gloo_communicator.cpp), which rank 1
# does after up to 2 s of settling on who was lost; so rank 0 may be ended by its backstop (1.5 s), and this case
# checks its status, its time (backstop and exit) and the survivor, not its graceful path.
BACKSTOP_OK=1 STOP_LIMIT_S=$((STOP_LIMIT_S + 2)) stop_run "${rank_pid[0]}" TERM 143 rank0
survivor_limit_s=$((STOP_LIMIT_S + 10))
while kill -0 "${rank_pid[1]}" 2>/dev/null && (( ($(date +%s%N) - t0) / 1000000 < survivor_limit_s * 1000 + 5000 )); do sleep 0.05; done
kill -0 "${rank_pid[1]}" 2>/dev/null && fail "rank 1 still running after rank 0 was stopped"
wait "${rank_pid[1]}"
rc=$?
elapsed=$(( ($(date +%s%N) - t0) / 1000000 ))
[[ $rc -ne 0 ]] || fail "rank 1 exited 0 after losing rank 0"
(( elapsed < survivor_limit_s * 1000 )) || fail "rank 1 took ${elapsed} ms to stop (limit ${survivor_limit_s} s, --comm-timeout 60)"
grep -q "rank 0" "$IT/rank1.err" || { cat "$IT/rank1.err"; fail "rank 1's error does not name rank 0 (exit $rc)"; }
echo "rank1: exit $rc ${elapsed} ms after rank 0's SIGTERM: $(tail -1 "$IT/rank1.err")"
check_previous ranks
echo "interrupt train: ok"
