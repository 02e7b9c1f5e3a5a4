# Shared helpers for the end-to-end tests (sourced, not run: it has no .sh suffix so ctest does not pick it up).
set -uo pipefail
: "${MGBENCH:?MGBENCH must point to the mgbench binary}"
TMP=$(mktemp -d)
[[ -n ${MG_KEEP_TMP:-} ]] || trap 'rm -rf "$TMP"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }

# expect_status CODE CMD...: runs CMD, checks its exit status; output in $TMP/out, $TMP/err.
expect_status() {
  local want=$1; shift
  "$@" >"$TMP/out" 2>"$TMP/err"
  local got=$?
  if [[ $got -ne $want ]]; then
    echo "--- stdout"; cat "$TMP/out"; echo "--- stderr"; cat "$TMP/err"
    fail "'$*' exited $got, expected $want"
  fi
}

# expect_usage_error PATTERN CMD...: exit 2, exactly one line on stderr matching PATTERN, no stdout table.
expect_usage_error() {
  local pattern=$1; shift
  expect_status 2 "$@"
  [[ $(wc -l <"$TMP/err") -eq 1 ]] || { cat "$TMP/err"; fail "'$*': expected a one-line error"; }
  grep -Eq -- "$pattern" "$TMP/err" || { cat "$TMP/err"; fail "'$*': error does not match /$pattern/"; }
}

json_get() {  # json_get FILE PY_EXPR  (expression over `d`)
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"
}

# json_check FILE PY_EXPR: succeeds when the expression over `d` is true. A status, not printed text, so no
# `| grep -q` under pipefail (grep exiting early kills the writer with SIGPIPE and fails the pipeline).
json_check() {
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$1"
}

# A TCP port free right now on loopback, chosen by the kernel (fixed ranges collide with parallel tests and
# with the ephemeral ports Gloo's own connections use).
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# wait_for FILE PATTERN PID [COUNT]: waits until COUNT (default 1) lines of FILE match PATTERN, a signal the run
# gives (its progress line past a timed step, "joined the world" past the rendezvous), instead of guessing how
# long a loaded machine takes. Fails when PID ends first; the 300 s bound only catches a hang.
wait_for() {
  local file=$1 pattern=$2 pid=$3 count=${4:-1}
  local deadline=$(( $(date +%s) + 300 ))
  while (( $(grep -Ec -- "$pattern" "$file" 2>/dev/null) < count )); do
    if ! kill -0 "$pid" 2>/dev/null; then
      (( $(grep -Ec -- "$pattern" "$file" 2>/dev/null) >= count )) && return 0
      tail -c 4000 "$file" >&2
      fail "process $pid ended before '$pattern' appeared in $file"
    fi
    (( $(date +%s) < deadline )) || { tail -c 4000 "$file" >&2; fail "no '$pattern' in $file within 300 s"; }
    sleep 0.05
  done
}

# wait_handlers PID: waits until PID catches SIGINT and SIGTERM (/proc's SigCgt), i.e. mgbench has installed its
# stop handlers, so a signal sent now takes the graceful path rather than the default action.
wait_handlers() {
  local pid=$1 deadline=$(( $(date +%s) + 300 )) cgt
  while :; do
    cgt=$(awk '/^SigCgt:/ {print $2}' "/proc/$pid/status" 2>/dev/null)
    [[ -n $cgt ]] || fail "process $pid ended before installing its signal handlers"
    (( (16#$cgt & 0x4002) == 0x4002 )) && return 0
    (( $(date +%s) < deadline )) || fail "process $pid did not install its signal handlers within 300 s"
    sleep 0.02
  done
}
