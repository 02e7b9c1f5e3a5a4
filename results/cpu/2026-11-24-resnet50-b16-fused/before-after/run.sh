#!/usr/bin/env bash
# Before/after of the ReLU fusion: BEFORE and AFTER mgbench binaries alternate (order swapped every round),
# ResNet-50 fp32 batch 16, 1 CPU replica, 10 timed steps; raw JSON per run in this folder.
#   BEFORE=... AFTER=... run.sh ROUNDS
set -euo pipefail
rounds=${1:-3}
here=$(cd "$(dirname "$0")" && pwd)
: "${BEFORE:?path of the before binary}" "${AFTER:?path of the after binary}"
{
  echo "date: $(date -u +%FT%TZ)"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)"
  echo "load: $(cat /proc/loadavg)"
} >> "$here/log.txt"
for r in $(seq 1 "$rounds"); do
  if (( r % 2 )); then order="before after"; else order="after before"; fi
  for side in $order; do
    bin=$BEFORE; [[ $side == after ]] && bin=$AFTER
    "$bin" --model resnet50 --device cpu --gpus 1 --steps 10 --json "$here/$side-$r.json" > "$here/$side-$r.txt" 2>&1
    echo "round $r $side done $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$here/log.txt"
  done
done
