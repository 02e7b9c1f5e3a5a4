#!/usr/bin/env bash
# Validity check of the reported 95% CI of the median step time: PAIRS times, run the same CPU job
# twice back to back and count how often the second run's median falls inside the first run's CI.
#   PAIRS=20 RUNS=5 [KEEP=dir] scripts/measure/check-ci-coverage.sh [mgbench args replacing the default job]
# RUNS > 1 passes --runs RUNS (each invocation pools RUNS fresh processes; the CI then comes from the spread
# of their medians). Reading the rate: the CI is for the true median, and the second median is itself an
# estimate with the same error, so even an exact 95% CI contains it less often than 95%: with k pooled runs
# the expected rate is P(|t_{k-1}| < t_{0.975,k-1} / sqrt(2)) (88% for k = 5, 83% as k grows); a rate well
# below that means the CI is too narrow. Both are printed. One line per pair goes to stdout as well.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
mg=${MGBENCH:-$root/build/mgbench}
pairs=${PAIRS:-20}
runs=${RUNS:-1}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
if (($#)); then
  args=(--device cpu --gpus 1 --no-progress "$@")
else
  args=(--device cpu --gpus 1 --model tiny --num-classes 10 --batch-size 32 --steps 40 --warmup 5 --no-progress)
fi
((runs > 1)) && args+=(--runs "$runs")
inside=0
echo "pair  first median [ci95 lo, hi] ms  second median ms  inside"
for ((i = 0; i < pairs; ++i)); do
  "$mg" "${args[@]}" --json "$tmp/a.json" >/dev/null
  "$mg" "${args[@]}" --json "$tmp/b.json" >/dev/null
  if python3 - "$tmp/a.json" "$tmp/b.json" "$i" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))["runs"][0]["step_time"]
b = json.load(open(sys.argv[2]))["runs"][0]["step_time"]
ok = a["ci95_lo_s"] <= b["median_s"] <= a["ci95_hi_s"]
print(f'{sys.argv[3]:>4}  {1e3*a["median_s"]:.3f} [{1e3*a["ci95_lo_s"]:.3f}, {1e3*a["ci95_hi_s"]:.3f}]  '
      f'{1e3*b["median_s"]:.3f}  {"yes" if ok else "no"}')
sys.exit(0 if ok else 1)
PY
  then inside=$((inside + 1)); fi
  if [[ -n ${KEEP:-} ]]; then mkdir -p "$KEEP"; cp "$tmp/a.json" "$KEEP/$i-a.json"; cp "$tmp/b.json" "$KEEP/$i-b.json"; fi
done
echo "command: $mg ${args[*]}"
expected=$(python3 - "$runs" <<'PY'
import math, sys
k = int(sys.argv[1])
if k < 2:
    print("n/a (one run: the order-statistic CI assumes independent steps)")
else:
    # P(|t_{k-1}| < t975 / sqrt 2) by numeric integration of the t density (no scipy needed).
    t975 = {2: 12.7062, 3: 4.3027, 4: 3.1824, 5: 2.7764, 6: 2.5706, 7: 2.4469, 8: 2.3646, 9: 2.3060, 10: 2.2622}
    nu = k - 1
    x = t975.get(k, 1.96 + 2.4 / nu) / math.sqrt(2)
    c = math.gamma((nu + 1) / 2) / (math.sqrt(nu * math.pi) * math.gamma(nu / 2))
    steps = 20000
    h = x / steps
    area = sum(c * (1 + ((j + 0.5) * h) ** 2 / nu) ** (-(nu + 1) / 2) for j in range(steps)) * h
    print(f"{200 * area:.0f}% (pooled runs: {k})")
PY
)
echo "pairs: $pairs, second median inside first CI: $inside ($(python3 -c "print(f'{100*$inside/$pairs:.0f}%')")), expected for an exact CI: $expected"
