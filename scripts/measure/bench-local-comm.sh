#!/usr/bin/env bash
# In-process all-reduce: the shared-memory communicator ("local") against Gloo's TCP loopback
# ("tcp") for replica threads of one process, next to this machine's copy bandwidth (scripts/measure/machine-probe.sh),
# and the tiny model's 2-replica scaling efficiency over each. Every round runs both sides back to back
# (alternating which goes first), so a noisy, shared machine affects them alike; raw JSON of every run is
# kept under OUT with a log and a summary.
#   scripts/measure/bench-local-comm.sh [ROUNDS]      (default 3; OUT defaults to results/cpu/<date>-speed-local-comm)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
rounds=${1:-3}
out=${OUT:-$root/results/cpu/$(date -u +%Y-%m-%d)-speed-local-comm}
mg=${MGBENCH:-$root/build/mgbench}
mkdir -p "$out"
log="$out/log.txt"
comm() {  # transport round
  "$mg" comm --device cpu --devices 2 --transport "$1" -b 8 -e 64M -f 4 --warmup 5 --iters 30 \
    --json "$out/comm-$1-$2.json"
}
tiny() {  # transport round
  "$mg" --device cpu --gpus 1,2 --model tiny --transport "$1" --steps 200 --warmup 20 --repeat 3 --no-progress \
    --json "$out/tiny-$1-$2.json"
}
{
  echo "# $(date -u +%FT%TZ) on $(hostname): $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-) ($(nproc) CPUs)"
  echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg) (the machine is shared)"
  echo "# mgbench: $("$mg" --version | head -1)"
  for i in $(seq 1 "$rounds"); do
    echo "## round $i"
    "$root/scripts/measure/machine-probe.sh" "$out/probe-$i.json" 10
    if (( i % 2 )); then order="local tcp"; else order="tcp local"; fi
    for t in $order; do comm "$t" "$i"; done
    for t in $order; do tiny "$t" "$i"; done
  done
  echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
} 2>&1 | tee "$log"
python3 - "$out" "$rounds" <<'PY' | tee "$out/summary.txt"
import json, os, statistics as st, sys
out, rounds = sys.argv[1], int(sys.argv[2])
load = lambda f: json.load(open(os.path.join(out, f)))
probes = [load(f"probe-{i}.json") for i in range(1, rounds + 1)]
copy = st.median(p["copy_GBps_all_cores"] for p in probes)
copy1 = st.median(p["copy_GBps_1thread"] for p in probes)
print(f"CPU: {probes[0]['cpu_model']}, {probes[0]['cores']} cores; {rounds} alternating rounds")
print(f"copy bandwidth (median of rounds, best of 10 each): {copy:.2f} GB/s all cores, {copy1:.2f} GB/s one thread")
for t in ("local", "tcp"):
    rows = {}
    for i in range(1, rounds + 1):
        for r in load(f"comm-{t}-{i}.json")["results"]:
            rows.setdefault((r["bytes"], r["in_place"]), []).append(r)
    print(f"\nall-reduce fp32, 2 ranks, {t} ({rows[min(rows)][0]['library']}): median over rounds [min..max]")
    print(f"{'bytes':>10} {'place':>6} {'time us':>10} {'range':>22} {'busbw GB/s':>11} {'% of copy':>9}")
    for (b, ip), rs in sorted(rows.items()):
        ts = [r["time_us"] for r in rs]
        bw = st.median(r["busbw_GBps"] for r in rs)
        print(f"{b:>10} {'in' if ip else 'out':>6} {st.median(ts):>10.1f} {min(ts):>10.1f}..{max(ts):<10.1f} "
              f"{bw:>11.3f} {100 * bw / copy:>8.1f}%")
print("\ntiny model, 2 replica threads, scaling efficiency (200 steps x 3 repeats, median step):")
for t in ("local", "tcp"):
    effs = []
    for i in range(1, rounds + 1):
        runs = load(f"tiny-{t}-{i}.json")["runs"]
        two = [r for r in runs if r["devices"] == 2][0]
        effs.append(two["scaling_efficiency"])
    print(f"  {t:>5}: " + ", ".join(f"{100 * e:.1f}%" for e in effs) + f"  (median {100 * st.median(effs):.1f}%)")
PY
