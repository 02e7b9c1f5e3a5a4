#!/usr/bin/env bash
# GPT-2 (124 M parameters, 0.5 GB of fp32 gradients a step) against ResNet-50 (25.6 M, 0.1 GB) on 2 CPU replicas,
# at about equal 1-replica step time, alternating, ROUNDS rounds (default 2; results/transformers/2026-11-28-two-replicas/).
set -euo pipefail
mg=${MGBENCH:-build/mgbench}  # run in an empty folder; writes log-worthy output to stdout and JSON here
echo "# $(date -u +%FT%TZ) $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-) ($(nproc) CPUs); $($mg --version | head -1)"
for r in $(seq 1 "${ROUNDS:-2}"); do
  echo "\$ [round $r] mgbench --device cpu --devices 1,2 --model gpt2 --seq-len 256 --batch-size 2 --optimizer adamw --steps 5 --warmup 2 --no-check"
  $mg --device cpu --devices 1,2 --model gpt2 --seq-len 256 --batch-size 2 --optimizer adamw --steps 5 --warmup 2 --no-check --no-progress --json gpt2-$r.json
  echo "\$ [round $r] mgbench --device cpu --devices 1,2 --model resnet50 --batch-size 24 --optimizer adamw --steps 5 --warmup 2 --no-check"
  $mg --device cpu --devices 1,2 --model resnet50 --batch-size 24 --optimizer adamw --steps 5 --warmup 2 --no-check --no-progress --json resnet50-$r.json
done
