#!/usr/bin/env bash
# The machine a committed baseline belongs to (results/baselines/<fingerprint>/): CPU model, ISA level, CPUs this
# process may use and the device the preset runs on. Two machines with one fingerprint may still differ; two
# with different fingerprints certainly measure the hardware as well as the code.
#
#   scripts/machine-fingerprint.sh [--describe] [cpu|cuda]      (default cpu)
#
# Prints e.g. amd-epyc_avx512_2cpus_cpu; --describe prints the parts in words instead. CPUINFO names another
# /proc/cpuinfo (tests). Exit 2 on bad arguments.
set -euo pipefail
describe=0
device=cpu
for a in "$@"; do
  case $a in
    --describe) describe=1 ;;
    cpu | cuda) device=$a ;;
    *) echo "machine-fingerprint: unknown argument '$a' (--describe, cpu or cuda)" >&2; exit 2 ;;
  esac
done
cpuinfo=${CPUINFO:-/proc/cpuinfo}
[[ -r $cpuinfo ]] || { echo "machine-fingerprint: cannot read $cpuinfo" >&2; exit 2; }
slug() { tr 'A-Z' 'a-z' | sed -e 's/(\(r\|tm\))//g' -e 's/[^a-z0-9]\{1,\}/-/g' -e 's/^-//' -e 's/-$//'; }
model=$(sed -n '/^model name/{s/^[^:]*:[[:space:]]*//p;q;}' "$cpuinfo")
[[ -n $model ]] || model=$(uname -m)
flags=" $(sed -n '/^\(flags\|Features\)[[:space:]]*:/{s/^[^:]*:[[:space:]]*//p;q;}' "$cpuinfo") "
has() { local f; for f in "$@"; do [[ $flags == *" $f "* ]] || return 1; done; }
# The x86-64 levels that decide which kernels oneDNN and the batch-norm loops run (v4 = AVX-512, v3 = AVX2).
if has avx512f avx512bw avx512vl avx512dq; then isa=avx512
elif has avx2 fma bmi2; then isa=avx2
elif has avx; then isa=avx
elif has sse4_2; then isa=sse4
else isa=$(uname -m)
fi
cpus=$(nproc)
dev=cpu
if [[ $device == cuda ]]; then
  names=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null || true)
  if [[ -n $names ]]; then dev="$(wc -l <<<"$names")x-$(sed -n 1p <<<"$names")"; else dev=no-gpu; fi
fi
if ((describe)); then
  echo "CPU '$model', ISA $isa, $cpus CPUs usable, device $dev"
else
  echo "$(slug <<<"$model")_${isa}_${cpus}cpus_$(slug <<<"$dev")"
fi
