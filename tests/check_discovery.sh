#!/usr/bin/env bash
# Every Catch2 test case of every built test binary must be exactly one ctest test. Catch's CMake discovery
# fails silently in two ways this catches: a binary that crashes while listing its cases registers none (a
# sanitizer build's ifunc once killed every binary before main, and the stage "passed" with no test), and a
# name with an unbalanced '[' merges the following cases into one ctest test that matches and runs nothing.
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
  listed=$("$binary" --list-test-names-only 2>/dev/null | grep -c .)
  registered=$("$ctest" -N -R "^${module}:" | grep -c "Test *#")
  if ((listed == 0 || listed != registered)); then
    echo "$module: $(basename "$binary") lists $listed test cases, ctest has $registered tests named '$module:...'"
    status=1
  fi
  checked=$((checked + 1))
done
if ((checked == 0)); then
  echo "no test binary was built"
  exit 1
fi
exit "$status"
