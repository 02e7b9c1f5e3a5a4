#!/usr/bin/env bash
# What results/cpu/2026-11-24-resnet50-b16-fused/'s measurements ran (each part under the measurement lock, from
# the repository root; the outputs went into that folder, now OUT, and are in its raw.tar.xz):
#   OUT=results/cpu/2026-11-24-resnet50-b16-fused BEFORE=... AFTER=... dev/cpu/2026-11-24-resnet50-b16-fused/measure.sh profile
#   OUT=... BEFORE=... AFTER=... dev/cpu/2026-11-24-resnet50-b16-fused/measure.sh tiny
#   OUT=... TINY_DIR=tiny-5rounds TINY_ROUNDS=5 BEFORE=... AFTER=... .../measure.sh tiny
# profile: the machine probe, then oneDNN's per-primitive breakdown of both binaries
# (scripts/measure/onednn-breakdown.py);
# tiny: the tiny model's 2-replica efficiency (local transport, as scripts/measure/bench-local-comm.sh runs it),
# before and after alternating for 3 rounds. The before/after throughput is scripts/measure/bench-ab.sh; the PyTorch
# comparison is scripts/measure/bench-cpu-vs-torch.sh (the campaign's README.md says how each was called).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=${OUT:?set OUT to the folder the measurements go to}
mkdir -p "$out"
: "${BEFORE:?path of the before binary}" "${AFTER:?path of the after binary}"
case ${1:-} in
  profile)
    "$root/scripts/measure/machine-probe.sh" "$out/probe.json"
    for side in before after; do
      bin=$BEFORE; [[ $side == after ]] && bin=$AFTER
      python3 "$root/scripts/measure/onednn-breakdown.py" "$out/breakdown-$side" --probe "$out/probe.json" --mgbench "$bin" \
        -- --model resnet50 --device cpu --gpus 1 --steps 10 --warmup 2 --no-check > "$out/breakdown-$side.txt"
    done ;;
  tiny)
    # TINY_DIR (default tiny) and TINY_ROUNDS (default 3) name a repetition.
    dir=$out/${TINY_DIR:-tiny} rounds=${TINY_ROUNDS:-3}
    mkdir -p "$dir"
    for r in $(seq 1 "$rounds"); do
      if (( r % 2 )); then order="before after"; else order="after before"; fi
      for side in $order; do
        bin=$BEFORE; [[ $side == after ]] && bin=$AFTER
        "$bin" --device cpu --gpus 1,2 --model tiny --transport local --steps 200 --warmup 20 --repeat 3 \
          --no-progress --json "$dir/$side-$r.json" > /dev/null
      done
    done
    python3 - "$dir" "$rounds" <<'PY' | tee "$dir/summary.txt"
import json, statistics as st, sys
d, rounds = sys.argv[1], int(sys.argv[2])
for side in ("before", "after"):
    effs = []
    for r in range(1, rounds + 1):
        runs = json.load(open(f"{d}/{side}-{r}.json"))["runs"]
        effs.append([x for x in runs if x["devices"] == 2][0]["scaling_efficiency"])
    print(f"tiny, 2 replica threads, local transport, {side}: " + ", ".join(f"{100 * e:.1f}%" for e in effs)
          + f"  (median {100 * st.median(effs):.1f}%)")
PY
    ;;
  *) echo "usage: measure.sh profile|tiny" >&2; exit 2 ;;
esac
