# Helpers for the interruption tests (sourced; no .sh suffix, so ctest does not run it). Each run starts in
# its own session (setsid), so "every process of the run" is exactly its session: child processes inherit it
# (mpirun gives each rank its own process group, in the same session), and one left behind (re-parented to
# init) still carries it.
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
IT=$TMP
RUN_PIDS=()
cleanup_runs() {
  for p in "${RUN_PIDS[@]}"; do pkill -KILL -s "$p" 2>/dev/null; done
  rm -rf "$IT"
}
trap cleanup_runs EXIT
# README: a run stops within 2 s of the signal. The graceful path (the step loops poll the flag, collectives are
# aborted, children get the signal) is what is checked: the backstop, which would end a process 1.5 s after the
# signal whatever it was doing, must not be what ended it.
STOP_LIMIT_S=${STOP_LIMIT_S:-2}

# start_run NAME CMD...: starts CMD in a new session; its pid (= process group) in $RUN_PID, output in
# $IT/NAME.out and $IT/NAME.err.
start_run() {
  local name=$1; shift
  setsid "$@" >"$IT/$name.out" 2>"$IT/$name.err" &
  RUN_PID=$!
  RUN_PIDS+=("$RUN_PID")
}

# group_size SID: processes still in the run's session.
# A zombie has exited: its reaper (PID 1, where the parent was killed) may collect it later than we look.
group_size() { ps -o stat= --sid "$1" | grep -vc '^Z'; }

# wait_group SID N SECONDS: waits until the session has at least N processes (a run's children started).
wait_group() {
  local deadline=$(( $(date +%s) + $3 ))
  while (( $(group_size "$1") < $2 )); do
    (( $(date +%s) < deadline )) || return 1
    sleep 0.1
  done
}

# stop_run PID SIGNAL WANT_STATUS NAME: sends SIGNAL to PID only (as `kill PID` does), then checks that PID
# exits with WANT_STATUS, and that it and every process of its session are gone, within STOP_LIMIT_S, having
# stopped gracefully (BACKSTOP_OK=1: or by the backstop).
stop_run() {
  local pid=$1 sig=$2 want=$3 name=$4
  kill -0 "$pid" 2>/dev/null || { cat "$IT/$name.err"; fail "$name: ended before the $sig"; }
  local t0 t1 rc elapsed
  t0=$(date +%s%N)
  kill "-$sig" "$pid"
  # Bounded wait: a run that ignores the signal is the failure this test exists to catch.
  while kill -0 "$pid" 2>/dev/null && (( ($(date +%s%N) - t0) / 1000000 < STOP_LIMIT_S * 1000 + 5000 )); do
    sleep 0.05
  done
  if kill -0 "$pid" 2>/dev/null; then
    pgrep -a -s "$pid" >&2
    fail "$name: still running $((STOP_LIMIT_S + 5)) s after $sig"
  fi
  wait "$pid"
  rc=$?
  # The session's other processes (children, ranks) must be gone by the same limit.
  while (( $(group_size "$pid") > 0 )) && (( ($(date +%s%N) - t0) / 1000000 < STOP_LIMIT_S * 1000 )); do
    sleep 0.05
  done
  t1=$(date +%s%N)
  elapsed=$(( (t1 - t0) / 1000000 ))
  if (( $(group_size "$pid") > 0 )); then
    pgrep -a -s "$pid" >&2
    fail "$name: processes of the run left $((elapsed / 1000)) s after $sig"
  fi
  [[ $rc -eq $want ]] || { cat "$IT/$name.err" >&2; fail "$name: exit status $rc after $sig, expected $want"; }
  (( elapsed < STOP_LIMIT_S * 1000 )) || fail "$name: took ${elapsed} ms to stop after $sig (limit ${STOP_LIMIT_S} s)"
  if [[ ${BACKSTOP_OK:-} == 1 ]]; then
    grep -q "mgbench: interrupted by SIG$sig" "$IT/$name.err" || { cat "$IT/$name.err" >&2; fail "$name: no 'interrupted by SIG$sig'"; }
  else
    graceful "$name" "$sig"
  fi
  echo "$name: $sig -> exit $rc, every process gone after ${elapsed} ms"
}

# graceful NAME SIG: NAME's stderr says it stopped on its own (mgbench's own message, once per process that had
# to stop: children write to the same stderr), and no process of the run was ended by the backstop.
graceful() {
  local name=$1 sig=$2
  if grep -q "did not stop within" "$IT/$name.err"; then
    cat "$IT/$name.err" >&2
    fail "$name: ended by the backstop, not by stopping on SIG$sig"
  fi
  grep -q "mgbench: interrupted by SIG$sig; nothing written" "$IT/$name.err" ||
    { cat "$IT/$name.err" >&2; fail "$name: no 'interrupted by SIG$sig; nothing written' message"; }
}

# no_temporaries DIR: nothing half-written in DIR (atomic writers' temporaries).
no_temporaries() {
  local left
  left=$(find "$1" -name '.*.tmp.*' -o -name '*.tmp-*' | head -5)
  [[ -z $left ]] || fail "temporary files left in $1: $left"
}
