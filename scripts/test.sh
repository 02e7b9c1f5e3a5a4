#!/usr/bin/env bash
# One command for a fresh Debian machine: install what is missing, build, and run the whole test suite.
#  1. The normal build (build/, CUDA compiled when the toolkit is found): unit tests, end-to-end CLI tests, and
#     the GPU set, which skips itself without a GPU.
#  2. AddressSanitizer + UndefinedBehaviorSanitizer (build-asan/, CPU path): the same CPU suite.
#  3. ThreadSanitizer (build-tsan/, CPU path): the tests of the threaded parts (trainer and replicas, Gloo
#     communicator, peer monitor, stores, stager, decode pool).
#  4. libFuzzer (build-fuzz/, clang): every fuzz target for MGBENCH_FUZZ_SECONDS (default 20) on its seed corpus.
# Arguments go to ctest and select tests of stage 1. Stages 2-4 run with MGBENCH_SANITIZERS=1; they are not yet
# part of the default run (and so of CI): their first complete run on a clean 2-core machine, and its time
# against CI's budget, is still to be measured.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=${MGBENCH_JOBS:-$(nproc)}
test_jobs=${MGBENCH_TEST_JOBS:-2}
"$root/scripts/setup.sh"
(cd "${MGBENCH_BUILD_DIR:-$root/build}" && ctest --output-on-failure -j "$test_jobs" "$@")

[[ ${MGBENCH_SANITIZERS:-0} == 1 ]] || exit 0

supp="$root/tests/sanitizers"
stage() { echo; echo "=== $* ($(date -u +%H:%M:%S))"; }
sanitized_build() {  # DIR SANITIZERS TARGETS...
  local dir=$1 san=$2
  shift 2
  cmake -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE=Release -DMGBENCH_CUDA=OFF -DMGBENCH_SANITIZE="$san" >/dev/null
  local targets=()
  for t in "$@"; do targets+=(--target "$t"); done
  cmake --build "$dir" -j "$jobs" "${targets[@]}"
}

# A sanitizer report exits with its own status, so a CLI test that expects a failure (exit 1) still fails.
# fast_unwind_on_malloc=0: Open MPI's libraries have no frame pointers, so only the slow unwinder reaches the
# frames its leak suppressions (tests/sanitizers/lsan.supp) match.
stage "AddressSanitizer + UndefinedBehaviorSanitizer: CPU suite"
sanitized_build "$root/build-asan" address,undefined
(cd "$root/build-asan" &&
  ASAN_OPTIONS="exitcode=86:detect_leaks=1:fast_unwind_on_malloc=0:strict_string_checks=1" \
  LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0" \
  UBSAN_OPTIONS="exitcode=87:halt_on_error=1:print_stacktrace=1" \
  ctest --output-on-failure -j "$test_jobs" -E '^gpu:')

# libgomp is not built with TSan: its barriers look like races. One OpenMP thread per replica keeps the
# replicas' own threads (the parts under test) and takes libgomp's team out of the picture.
stage "ThreadSanitizer: threaded parts"
sanitized_build "$root/build-tsan" thread test_train test_comm test_data
(cd "$root/build-tsan" &&
  OMP_NUM_THREADS=1 TSAN_OPTIONS="exitcode=88:halt_on_error=1:second_deadlock_stack=1" \
  ctest --output-on-failure -j "$test_jobs" -R '^(train|comm|data):')

stage "libFuzzer: every target for ${MGBENCH_FUZZ_SECONDS:-20} s"
"$root/tests/fuzz/run.sh" "$root/build-fuzz"
