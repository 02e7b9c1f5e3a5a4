#!/usr/bin/env bash
# CI performance-regression gate (docs/compare.md).
#
#   scripts/ci-regression.sh --base BIN [--new BIN] [--runs K] [--preset NAME] [--strict] [-- mgbench args]
#       Interleaved A/B (use this in CI): BASE and NEW binaries (any executables that are mgbench, wrapper
#       scripts included) run the preset alternately, BASE NEW BASE NEW ..., K times each on this runner, so a
#       slow period of a shared machine hits both sides; `mgbench compare --paired` checks from the runs' recorded
#       start and end times that they did alternate and judges the ratios of the run medians of each pair.
#   scripts/ci-regression.sh [--new BIN] [--runs K] [--preset NAME] [--strict]
#       Committed baseline: without --base, NEW runs the preset with --runs K and is compared with this machine's
#       results/baselines/<fingerprint>/NAME.json (scripts/machine-fingerprint.sh: CPU model, ISA level, CPUs,
#       device). That compares across time; the report says so. With no baseline for this machine's fingerprint
#       it exits 2: a baseline from another machine would judge the hardware, not the change.
#   scripts/ci-regression.sh --update-baseline [--new BIN] [--runs K] [--preset NAME]
#       Write results/baselines/<fingerprint>/NAME.json from K runs of NEW and NAME.txt beside it (command, machine,
#       mgbench version, date, load); commit both.
#   scripts/ci-regression.sh --calibrate [--base BIN] [--new BIN] [--trials N] [--slowdown F] [--runs K] [--preset NAME]
#       Measure this runner: N interleaved gates of BASE (default: NEW itself) against NEW (false alarms) and N
#       against NEW made slower by the fraction F with mgbench --inject-slowdown (detections, default 0.10;
#       --slowdown 0 measures false alarms only, half the time per trial); prints both counts with their exact one-sided 95 % bounds (scripts/clopper-pearson.py). BASE and NEW must
#       report the same version: two separate builds of one source measure false alarms without sharing a file
#       (docs/compare.md). Exit 2 when any comparison was unusable.
#
#   --preset NAME   configs/NAME.json (default ci-smoke)      --runs K   process runs per side (default 30)
#   --new BIN       the binary under test (default build/mgbench; also env MGBENCH)
#   --strict        exit 2 with the reason when --threshold is below the noise floor the runs show
#   extra args      passed to every benchmark run (the preset's keys are defaults only)
#
# Environment: OUT_DIR (default ci-out), COMPARE_ARGS (extra `mgbench compare` options, e.g. "--threshold 10").
# Writes OUT_DIR/base/*.json and OUT_DIR/new/*.json (interleaved) or OUT_DIR/new.json (committed baseline), and
# OUT_DIR/compare.md (a pull-request comment), OUT_DIR/compare.json. The compare step uses the NEW binary.
# Exit status: 0 no regression, 1 regression, 2 unusable input (not mgbench, missing preset, no baseline for this
# machine, runs that did not alternate, results of different presets or schema versions; nothing written) or
# --strict and the gate is too noisy; anything else: a benchmark run itself failed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
new_bin=${MGBENCH:-$root/build/mgbench}
base_bin=
out=${OUT_DIR:-ci-out}
preset=ci-smoke
runs=30
mode=gate
trials=20
slowdown=0.10
strict=()
usage() { echo "ci-regression: $*" >&2; exit 2; }
need() { [[ $2 -ge 2 ]] || usage "$1 needs a value"; }
while [[ $# -gt 0 ]]; do
  case $1 in
    --preset) need "$1" $#; preset=$2; shift 2 ;;
    --base) need "$1" $#; base_bin=$2; shift 2 ;;
    --new) need "$1" $#; new_bin=$2; shift 2 ;;
    --runs) need "$1" $#; runs=$2; shift 2 ;;
    --trials) need "$1" $#; trials=$2; shift 2 ;;
    --slowdown) need "$1" $#; slowdown=$2; shift 2 ;;
    --strict) strict=(--strict); shift ;;
    --update-baseline) mode=update; shift ;;
    --calibrate) mode=calibrate; shift ;;
    --) shift; break ;;
    *) usage "unknown option '$1' (see the header of $0)" ;;
  esac
done
extra=("$@")
config=$root/configs/$preset.json
[[ $runs =~ ^[0-9]+$ && $runs -ge 1 ]] || usage "--runs expects a count of runs, got '$runs'"
[[ $trials =~ ^[0-9]+$ && $trials -ge 1 ]] || usage "--trials expects a count, got '$trials'"
[[ $slowdown =~ ^[0-9]*\.?[0-9]+$ ]] || usage "--slowdown expects a fraction such as 0.10, got '$slowdown'"
[[ -f $config ]] || usage "no preset $config"
[[ $mode == gate && -n $base_bin ]] && mode=interleaved
[[ $mode == update && -n $base_bin ]] && usage "--update-baseline takes no --base"
# A committed baseline belongs to the machine it was made on: CPU model, ISA level, CPUs and device.
device_kind=cpu
grep -Eq '"device"[[:space:]]*:[[:space:]]*"cpu"' "$config" || device_kind=cuda
fingerprint=$("$root/scripts/machine-fingerprint.sh" "$device_kind")
baseline=$root/results/baselines/$fingerprint/$preset.json

# An executable that says it is mgbench; everything is checked before anything is written.
check_mgbench() {
  local bin=$1 what=$2 version
  [[ -x $bin && ! -d $bin ]] || usage "$what $bin is not an executable file (build first, or pass another)"
  version=$("$bin" --version 2>/dev/null | head -n 1) || true
  [[ $version == mgbench\ * ]] || usage "$what $bin is not mgbench ('$bin --version' printed '${version:0:60}')"
}
check_mgbench "$new_bin" "NEW"
[[ -z $base_bin ]] || check_mgbench "$base_bin" "BASE"
if [[ $mode == gate && ! -f $baseline ]]; then
  others=$(find "$root/results/baselines" -mindepth 2 -maxdepth 2 -name "$preset.json" -printf '%h\n' 2>/dev/null |
    xargs -r -n1 basename | sort | paste -sd, - || true)
  usage "no committed $preset baseline for this machine ($fingerprint; baselines exist for: ${others:-none}): one from another machine would judge the hardware, not the change; use the interleaved mode, --base BASE_BIN (BASE built from the merge base), which alternates both builds on this machine"
fi
if [[ $mode == calibrate ]]; then
  base_bin=${base_bin:-$new_bin}
  version_a=$("$base_bin" --version | head -n 1) version_b=$("$new_bin" --version | head -n 1)
  [[ $version_a == "$version_b" ]] ||
    usage "--calibrate: BASE and NEW report different versions ('$version_a' vs '$version_b'); false alarms need the same source twice"
fi

run_one() {  # run_one BIN JSON [args]: one process run of the preset
  local bin=$1 json=$2
  shift 2
  "$bin" --config "$config" --no-progress --json "$json" "$@" "${extra[@]}" >/dev/null
}

# interleave DIR BASE_BIN NEW_BIN [NEW_ARGS...]: K runs each, alternating, into DIR/base and DIR/new.
interleave() {
  local dir=$1 a=$2 b=$3 i
  shift 3
  rm -rf "$dir/base" "$dir/new"  # stale files would be pooled as runs
  mkdir -p "$dir/base" "$dir/new"
  for ((i = 1; i <= runs; i++)); do
    local n
    n=$(printf %02d "$i")
    run_one "$a" "$dir/base/run-$n.json"
    run_one "$b" "$dir/new/run-$n.json" "$@"
  done
}

compare() {  # compare DIR BASE NEW [options]: exit status of mgbench compare, reports in DIR
  local dir=$1 b=$2 n=$3 status=0
  shift 3
  # shellcheck disable=SC2086  # COMPARE_ARGS is a list of options by design
  "$new_bin" compare "$b" "$n" --markdown "$dir/compare.md" --json "$dir/compare.json" "${strict[@]}" "$@" \
    ${COMPARE_ARGS:-} || status=$?
  return "$status"
}

started=$SECONDS
case $mode in
  interleaved)
    echo "== interleaved A/B: $runs runs each of $config, alternating BASE=$base_bin NEW=$new_bin"
    interleave "$out" "$base_bin" "$new_bin"
    status=0
    compare "$out" "$out/base" "$out/new" --paired || status=$?
    ;;
  gate)
    echo "== committed baseline $baseline vs $runs runs of $new_bin (across time and machines)"
    mkdir -p "$out"
    "$new_bin" --config "$config" --no-progress --runs "$runs" --json "$out/new.json" "${extra[@]}" >/dev/null
    status=0
    compare "$out" "$baseline" "$out/new.json" --across-time || status=$?
    ;;
  update)
    mkdir -p "$out" "$(dirname "$baseline")"
    began=$(date -u +%FT%TZ) load_began=$(cut -d' ' -f1-3 /proc/loadavg)
    "$new_bin" --config "$config" --no-progress --runs "$runs" --json "$out/new.json" "${extra[@]}"
    cp "$out/new.json" "$baseline"
    {
      echo "preset: $preset ($runs process runs)"
      echo "command: scripts/ci-regression.sh --update-baseline --preset $preset --runs $runs${extra[*]:+ -- ${extra[*]}}"
      echo "machine: $("$root/scripts/machine-fingerprint.sh" --describe "$device_kind"); host $(hostname)"
      echo "mgbench: $("$new_bin" --version | head -n 1)"
      echo "date: $began to $(date -u +%FT%TZ)"
      echo "load average: $load_began at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end"
    } >"${baseline%.json}.txt"
    echo "== baseline updated: $baseline and ${baseline%.json}.txt (commit both, saying why)"
    exit 0
    ;;
  calibrate)
    kinds=(aa slow)
    awk -v f="$slowdown" 'BEGIN { exit !(f == 0) }' && kinds=(aa)
    echo "== calibrating this runner: $trials trials of $runs runs per side; A vs A'$([[ ${#kinds[@]} -eq 1 ]] || echo ", and NEW slowed by $slowdown")"
    echo "   A = $base_bin, A' = $new_bin ($("$new_bin" --version | head -n 1))"
    false_alarms=0 detected=0 unusable=0 first_unusable=
    for ((t = 1; t <= trials; t++)); do
      dir=$out/calibrate/trial-$(printf %02d "$t")
      for kind in "${kinds[@]}"; do
        args=()
        [[ $kind == slow ]] && args=(--inject-slowdown "$slowdown")
        interleave "$dir/$kind" "$base_bin" "$new_bin" "${args[@]}"
        s=0
        compare "$dir/$kind" "$dir/$kind/base" "$dir/$kind/new" --paired >"$dir/$kind/compare.txt" \
          2>"$dir/$kind/compare.err" || s=$?
        case $kind:$s in
          aa:1) false_alarms=$((false_alarms + 1)) ;;
          slow:1) detected=$((detected + 1)) ;;
          *:0) ;;
          *) unusable=$((unusable + 1)); first_unusable=${first_unusable:-$dir/$kind} ;;
        esac
        echo "trial $t $kind: exit $s"
      done
    done
    bound() { python3 "$root/scripts/clopper-pearson.py" "$1" "$2" | awk '{printf "%.1f %%", 100 * $1}'; }
    lower() { python3 "$root/scripts/clopper-pearson.py" "$(($2 - $1))" "$2" | awk '{printf "%.1f %%", 100 - 100 * $1}'; }
    {
      echo "runner: $("$root/scripts/machine-fingerprint.sh" --describe "$device_kind")"
      echo "preset: $config, $runs runs per side, interleaved; compare options: ${strict[*]} ${COMPARE_ARGS:-}"
      echo "false alarms (A vs A' judged a regression): $false_alarms of $trials" \
        "(exact one-sided 95 % upper bound of the rate: $(bound "$false_alarms" "$trials"))"
      [[ ${#kinds[@]} -eq 1 ]] || echo "detected (slowdown $slowdown judged a regression): $detected of $trials" \
        "(exact one-sided 95 % lower bound of the rate: $(lower "$detected" "$trials"))"
      [[ $unusable -eq 0 ]] || echo "comparisons that exited 2 (unusable or --strict): $unusable"
      echo "wall time: $((SECONDS - started)) s for $((${#kinds[@]} * trials)) gates"
    } | tee "$out/calibrate/summary.txt"
    ((unusable == 0)) || {
      echo "ci-regression: --calibrate: $unusable of $((${#kinds[@]} * trials)) comparisons were unusable (exit 2), so the rates above count fewer gates than they say; first: $first_unusable/compare.err: $(head -n 1 "$first_unusable/compare.err")" >&2
      exit 2
    }
    exit 0
    ;;
esac
case $status in
  0) echo "== no performance regression ($((SECONDS - started)) s)" ;;
  1) echo "== performance regression (details: $out/compare.md; $((SECONDS - started)) s)" ;;
  *) echo "== compare could not use its input or vouch for its verdict (exit $status)" ;;
esac
exit "$status"
