#!/usr/bin/env bash
# Before/after for the in-process ("local") communicator, every op `mgbench comm` runs: the binary built from
# s15 (BEFORE) and the one built from branch oop16 (AFTER), alternating which goes first each round, with
# scripts/measure/machine-probe.sh every round. Raw JSON, the log and a summary go to OUT (the committed runs:
# before-after/ and before-after-3rounds/ in results/cpu/2026-11-24-speed-local-comm-oop/raw.tar.xz).
#   OUT=DIR BEFORE=/path/mgbench AFTER=/path/mgbench dev/cpu/2026-11-24-speed-local-comm-oop/run.sh [ROUNDS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=${OUT:?set OUT to the folder the runs go to}
mkdir -p "$out"
rounds=${1:-3}
ops="allreduce reducescatter allgather broadcast reduce"
run() {  # side binary op round
  "$2" comm --device cpu --devices 2 --transport local --op "$3" -b 8 -e 64M -f 4 --warmup 5 --iters 30 \
    --json "$out/$1-$3-$4.json" > /dev/null
}
{
  echo "# $(date -u +%FT%TZ): $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-) ($(nproc) CPUs)"
  echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "# before: $("$BEFORE" --version | head -1)   after: $("$AFTER" --version | head -1)"
  for i in $(seq 1 "$rounds"); do
    echo "## round $i"
    "$root/scripts/measure/machine-probe.sh" "$out/probe-$i.json" 10 > /dev/null
    if (( i % 2 )); then order="before after"; else order="after before"; fi
    for op in $ops; do
      for s in $order; do
        if [[ $s == before ]]; then run before "$BEFORE" "$op" "$i"; else run after "$AFTER" "$op" "$i"; fi
      done
    done
  done
  echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
} 2>&1 | tee "$out/log.txt"
python3 - "$out" "$rounds" "$ops" <<'PY' | tee "$out/summary.txt"
import json, os, statistics as st, sys
here, rounds, ops = sys.argv[1], int(sys.argv[2]), sys.argv[3].split()
load = lambda f: json.load(open(os.path.join(here, f)))
probes = [load(f"probe-{i}.json") for i in range(1, rounds + 1)]
copy = st.median(p["copy_GBps_all_cores"] for p in probes)
print(f"CPU: {probes[0]['cpu_model']}, {probes[0]['cores']} cores; {rounds} alternating rounds of before/after")
print(f"copy bandwidth (median of rounds, best of 10 each): {copy:.2f} GB/s all cores")
for op in ops:
    rows = {}
    for side in ("before", "after"):
        for i in range(1, rounds + 1):
            for r in load(f"{side}-{op}-{i}.json")["results"]:
                assert r["wrong"] == 0, (side, op, i, r)
                rows.setdefault((r["bytes"], r["in_place"]), {}).setdefault(side, []).append(r)
    print(f"\n{op} fp32, 2 ranks, local: median over rounds (time us [min..max]; busbw % of copy)")
    print(f"{'bytes':>10} {'place':>5} {'before us':>24} {'after us':>24} {'before %':>9} {'after %':>8}")
    for (b, ip), sides in sorted(rows.items()):
        cells = []
        for side in ("before", "after"):
            ts = [r["time_us"] for r in sides[side]]
            cells.append(f"{st.median(ts):9.1f} [{min(ts):.1f}..{max(ts):.1f}]")
        pct = [100 * st.median(r["busbw_GBps"] for r in sides[s]) / copy for s in ("before", "after")]
        print(f"{b:>10} {'in' if ip else 'out':>5} {cells[0]:>24} {cells[1]:>24} {pct[0]:>8.1f}% {pct[1]:>7.1f}%")
PY
