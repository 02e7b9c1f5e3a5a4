#!/usr/bin/env bash
# Validity check of the reported 95% CI of the median step time (issue 5): PAIRS times, run the same CPU job
# twice back to back and count how often the second run's median falls inside the first run's CI.
# A CI that holds what it claims covers the next median in at least ~95% of pairs when nothing changed between
# runs (strictly, the CI is for the true median, so the rate for a second sample's median is somewhat lower
# unless run-to-run drift is absent; the observed rate is what we report).
#   PAIRS=20 scripts/check-ci-coverage.sh [mgbench args replacing the default job]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mg=${MGBENCH:-$root/build/mgbench}
pairs=${PAIRS:-20}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
if (($#)); then
  args=(--device cpu --gpus 1 --no-progress "$@")
else
  args=(--device cpu --gpus 1 --model tiny --num-classes 10 --batch-size 32 --steps 40 --warmup 5 --no-progress)
fi
inside=0
for ((i = 0; i < pairs; ++i)); do
  "$mg" "${args[@]}" --json "$tmp/a.json" >/dev/null
  "$mg" "${args[@]}" --json "$tmp/b.json" >/dev/null
  if python3 - "$tmp/a.json" "$tmp/b.json" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))["runs"][0]["step_time"]
b = json.load(open(sys.argv[2]))["runs"][0]["step_time"]
sys.exit(0 if a["ci95_lo_s"] <= b["median_s"] <= a["ci95_hi_s"] else 1)
PY
  then inside=$((inside + 1)); fi
done
echo "command: $mg ${args[*]}"
echo "pairs: $pairs, second median inside first CI: $inside ($(python3 -c "print(f'{100*$inside/$pairs:.0f}%')"))"
