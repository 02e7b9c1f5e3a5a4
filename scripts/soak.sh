#!/usr/bin/env bash
# Soak test (not in CI): a long CPU training run in two shapes at once -- one process with 2 replicas as threads,
# and 2 env-launched processes with one replica each on loopback -- sampling every process's resident memory,
# open file descriptors and threads over time, then checking that memory and descriptors stay flat and that
# step times do not drift (median of the first tenth of the timed steps against the last tenth).
#
#   scripts/soak.sh [--minutes M] [--out DIR] [--mgbench BIN] [--model NAME]
#
# Defaults: 180 minutes, results/soak/<UTC date>/, build/mgbench, resnet18 at 64x64, batch 8.
# The binary is copied first, so rebuilding during a soak does not change what runs. Exit 0 when memory and
# descriptors stayed flat, 1 when they grew (the numbers are in DIR/summary.json either way).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
minutes=180
out=""
bin="$root/build/mgbench"
model=resnet18
interval=15
while (($#)); do
  case $1 in
    --minutes) minutes=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --mgbench) bin=$2; shift 2 ;;
    --model) model=$2; shift 2 ;;
    --interval) interval=$2; shift 2 ;;
    *) echo "soak: unknown argument $1 (--minutes M --out DIR --mgbench BIN --model NAME --interval S)" >&2; exit 2 ;;
  esac
done
[[ -x $bin ]] || { echo "soak: $bin is not an executable (build it with scripts/setup.sh mgbench)" >&2; exit 2; }
out=${out:-$root/results/soak/$(date -u +%Y%m%dT%H%M)}
mkdir -p "$out"
work=$(mktemp -d)
pids=()
# `|| true`: under set -e a kill of a job that already ended would end the trap early, with status 1 and the
# temporary folder left behind.
trap 'for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done; rm -rf "$work"' EXIT
cp "$bin" "$work/mgbench"
mg="$work/mgbench"
common=(--device cpu --model "$model" --image-size 64 --batch-size 8 --warmup 5 --no-progress)
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# start_jobs STEPS_THREADS STEPS_PROCS TAG: job A (threads) and job B (2 processes), in the background; pids in
# ${pids[@]}.
start_jobs() {
  local steps=$1 steps_procs=$2 tag=$3 port
  pids=()
  "$mg" "${common[@]}" --devices 2 --no-baseline --steps "$steps" --json "$work/$tag-threads.json" \
    >"$work/$tag-threads.log" 2>&1 &
  pids+=($!)
  port=$(free_port)
  for r in 0 1; do
    RANK=$r WORLD_SIZE=2 LOCAL_WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port \
      "$mg" "${common[@]}" --steps "$steps_procs" --json "$work/$tag-procs.json" >"$work/$tag-procs$r.log" 2>&1 &
    pids+=($!)
  done
}

median_step() {  # median timed step time of a result file, seconds
  python3 -c 'import json,sys,statistics as s; d=json.load(open(sys.argv[1])); print(s.median(d["runs"][-1]["samples"]["total_s"]))' "$1"
}

# Calibration: both shapes side by side for a few steps, so the soak's step count fills the time asked for.
start_jobs 30 30 calib
for p in "${pids[@]}"; do wait "$p" || { cat "$work"/calib-*.log; echo "soak: calibration run failed" >&2; exit 1; }; done
t_threads=$(median_step "$work/calib-threads.json")
t_procs=$(median_step "$work/calib-procs.json")
steps_threads=$(python3 -c "print(max(20, int($minutes * 60 / $t_threads)))")
steps_procs=$(python3 -c "print(max(20, int($minutes * 60 / $t_procs)))")
echo "soak: calibration step ${t_threads}s (threads), ${t_procs}s (processes); running $steps_threads and $steps_procs steps"

start_jobs "$steps_threads" "$steps_procs" soak
names=(threads rank0 rank1)

csv="$out/samples.csv"
echo "elapsed_s,process,pid,rss_kib,fds,threads" >"$csv"
start=$(date +%s)
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
deadline=$((start + minutes * 60 * 3 + 300))  # a run far slower than calibrated is stopped, and reported
while :; do
  alive=0
  now=$(date +%s)
  for i in 0 1 2; do
    p=${pids[$i]}
    [[ -r /proc/$p/status ]] || continue
    alive=1
    rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$p/status" 2>/dev/null || echo "")
    thr=$(awk '/^Threads:/ {print $2}' "/proc/$p/status" 2>/dev/null || echo "")
    fds=$(ls "/proc/$p/fd" 2>/dev/null | wc -l)
    [[ -n $rss ]] && echo "$((now - start)),${names[$i]},$p,$rss,$fds,$thr" >>"$csv"
  done
  ((alive)) || break
  if ((now > deadline)); then
    echo "soak: still running at the deadline; stopping" >&2
    for p in "${pids[@]}"; do kill -INT "$p" 2>/dev/null || true; done
  fi
  sleep "$interval"
done
status=0
for p in "${pids[@]}"; do wait "$p" || status=1; done
cp "$work"/soak-*.log "$out/" 2>/dev/null || true
for j in threads procs; do [[ -f $work/soak-$j.json ]] && cp "$work/soak-$j.json" "$out/$j.json"; done
((status == 0)) || { echo "soak: a run failed (logs in $out)" >&2; exit 1; }

python3 - "$out" "$minutes" "$model" "$(lscpu | sed -n 's/^Model name: *//p' | head -1)" "$(nproc)" \
  "$load_start" "$(cut -d' ' -f1-3 /proc/loadavg)" <<'PY'
import csv, json, statistics, sys
out, minutes, model, cpu, cores = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5])
rows = list(csv.DictReader(open(f"{out}/samples.csv")))
# The load average says whether step-time drift can be told from the machine's other work.
summary = {"command": "scripts/soak.sh --minutes %g" % minutes, "model": model, "cpu": cpu, "cores": cores,
           "load_average_start": sys.argv[6], "load_average_end": sys.argv[7],
           "processes": {}, "step_time": {}}
ok = True
for name in ("threads", "rank0", "rank1"):
    s = [r for r in rows if r["process"] == name]
    if len(s) < 4:
        continue
    t = [float(r["elapsed_s"]) for r in s]
    rss = [int(r["rss_kib"]) for r in s]
    fds = [int(r["fds"]) for r in s]
    # After the first tenth (allocators and oneDNN's primitive cache settle during warm-up).
    k = max(1, len(s) // 10)
    steady_rss, steady_fds, steady_t = rss[k:], fds[k:], t[k:]
    n = len(steady_t)
    mt, mr = sum(steady_t) / n, sum(steady_rss) / n
    var = sum((x - mt) ** 2 for x in steady_t)
    slope = sum((x - mt) * (y - mr) for x, y in zip(steady_t, steady_rss)) / var if var else 0.0
    growth = (steady_rss[-1] - steady_rss[0]) / steady_rss[0]
    p = {"samples": len(s), "duration_s": t[-1] - t[0], "rss_kib_first": rss[0], "rss_kib_steady_start": steady_rss[0],
         "rss_kib_end": rss[-1], "rss_kib_max": max(rss), "rss_growth_steady": growth,
         "rss_slope_kib_per_hour": slope * 3600, "fds_min": min(steady_fds), "fds_max": max(steady_fds),
         "threads_max": max(int(r["threads"]) for r in s)}
    p["flat"] = abs(growth) < 0.05 and p["fds_max"] == p["fds_min"]
    ok &= p["flat"]
    summary["processes"][name] = p
for job in ("threads", "procs"):
    try:
        d = json.load(open(f"{out}/{job}.json"))
    except FileNotFoundError:
        continue
    steps = d["runs"][-1]["samples"]["total_s"]
    k = max(1, len(steps) // 10)
    first, last = statistics.median(steps[:k]), statistics.median(steps[-k:])
    deciles = [statistics.median(steps[i * len(steps) // 10:(i + 1) * len(steps) // 10]) for i in range(10)]
    summary["step_time"][job] = {"steps": len(steps), "median_first_tenth_s": first, "median_last_tenth_s": last,
                                 "drift": (last - first) / first, "median_per_tenth_s": deciles}
json.dump(summary, open(f"{out}/summary.json", "w"), indent=2)
print(json.dumps(summary, indent=2))
sys.exit(0 if ok else 1)
PY
