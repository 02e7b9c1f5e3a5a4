#!/usr/bin/env bash
# Builds the fuzz targets with clang into BUILD_DIR (default build-fuzz/) and runs each for
# MGBENCH_FUZZ_SECONDS (default 30) on a copy of its committed seed corpus (tests/fuzz/corpus/<target>/),
# MGBENCH_JOBS targets at a time (default: the core count; each fuzzer is one process on one core).
# A crash leaves its reproducer in BUILD_DIR/crashes/<target>/ and fails the run; turn it into a regression
# test (a unit test feeding the bytes to the parser) and commit the fix with it.
#   tests/fuzz/run.sh [BUILD_DIR] [TARGET...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build-fuzz}
shift || true
seconds=${MGBENCH_FUZZ_SECONDS:-30}
parallel=${MGBENCH_JOBS:-$(nproc)}
command -v clang++ >/dev/null || { echo "fuzz: clang++ is not installed (scripts/deps.txt lists it)" >&2; exit 1; }
CXX=clang++ cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j "${MGBENCH_JOBS:-$(nproc)}"
targets=("$@")
((${#targets[@]})) || targets=($(cd "$here/corpus" && ls))
fuzz_one() {  # TARGET: runs it on a scratch copy of its seeds, prints one line, fails on a crash
  local t=$1 work="$build/corpus/$1" crashes="$build/crashes/$1"
  rm -rf "$work" "$crashes"
  mkdir -p "$work" "$crashes"
  cp "$here/corpus/$t"/* "$work/"
  # New inputs go to the scratch copy, never into the committed seeds; -rss_limit_mb bounds a decoder that
  # would allocate for a forged image size.
  if "$build/$t" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
      -artifact_prefix="$crashes/" "$work" >"$build/$t.log" 2>&1; then
    echo "fuzz $t: ok ($(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$build/$t.log" | grep -o '[0-9]*$') runs in ${seconds} s)"
  else
    echo "fuzz $t: FAILED, reproducer in $crashes/:" >&2
    grep -E 'ERROR|SUMMARY|terminate|what\(\)' "$build/$t.log" | head -5 >&2
    return 1
  fi
}
status=0
pids=()
for t in "${targets[@]}"; do
  fuzz_one "$t" &
  pids+=($!)
  if ((${#pids[@]} >= parallel)); then
    wait "${pids[0]}" || status=1
    pids=("${pids[@]:1}")
  fi
done
for p in "${pids[@]}"; do wait "$p" || status=1; done
exit $status
