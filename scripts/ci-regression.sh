#!/usr/bin/env bash
# CI performance-regression gate: run a configs/ preset, compare with its committed baseline, fail on regression.
#
#   scripts/ci-regression.sh [--preset NAME] [--update-baseline] [-- extra mgbench args]
#
#   --preset NAME       configs/NAME.json is run and compared with results/baselines/NAME.json (default ci-smoke)
#   --update-baseline   write this run as the new baseline instead of comparing (commit it with a note on why)
#   extra args          passed to the benchmark run, e.g. -- --gpus 1,2,4 (the preset's keys are defaults only)
#
# Environment: MGBENCH (binary; default build/mgbench), OUT_DIR (reports; default ci-out), COMPARE_ARGS (extra
# `mgbench compare` options, e.g. "--threshold 10 --alpha 0.01").
# Writes OUT_DIR/new.json (the result), OUT_DIR/compare.md (for a pull-request comment), OUT_DIR/compare.json.
# Exit status: 0 no regression, 1 regression, 2 unusable input (missing baseline or preset, bad file), anything
# else: the benchmark run itself failed. See docs/compare.md for GitHub Actions and GitLab jobs.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mg=${MGBENCH:-$root/build/mgbench}
out=${OUT_DIR:-ci-out}
preset=ci-smoke
update=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --preset) [[ $# -ge 2 ]] || { echo "ci-regression: --preset needs a name" >&2; exit 2; }; preset=$2; shift 2 ;;
    --update-baseline) update=1; shift ;;
    --) shift; break ;;
    *) break ;;
  esac
done
config=$root/configs/$preset.json
baseline=$root/results/baselines/$preset.json
[[ -x $mg ]] || { echo "ci-regression: $mg is not an executable (build first or set MGBENCH)" >&2; exit 2; }
[[ -f $config ]] || { echo "ci-regression: no preset $config" >&2; exit 2; }
mkdir -p "$out"

echo "== $mg --config $config --json $out/new.json $*"
"$mg" --config "$config" --json "$out/new.json" "$@"

if [[ $update -eq 1 ]]; then
  cp "$out/new.json" "$baseline"
  echo "== baseline updated: $baseline (commit it together with the reason and the machine it ran on)"
  exit 0
fi
if [[ ! -f $baseline ]]; then
  echo "ci-regression: no baseline $baseline; create one on the CI machine with --update-baseline" >&2
  exit 2
fi

echo "== $mg compare $baseline $out/new.json ${COMPARE_ARGS:-}"
status=0
# shellcheck disable=SC2086  # COMPARE_ARGS is a list of options by design
"$mg" compare "$baseline" "$out/new.json" --markdown "$out/compare.md" --json "$out/compare.json" \
  ${COMPARE_ARGS:-} || status=$?
case $status in
  0) echo "== no performance regression" ;;
  1) echo "== performance regression (details: $out/compare.md)" ;;
  *) echo "== compare could not use its input (exit $status)" ;;
esac
exit "$status"
