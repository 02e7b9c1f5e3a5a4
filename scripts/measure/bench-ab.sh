#!/usr/bin/env bash
# Before/after of two mgbench binaries on this machine: BEFORE and AFTER alternate, the order swapped every
# round, with the same arguments; raw JSON and output per run in OUT, and a summary (img/s per round, median,
# ratio AFTER / BEFORE of img/s, so below 1 means AFTER is slower, and that direction in words, peak memory) in
# OUT/summary.txt. Run it under the measurement lock on a shared machine.
#   BEFORE=old/mgbench AFTER=new/mgbench scripts/measure/bench-ab.sh OUT ROUNDS [mgbench arguments]
#   default arguments: --model resnet50 --device cpu --gpus 1 --steps 10
set -euo pipefail
die() { echo "bench-ab: $*" >&2; exit 2; }
(( $# >= 2 )) || die "usage: BEFORE=... AFTER=... bench-ab.sh OUT ROUNDS [mgbench arguments]"
out=$1 rounds=$2
shift 2
[[ $rounds =~ ^[1-9][0-9]*$ ]] || die "ROUNDS must be a positive integer, not '$rounds'"
for side in BEFORE AFTER; do
  [[ -n ${!side:-} && -x ${!side} ]] || die "$side must name an mgbench binary"
done
args=("$@")
for a in "${args[@]}"; do  # each run writes OUT/<side>-<round>.json itself
  [[ $a == --json || $a == --json=* ]] && die "give no --json: each run's JSON goes to OUT"
done
(( ${#args[@]} )) || args=(--model resnet50 --device cpu --gpus 1 --steps 10)
mkdir -p "$out"
{
  echo "date: $(date -u +%FT%TZ)"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
  echo "before: $BEFORE ($("$BEFORE" --version | head -1))"
  echo "after: $AFTER ($("$AFTER" --version | head -1))"
  echo "arguments: ${args[*]}"
  echo "load: $(cat /proc/loadavg)"
} >> "$out/log.txt"
for ((r = 1; r <= rounds; r++)); do
  if (( r % 2 )); then order="before after"; else order="after before"; fi
  for side in $order; do
    bin=$BEFORE
    [[ $side == after ]] && bin=$AFTER
    "$bin" "${args[@]}" --no-progress --json "$out/$side-$r.json" > "$out/$side-$r.txt" 2>&1 \
      || die "$side run $r failed; see $out/$side-$r.txt"
    echo "round $r $side done $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/log.txt"
  done
done
python3 - "$out" "$rounds" <<'PY' | tee "$out/summary.txt"
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
rows = {}
for side in ("before", "after"):
    runs = []
    for r in range(1, rounds + 1):
        run = json.load(open(f"{out}/{side}-{r}.json"))["runs"][-1]
        runs.append((run["images_per_sec_from_steps"], run["peak_memory_bytes"]))
    rows[side] = runs
for side, runs in rows.items():
    ips = [x[0] for x in runs]
    print(f"{side:<7} img/s per round: {', '.join(f'{v:.2f}' for v in ips)}  median {statistics.median(ips):.2f}"
          f"  peak memory {max(x[1] for x in runs) / 2**30:.3f} GiB")
b = statistics.median(x[0] for x in rows["before"])
a = statistics.median(x[0] for x in rows["after"])
pairs = [x[0] / y[0] for x, y in zip(rows["after"], rows["before"])]
print(f"after / before: {a / b:.3f} (medians); per round {', '.join(f'{p:.3f}' for p in pairs)}")
# Which way it went, in words: a ratio below 1 is AFTER slower (fewer images per second).
faster, slower = sum(p > 1 for p in pairs), sum(p < 1 for p in pairs)
print(f"direction: AFTER {abs(a / b - 1) * 100:.1f} % {'faster' if a > b else 'slower'} than BEFORE (img/s, medians); "
      f"faster in {faster} of {len(pairs)} rounds, slower in {slower}")
PY
