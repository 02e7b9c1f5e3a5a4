#!/usr/bin/env bash
# Measures this machine's fp32 FMA peak and memory copy bandwidth (scripts/measure/machine_probe.cpp), the yardsticks
# mgbench's CPU goals are stated against: prints one JSON object (and writes it to $1 when given).
#   scripts/measure/machine-probe.sh [OUT.json] [REPEATS]
# Compiled here with the system compiler for the native ISA (AVX-512 where the CPU has it), nothing else needed.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"${CXX:-g++}" -O2 -march=native -fopenmp -std=c++17 -o "$tmp/probe" "$root/scripts/measure/machine_probe.cpp"
if [[ $# -ge 1 ]]; then
  OMP_PROC_BIND=spread "$tmp/probe" "${2:-20}" | tee "$1"
else
  OMP_PROC_BIND=spread "$tmp/probe" "${2:-20}"
fi
