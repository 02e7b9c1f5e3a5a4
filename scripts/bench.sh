#!/usr/bin/env bash
# One command for a fresh Debian machine: install what is missing, build, and run the main job: the default
# sweep on the devices present (GPUs when there are some, CPU replicas otherwise). Extra arguments go to
# mgbench, e.g. scripts/bench.sh --model resnet18 --gpus 1,2,4,8.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh" mgbench
exec "$root/${MGBENCH_BUILD_DIR:-build}/mgbench" --model resnet50 --json "$root/mgbench-result.json" "$@"
