#!/usr/bin/env bash
# Why a few-KB all-reduce costs more inside a training step than in `mgbench comm`'s back-to-back loop, on
# loopback (two processes, Gloo over TCP, one thread each, the 2-core VM). Alternating, ROUNDS times:
#   train     the `tiny` model, 2 ranks, --no-overlap: the all-reduce as training issues it (one 6344-byte bucket
#             per step, after ~13 ms of compute)
#   comm      mgbench comm 4..16 KiB, back to back and with --gap 0.01 (each collective after 10 ms of busy work)
#   *_rt      the same two with both ranks at real-time priority (chrt -f 1): a woken thread gets a core at once
#   gapG      mgbench comm 8 KiB with --gap G for G = 1, 3, 10, 30 ms: how the cost grows with the gap
#   MGBENCH=build/mgbench dev/predict/gap-loopback.sh OUTDIR [ROUNDS]
# Run it under the measurement lock (flock /work/notes/measure.lock nice -n -10 ...); root for chrt.
set -u
: "${MGBENCH:?MGBENCH must point at the mgbench binary}"
out=${1:?usage: gap-loopback.sh OUTDIR [ROUNDS]}
rounds=${2:-3}
mkdir -p "$out/raw"
pair() {  # pair JSON PREFIX ARGS...: rank 1 in the background, rank 0 writes JSON
  local json=$1 pre=$2; shift 2
  local port
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  RANK=1 WORLD_SIZE=2 LOCAL_RANK=1 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port $pre "$MGBENCH" "$@" >"$out/r1.log" 2>&1 &
  local p1=$!
  RANK=0 WORLD_SIZE=2 LOCAL_RANK=0 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port $pre "$MGBENCH" "$@" --json "$json" \
    >"$out/r0.log" 2>&1 || { cat "$out/r0.log" "$out/r1.log"; echo "FAIL: $*"; exit 1; }
  wait $p1 || { cat "$out/r1.log"; echo "FAIL: rank 1: $*"; exit 1; }
}
train=(--device cpu --threads 1 --no-progress --warmup 2 --model tiny --num-classes 10 --batch-size 128 --steps 60
       --no-overlap)
comm=(comm --device cpu --op allreduce -b 4K -e 16K -f 4 --warmup 2 --iters 8 --min-time 1 --gap 0.01)
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)" \
  | tee "$out/run.log"
for r in $(seq "$rounds"); do
  pair "$out/raw/train_$r.json" "" "${train[@]}"
  pair "$out/raw/comm_$r.json" "" "${comm[@]}"
  pair "$out/raw/train_rt_$r.json" "chrt -f 1" "${train[@]}"
  pair "$out/raw/comm_rt_$r.json" "chrt -f 1" "${comm[@]}"
  for g in 0.001 0.003 0.01 0.03; do
    pair "$out/raw/gap${g}_$r.json" "" comm --device cpu --op allreduce -b 8K -e 8K --warmup 2 --iters 8 --min-time 1 --gap "$g"
  done
  echo "round $r done (load $(cut -d' ' -f1 /proc/loadavg), $(date -u +%T))" | tee -a "$out/run.log"
done
rm -f "$out/r0.log" "$out/r1.log"
python3 - "$out" "$rounds" <<'PY' | tee "$out/table.md"
import json, statistics as st, sys
out, rounds = sys.argv[1], int(sys.argv[2])
load = lambda n: json.load(open(f"{out}/raw/{n}.json"))
def train(n):
    r = load(n)["runs"][-1]
    return f"{r['images_per_sec']:.0f} img/s, all-reduce {1e3 * r['allreduce']['time_s']:.2f} ms, exposed {1e3 * r['breakdown']['comm_exposed_s']:.2f} ms"
def comm(n, size=None):
    rows = [x for x in load(n)["results"] if size is None or x["bytes"] == size]
    f = lambda k: "/".join(f"{x[k] / 1e3:.2f}" for x in rows)
    return f"back to back {f('time_us')} ms, after the gap {f('gap_time_us')} ms"
print("| round | tiny, 2 ranks, no overlap | comm 4 / 16 KiB (oop/ip each) | tiny at chrt -f 1 | comm at chrt -f 1 |")
print("|---|---|---|---|---|")
for r in range(1, rounds + 1):
    print(f"| {r} | {train(f'train_{r}')} | {comm(f'comm_{r}')} | {train(f'train_rt_{r}')} | {comm(f'comm_rt_{r}')} |")
print()
print("| round | " + " | ".join(f"8 KiB after {g} s (oop/ip)" for g in ("0.001", "0.003", "0.01", "0.03")) + " |")
print("|---|---|---|---|---|")
for r in range(1, rounds + 1):
    cells = []
    for g in ("0.001", "0.003", "0.01", "0.03"):
        rows = load(f"gap{g}_{r}")["results"]
        cells.append("/".join(f"{x['gap_time_us'] / 1e3:.2f}" for x in rows) + " ms (" + "/".join(str(x["gap_iters"]) for x in rows) + " collectives)")
    print(f"| {r} | " + " | ".join(cells) + " |")
PY
