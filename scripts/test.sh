#!/usr/bin/env bash
# One command for a fresh Debian machine: install what is missing, build, and run the whole test suite.
#  1. The normal build (build/, CUDA compiled when the toolkit is found): unit tests, end-to-end CLI tests, and
#     the GPU set, which skips itself without a GPU.
#  2. AddressSanitizer + UndefinedBehaviorSanitizer (build-asan/, CPU path, -O1): the same CPU suite.
#  3. ThreadSanitizer (build-tsan/, CPU path, -O1): the tests of the threaded parts (trainer and replicas, Gloo and
#     local communicators, peer monitor, stores, stager, decode pool, core's thread groups).
#  4. libFuzzer (build-fuzz/, clang): every fuzz target for MGBENCH_FUZZ_SECONDS (default 30) on its seed corpus.
# All four run by default, in CI too (measured stage times in docs/testing.md);
# MGBENCH_SANITIZERS=0 stops after stage 1 for a quick local run. Arguments go to ctest and select tests of
# stage 1 only. Any failing stage fails the script; every stage's wall and CPU time is printed at the end.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=${MGBENCH_JOBS:-$(nproc)}
test_jobs=${MGBENCH_TEST_JOBS:-2}
t0=$(date +%s)
times=()
failures=()
status=0
# stage NAME COMMAND...: runs COMMAND and records its wall time. A failed build ends the script; a failed test
# stage is recorded and the later stages still run (CI shows every stage's failures at once), and the script's
# status is the first failure's.
# The CPU time beside the wall time (user + system of every process the stage ran) is what the stage costs on
# an idle machine, whatever else the runner was doing.
cpu_seconds() { awk -v hz="$(getconf CLK_TCK)" '{sub(/.*\) /, ""); printf "%d", ($14 + $15) / hz}' /proc/$$/stat; }
stage() {
  local name=$1 t=$(date +%s) c=$(cpu_seconds) rc=0
  shift
  echo; echo "=== $name ($(date -u +%H:%M:%S), load $(cut -d' ' -f1-3 /proc/loadavg))"
  "$@" || rc=$?
  times+=("$(printf '%-44s %5d s wall %6d s CPU%s' "$name" $(($(date +%s) - t)) $(($(cpu_seconds) - c)) \
    "$( ((rc)) && echo "  FAILED ($rc)")")")
  ((rc == 0 || status != 0)) || status=$rc
  stage_rc=$rc
  if ((rc)) && [[ $name == *build* ]]; then report_times; exit "$rc"; fi
}
# note_failures STAGE DIR: after a failed ctest stage, keeps each failed test's name and the end of its output,
# printed again at the very end, since a CI log is often read from its tail. The output comes from the stage's
# own console log (ctest_stage writes it): tests/check_discovery.sh runs ctest again in the same build
# directory, which rewrites Testing/Temporary/LastTest.log.
note_failures() {
  local tmp=$2/Testing/Temporary name
  ((stage_rc)) && [[ -f $tmp/LastTestsFailed.log ]] || return 0
  while IFS= read -r name; do
    name=${name#*:}
    failures+=("[$1] $name" "$(awk -v n="$name" '
      /^[0-9]+\/[0-9]+ Test +#[0-9]+: / { l = $0; sub(/^[0-9]+\/[0-9]+ Test +#[0-9]+: /, "", l); on = index(l, n " .") == 1; next }
      /^ *Start +[0-9]+: / || /^[0-9]+% tests passed/ { on = 0 } on && NF { print "      " $0 }' \
      "$tmp/stage-console.log" 2>/dev/null | tail -n 25)")
  done <"$tmp/LastTestsFailed.log"
}
# ctest_stage DIR [NAME=VALUE...] ARGS...: ctest in DIR with that environment, its console output also in
# DIR/Testing/Temporary/stage-console.log.
ctest_stage() {
  local dir=$1 vars=()
  shift
  while [[ ${1:-} == [A-Z]*=* ]]; do vars+=("$1"); shift; done
  mkdir -p "$dir/Testing/Temporary"
  (cd "$dir" && env "${vars[@]}" ctest --no-tests=error --output-on-failure \
    --output-log "$dir/Testing/Temporary/stage-console.log" "$@")
}
report_times() {
  echo; echo "=== stage times (load $(cut -d' ' -f1-3 /proc/loadavg))"
  printf '  %s\n' "${times[@]}"
  printf '  %-44s %5d s wall %6d s CPU\n' total $(($(date +%s) - t0)) "$(cpu_seconds)"
  ((${#failures[@]})) || return 0
  echo; echo "=== failed tests (the end of each one's output)"
  printf '  %s\n' "${failures[@]}"
}

stage "deps + build" "$root/scripts/setup.sh"
# --no-tests=error: a stage whose filter or build leaves no test fails rather than passing empty (stage 3 once
# did: every TSan binary crashed while Catch listed its cases). tests/check_discovery.sh, a test in every stage,
# checks that each built binary's cases all became ctest tests.
stage "tests" ctest_stage "${MGBENCH_BUILD_DIR:-$root/build}" -j "$test_jobs" "$@"
note_failures tests "${MGBENCH_BUILD_DIR:-$root/build}"

if [[ ${MGBENCH_SANITIZERS:-1} == 0 ]]; then
  report_times
  exit "$status"
fi

supp="$root/tests/sanitizers"
# Only the targets a stage runs: no CUDA, no test_gpu. Sanitizer builds are -O1 with line tables (CMakeLists.txt);
# per-test timeouts are tighter than the normal build's, so a hang costs minutes, not the budget.
sanitized_build() {  # DIR SANITIZERS TARGETS...
  local dir=$1 san=$2
  shift 2
  local set
  set=$(IFS=';'; echo "$*")
  cmake -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO= \
    -DMGBENCH_CUDA=OFF -DMGBENCH_SANITIZE="$san" -DMGBENCH_TEST_TIMEOUT=400 -DMGBENCH_BUILD_SET="$set" >/dev/null
  cmake --build "$dir" -j "$jobs" --target build_set
}
cpu_targets=(mgbench test_core test_models test_backend test_comm test_data test_train test_check test_result
             test_stats test_report test_topo test_predict test_cli_lib)

# A sanitizer report exits with its own status, so a CLI test that expects a failure (exit 1) still fails.
# fast_unwind_on_malloc=0: Open MPI's libraries have no frame pointers, so only the slow unwinder reaches the
# frames its leak suppressions (tests/sanitizers/lsan.supp) match.
# Not run under ASan: gpu: all (no CUDA in this build); cli: out_of_memory (it limits the address space with
# ulimit -v, and ASan's shadow memory alone reserves terabytes of it, so mgbench cannot start).
# cli: ci_gate (60 short mgbench runs and the gate's shell logic: 351 s under ASan, 6 of the stage's 15 minutes;
# compare's code runs under ASan in stats: tests and under libFuzzer); cli: predict_netns (an accuracy check of
# timings over a shaped link, 151 s, which ASan's slowdown distorts; predict runs under ASan in cli: predict);
# cli: report_browser (Chromium's rendering of a page that cli: report makes under ASan, 73 s).
asan_env=(ASAN_OPTIONS="exitcode=86:detect_leaks=1:fast_unwind_on_malloc=0:strict_string_checks=1:detect_stack_use_after_return=1"
          LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0"
          UBSAN_OPTIONS="exitcode=87:halt_on_error=1:print_stacktrace=1"
          STOP_LIMIT_S=4)  # the documented 2 s to stop is the release build's (stage 1); ASan runs 2-3x slower
stage "ASan+UBSan build" sanitized_build "$root/build-asan" address,undefined "${cpu_targets[@]}"
stage "ASan+UBSan: CPU suite" ctest_stage "$root/build-asan" "${asan_env[@]}" -j "$test_jobs" \
  -E '^(gpu: all|cli: out_of_memory|cli: ci_gate|cli: predict_netns|cli: report_browser)$'
note_failures ASan "$root/build-asan"

# libgomp and oneDNN are not built with TSan: OpenMP teams run at one thread in this build (src/core/omp_team.h;
# OMP_NUM_THREADS=1 for threads that never set a count), and CPU layers are created one at a time across replicas
# (tests/sanitizers/tsan.supp says why it holds no suppression).
stage "TSan build" sanitized_build "$root/build-tsan" thread test_core test_train test_comm test_data
stage "TSan: threaded parts" ctest_stage "$root/build-tsan" OMP_NUM_THREADS=1 \
  TSAN_OPTIONS="exitcode=88:halt_on_error=1:second_deadlock_stack=1:history_size=7:suppressions=$supp/tsan.supp" \
  -j "$test_jobs" -R '^(core|train|comm|data|tests):'
note_failures TSan "$root/build-tsan"

stage "libFuzzer (build included): ${MGBENCH_FUZZ_SECONDS:-30} s per target" "$root/tests/fuzz/run.sh" "$root/build-fuzz"
report_times
exit "$status"
