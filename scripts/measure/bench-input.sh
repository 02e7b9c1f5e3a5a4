#!/usr/bin/env bash
# Input-pipeline benchmark: how many images/s the decode + augment + staging path delivers per decode thread,
# on a generated folder of 224x224 JPEGs (and the same images packed into a .mgrec file). No training runs, so
# this is the ceiling the input sets on training throughput (`mgbench --input-only`).
#
# The figure is the steady-state rate: images over time of the STEPS timed steps that follow WARMUP steps, which
# drain the batches the stager and decode workers prefetch before timing starts (those were decoded before the
# clock started, so counting them would make the input look faster than it can sustain). The rate at the median
# step (global batch / median step time) is printed beside it. Raw JSON per run under OUT.
#
# usage: scripts/measure/bench-input.sh [path/to/mgbench]      (default: build/mgbench of this checkout)
# env:   COUNT=2000 CLASSES=10 SIZE=224 THREADS="1 2" BATCH=64 STEPS=40 WARMUP=10 DEVICE=cpu
#        WORKDIR=(a temp dir) OUT=(raw JSON; default WORKDIR/json)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
MGBENCH=${1:-${MGBENCH:-$root/build/mgbench}}
COUNT=${COUNT:-2000}
CLASSES=${CLASSES:-10}
SIZE=${SIZE:-224}
THREADS=${THREADS:-"1 2"}
BATCH=${BATCH:-64}
STEPS=${STEPS:-40}
WARMUP=${WARMUP:-10}
DEVICE=${DEVICE:-cpu}
[ -x "$MGBENCH" ] || { echo "bench-input: no mgbench binary at $MGBENCH (pass its path)" >&2; exit 2; }
if [ -n "${WORKDIR:-}" ]; then
  mkdir -p "$WORKDIR"
  W=$WORKDIR
else
  W=$(mktemp -d)
  trap 'rm -rf "$W"' EXIT
fi

if [ ! -d "$W/images" ]; then
  "$MGBENCH" prepare-data --generate-test-images "$W/images" --count "$COUNT" --size "$SIZE" --classes "$CLASSES"
fi
[ -f "$W/images.mgrec" ] || "$MGBENCH" prepare-data "$W/images" "$W/images.mgrec"
OUT=${OUT:-$W/json}
mkdir -p "$OUT"
echo "host: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "data: $COUNT ${SIZE}x${SIZE} JPEGs ($(du -sh "$W/images" | cut -f1)), batch $BATCH, $STEPS timed steps after $WARMUP"
for data in "$W/images" "$W/images.mgrec"; do
  for t in $THREADS; do
    echo "== $(basename "$data"), --data-threads $t"
    "$MGBENCH" --data "$data" --input-only --device "$DEVICE" --data-threads "$t" --batch-size "$BATCH" \
      --steps "$STEPS" --warmup "$WARMUP" --no-progress --json "$OUT/$(basename "$data")-t$t.json"
  done
done
echo "== steady state: images / time over the timed steps after the prefetch drained [global batch / median step time]"
python3 - "$OUT" <<'PY'
import glob, json, os, sys
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    d = json.load(open(f))
    cells = [f"{r['devices']} replica(s): {r['images_per_sec']:.0f} img/s "
             f"[{r['global_batch'] / r['step_time']['median_s']:.0f}]" for r in d["runs"]]
    print(f"{os.path.basename(f)[:-5]}: " + "; ".join(cells))
PY
