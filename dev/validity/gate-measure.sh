#!/usr/bin/env bash
# The regression gate's own validity check: how often it raises a false alarm and how often it finds a known
# slowdown; the runs committed in results/validity/gate-*.
#
#   dev/validity/gate-measure.sh OUT [TRIALS] [K]     (MGBENCH: the binary, copied to a private path first)
#
# Each trial runs the configs/ci-smoke.json preset K times in a 4-way rotation
#   A  A'  S10  S5  A  A'  S10  S5 ...
# where A and A' are the same binary (unchanged code), S10 and S5 the same binary with --inject-slowdown 0.10 and
# 0.05 (a true 10 % / 5 % slowdown of every step). Then three gate decisions with exactly the gate's compare
# (`mgbench compare --paired`, defaults: alpha 0.05, threshold 5 %):
#   A vs A'  (a false alarm if judged a regression), A vs S10, A vs S5 (detected if judged a regression).
# The rotation shares A between the three comparisons of a trial to fit 60 gate decisions into the time
# available; pairs of A and S5 are two runs apart instead of adjacent, which makes that comparison noisier, not
# easier. Raw result JSON stays in OUT/trial-NN/{a,a2,s10,s5}/run-KK.json, reports in OUT/trial-NN/*.json.
# Stops starting new trials at STOP_AT (UTC, HH:MM) if set.
set -euo pipefail
out=${1:?usage: gate-measure.sh OUT [TRIALS] [K]}
trials=${2:-20}
k=${3:-10}
root=$(cd "$(dirname "$0")/../.." && pwd)
mg=${MGBENCH:?set MGBENCH to a private copy of the binary}
config=${CONFIG:-$root/configs/ci-smoke.json}
mkdir -p "$out"
cp "$config" "$out/preset.json"
{
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //') ($(nproc) CPUs)"
  echo "binary: $("$mg" --version | head -1)"
  echo "started: $(date -u +%FT%TZ), trials $trials, K $k"
} >"$out/about.txt"
( while true; do echo "$(date -u +%H:%M:%S) $(cut -d' ' -f1-3 /proc/loadavg)"; sleep 30; done ) >"$out/loadavg.log" &
logger=$!
trap 'kill $logger' EXIT
for ((t = 1; t <= trials; t++)); do
  if [[ -n ${STOP_AT:-} && $(date -u +%H:%M) > $STOP_AT ]]; then
    echo "stopped before trial $t at $(date -u +%H:%M) (STOP_AT $STOP_AT)" >>"$out/about.txt"
    break
  fi
  dir=$out/trial-$(printf %02d "$t")
  rm -rf "$dir"
  mkdir -p "$dir"/{a,a2,s10,s5}
  start=$(date +%s.%N)
  for ((i = 1; i <= k; i++)); do
    n=$(printf %02d "$i")
    "$mg" --config "$config" --no-progress --json "$dir/a/run-$n.json" >/dev/null
    "$mg" --config "$config" --no-progress --json "$dir/a2/run-$n.json" >/dev/null
    "$mg" --config "$config" --no-progress --inject-slowdown 0.10 --json "$dir/s10/run-$n.json" >/dev/null
    "$mg" --config "$config" --no-progress --inject-slowdown 0.05 --json "$dir/s5/run-$n.json" >/dev/null
  done
  end=$(date +%s.%N)
  line="trial $t: $(python3 -c "print(round($end - $start, 1))") s for $((4 * k)) runs;"
  for side in a2 s10 s5; do
    s=0
    "$mg" compare "$dir/a" "$dir/$side" --paired --json "$dir/compare-$side.json" >"$dir/compare-$side.txt" || s=$?
    line+=" $side exit $s"
  done
  echo "$line" | tee -a "$out/trials.log"
done
echo "finished: $(date -u +%FT%TZ)" >>"$out/about.txt"
