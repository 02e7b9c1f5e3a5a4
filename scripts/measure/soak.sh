#!/usr/bin/env bash
# Soak test (not in CI): a long CPU training run in two shapes at once -- one process with 2 replicas as threads,
# and 2 env-launched processes with one replica each on loopback -- sampling every process's resident memory,
# open file descriptors and threads over time; scripts/measure/soak-check.py then judges the series: memory, descriptors
# and threads must not grow and step times must not drift (median of the last tenth of the timed steps against
# the first) by more than its limits.
#
#   scripts/measure/soak.sh [--minutes M] [--out DIR] [--mgbench BIN] [--model NAME] [--interval S] [--max-drift F]
#
# Defaults: 180 minutes, results/soak/<UTC date>/, build/mgbench, resnet18 at 64x64, batch 8, a sample every 15 s,
# drift limit 0.10. The binary is copied first, so rebuilding during a soak does not change what runs. Exit 0 when
# everything stayed flat, 1 when something grew or drifted or a run failed (the numbers are in DIR/summary.json
# either way), 2 for bad arguments.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
minutes=180
out=""
bin="$root/build/mgbench"
model=resnet18
interval=15
max_drift=0.10
usage() { echo "soak: $*" >&2; exit 2; }
while (($#)); do
  (($# >= 2)) || usage "$1 needs a value (--minutes M --out DIR --mgbench BIN --model NAME --interval S --max-drift F)"
  case $1 in
    --minutes) minutes=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --mgbench) bin=$2; shift 2 ;;
    --model) model=$2; shift 2 ;;
    --interval) interval=$2; shift 2 ;;
    --max-drift) max_drift=$2; shift 2 ;;
    *) usage "unknown argument $1 (--minutes M --out DIR --mgbench BIN --model NAME --interval S --max-drift F)" ;;
  esac
done
[[ $minutes =~ ^[1-9][0-9]*$ ]] || usage "--minutes expects a whole number of minutes, got '$minutes'"
[[ $interval =~ ^[1-9][0-9]*$ ]] || usage "--interval expects whole seconds, got '$interval'"
[[ $max_drift =~ ^[0-9]*\.?[0-9]+$ ]] || usage "--max-drift expects a fraction such as 0.10, got '$max_drift'"
[[ -x $bin ]] || usage "$bin is not an executable (build it with scripts/setup.sh mgbench)"
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

# How the soak was run goes into the summary; the load average says whether drift can be told from the machine's
# other work.
python3 - "$out/about.json" "$minutes" "$model" "$(lscpu | sed -n 's/^Model name: *//p' | head -1)" "$(nproc)" \
  "$load_start" "$(cut -d' ' -f1-3 /proc/loadavg)" "$("$mg" --version | head -1)" <<'PY'
import json, sys
path, minutes, model, cpu, cores, load_start, load_end, version = sys.argv[1:]
json.dump({"command": "scripts/measure/soak.sh --minutes %s --model %s" % (minutes, model), "mgbench": version, "cpu": cpu,
           "cores": int(cores), "load_average_start": load_start, "load_average_end": load_end},
          open(path, "w"), indent=2)
PY
status=0
python3 "$root/scripts/measure/soak-check.py" "$out" --max-drift "$max_drift" || status=$?
exit "$status"
