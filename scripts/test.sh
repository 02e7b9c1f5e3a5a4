#!/usr/bin/env bash
# One command for a fresh Debian machine: install what is missing, build, and run the whole test suite
# (unit tests, end-to-end CLI tests, and the GPU set, which skips itself without a GPU).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
cd "${MGBENCH_BUILD_DIR:-$root/build}"
ctest --output-on-failure -j "${MGBENCH_TEST_JOBS:-2}" "$@"
