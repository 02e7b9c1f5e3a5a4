#!/usr/bin/env bash
# Every Catch2 test case of every built test binary must be exactly one ctest test, under its own name. Catch's
# CMake discovery fails silently in ways this catches: a binary that crashes while listing its cases registers
# none (a sanitizer build's ifunc once killed every binary before main, and the stage "passed" with no test), a
# name with ';' splits into tests whose filters match nothing, one with an unbalanced '[' merges the cases after
# it into one test that runs nothing. Names are compared, not counts, so a split and a merge cannot cancel.
# Usage: check_discovery.sh CTEST MODULE BINARY [MODULE BINARY]...; binaries a build did not make are skipped,
# sanitizer builds make a subset.
set -uo pipefail
ctest=$1
shift
checked=0 status=0
while (($#)); do
  module=$1 binary=$2
  shift 2
  [[ -x $binary ]] || continue
  cases=$(timeout 60 "$binary" --list-test-names-only 2>/dev/null | sed "s/^/$module:/" | sort)
  tests=$("$ctest" -N -R "^$module:" | sed -n 's/^ *Test *#[0-9]*: //p' | sort)
  if [[ -z $cases ]]; then
    echo "$module: $(basename "$binary") lists no test case (did it crash or hang while listing?)"
    status=1
  elif [[ $cases != "$tests" ]]; then
    echo "$module: $(basename "$binary")'s cases and ctest's '$module:' tests differ (< case only, > test only):"
    diff <(echo "$cases") <(echo "$tests") | grep '^[<>]'
    status=1
  fi
  checked=$((checked + 1))
done
if ((checked == 0)); then
  echo "no test binary was built"
  exit 1
fi
exit "$status"
