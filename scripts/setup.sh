#!/usr/bin/env bash
# Installs what is missing (Debian packages listed in scripts/deps.txt) and builds mgbench into build/: every
# target, or only those named as arguments (scripts/setup.sh mgbench).
# CUDA is built when the toolkit is found (/usr/local/cuda or CUDAToolkit_ROOT); MGBENCH_CUDA=OFF skips it.
# Idempotent: a second run installs nothing and rebuilds only what changed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${MGBENCH_BUILD_DIR:-$root/build}

missing=()
while read -r pkg; do
  [[ -z "$pkg" || "$pkg" == \#* ]] && continue
  [[ $(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null) == "install ok installed" ]] || missing+=("$pkg")
done < "$root/scripts/deps.txt"
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=""
  [[ $(id -u) -ne 0 ]] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

jobs=${MGBENCH_JOBS:-$(nproc)}
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DMGBENCH_CUDA="${MGBENCH_CUDA:-AUTO}" >/dev/null
targets=()
for t in "$@"; do targets+=(--target "$t"); done
cmake --build "$build" -j "$jobs" "${targets[@]}"
