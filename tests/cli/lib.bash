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
