#!/usr/bin/env bash
# Ctrl-C and `kill` during `mgbench comm`: ranks as threads of one process, and 2 ranks under mpirun (mpirun
# passes the signal to every rank). Every process of the run stops within the limit, exits 128+signal (mpirun:
# non-zero) and writes no JSON.
source "$(dirname "$0")/interrupt.bash"
comm=(comm --device cpu --op allreduce -b 4M -e 4M --warmup 1 --iters 1000000 --comm-timeout 60)

# Ranks as threads: once the stop handlers are in place a signal takes the graceful path wherever the run is,
# since the abort that releases the collectives is registered before any runs (and at once if it came earlier).
start_run threads "$MGBENCH" "${comm[@]}" --devices 2 --json "$IT/c.json"
wait_handlers "$RUN_PID"
stop_run "$RUN_PID" INT 130 threads
[[ ! -e $IT/c.json ]] || fail "threads: an interrupted comm run wrote its JSON"
no_temporaries "$IT"

start_run threadsTERM "$MGBENCH" "${comm[@]}" --devices 2 --json "$IT/c.json"
wait_handlers "$RUN_PID"
stop_run "$RUN_PID" TERM 143 threadsTERM
[[ ! -e $IT/c.json ]] || fail "threadsTERM: an interrupted comm run wrote its JSON"

if command -v mpirun >/dev/null; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,tcp
  start_run mpirun mpirun --allow-run-as-root --oversubscribe -np 2 "$MGBENCH" "${comm[@]}" --json "$IT/c.json"
  # Both ranks past the rendezvous (mpirun passes on what they write to stderr).
  wait_for "$IT/mpirun.err" "joined the world" "$RUN_PID" 2
  # mpirun adds its own shutdown to the ranks' (README), so it gets longer than a run alone.
  mpirun_limit_s=$((STOP_LIMIT_S + 3))
  t0=$(date +%s%N)
  kill -INT "$RUN_PID"
  while (( $(group_size "$RUN_PID") > 0 )) && (( ($(date +%s%N) - t0) / 1000000 < (mpirun_limit_s + 5) * 1000 )); do
    sleep 0.05
  done
  elapsed=$(( ($(date +%s%N) - t0) / 1000000 ))
  (( $(group_size "$RUN_PID") == 0 )) || { pgrep -a -s "$RUN_PID"; fail "mpirun: processes left ${elapsed} ms after SIGINT"; }
  wait "$RUN_PID"
  rc=$?
  [[ $rc -ne 0 ]] || fail "mpirun: exit status 0 after SIGINT"
  (( elapsed < mpirun_limit_s * 1000 )) || fail "mpirun: took ${elapsed} ms to stop (limit ${mpirun_limit_s} s)"
  if grep -q "did not stop within" "$IT/mpirun.err"; then
    cat "$IT/mpirun.err" >&2
    fail "mpirun: a rank was ended by the backstop, not by stopping on the signal"
  fi
  [[ ! -e $IT/c.json ]] || fail "mpirun: an interrupted comm run wrote its JSON"
  echo "mpirun: SIGINT -> exit $rc, every process gone after ${elapsed} ms"
else
  echo "mpirun not installed: the mpirun case was not run"
fi
echo "interrupt comm: ok"
