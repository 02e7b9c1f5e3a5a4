#!/usr/bin/env bash
# CPU speed check: mgbench vs PyTorch (the project's own reference loop, scripts/measure/torch_reference.py) on the same
# machine, model, batch and thread count, in ROUNDS alternating rounds (mgbench, PyTorch NCHW, PyTorch
# channels-last, then again), so a slow period of a shared machine hits every side. Each side's figure is the
# median over rounds of its per-run median step rate (batch / median step time); images over wall time is shown
# beside it. Raw JSON of every run, a summary and the full log go under OUT (default results/cpu/<date>-...).
#   scripts/measure/bench-cpu-vs-torch.sh [MODEL] [BATCH] [STEPS]
#       env: ROUNDS=3 THREADS=$(nproc) OUT MGBENCH DDP=0 PROBE=1 LAYOUTS="nchw channels-last"
# MODEL is a name both take: torchvision's (resnet50, vit_b_16), which mgbench knows as an alias. LAYOUTS picks the
# PyTorch sides (channels-last means nothing to a transformer's activations: LAYOUTS=nchw for vit_b_16).
# Memory is process against process: mgbench's peak resident set (device_memory_in_use_bytes, VmHWM) and
# PyTorch's ru_maxrss.
# DDP=1 adds, in every round, mgbench on 2 CPU replicas against PyTorch DDP (gloo, 2 processes; torch_ddp_cpu.py).
# PROBE=1 (the default) runs scripts/measure/machine-probe.sh right before each round's mgbench run and states that
# run as a percentage of the FMA peak the probe just measured: a shared VM's peak moves between rounds (on the 2-core VM one
# probe read 224 GFLOP/s and the next, 25 minutes later, 117), so a single probe cannot be the yardstick of all.
# The percentage is given twice: direct-equivalent (the model's direct-convolution FLOPs, 3x forward per training
# image) and executed (less what Winograd layers did not compute: scripts/measure/onednn_flops.py), the latter from one
# untimed 2-step run under ONEDNN_VERBOSE after the rounds (scripts/measure/onednn-breakdown.py, OUT/flops/).
# The DDP line is images over the wall time of the timed window on both sides (torch_ddp_cpu.py times the same).
# Each PyTorch JSON records torch.__config__.show() (the build: BLAS, oneDNN, OpenMP, ISA). PyTorch runs with
# OMP_NUM_THREADS=THREADS besides --threads, as bench-lm-vs-torch.sh runs it, so its OpenMP team has that size too.
# Needs Debian's python3-torch and python3-torchvision (apt-get install them; /usr/bin/python3 is used).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
model=${1:-resnet50}; batch=${2:-16}; steps=${3:-10}
threads=${THREADS:-$(nproc)}
rounds=${ROUNDS:-3}
out=${OUT:-$root/results/cpu/$(date +%Y-%m-%d)-$model-b$batch}
mg=${MGBENCH:-$root/build/mgbench}
ref=$root/scripts/measure/torch_reference.py
[[ -x $mg ]] || { echo "bench-cpu-vs-torch: no mgbench binary at $mg (build first or set MGBENCH)" >&2; exit 2; }
/usr/bin/python3 -c "import torch, torchvision" 2>/dev/null ||
  { echo "bench-cpu-vs-torch: /usr/bin/python3 lacks torch/torchvision (apt-get install python3-torch python3-torchvision)" >&2; exit 2; }
[[ ${PROBE:-1} == [01] ]] || { echo "bench-cpu-vs-torch: PROBE must be 0 or 1, not '${PROBE}'" >&2; exit 2; }
layouts=${LAYOUTS:-nchw channels-last}
for l in $layouts; do
  [[ $l == nchw || $l == channels-last ]] || { echo "bench-cpu-vs-torch: LAYOUTS takes nchw and channels-last, not '$l'" >&2; exit 2; }
done
mkdir -p "$out"
log="$out/log.txt"
"$mg" models --json > "$out/models.json"
{
  echo "# $(date -u +%FT%TZ) on $(hostname): $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //') ($(nproc) CPUs)"
  echo "# mgbench: $("$mg" --version | head -1); torch $(/usr/bin/python3 -c 'import torch; print(torch.__version__)')"
  echo "# $model, batch $batch, $steps timed steps after 3 warm-up, $threads threads, $rounds alternating rounds"
  for ((r = 1; r <= rounds; r++)); do
    if [[ ${PROBE:-1} == 1 ]]; then
      echo "\$ [round $r] scripts/measure/machine-probe.sh $out/probe-$r.json"
      "$root/scripts/measure/machine-probe.sh" "$out/probe-$r.json"
    fi
    echo "\$ [round $r] $mg --device cpu --gpus 1 --model $model --batch-size $batch --steps $steps --warmup 3 --threads $threads"
    "$mg" --device cpu --gpus 1 --model "$model" --batch-size "$batch" --steps "$steps" --warmup 3 \
      --threads "$threads" --no-progress --json "$out/mgbench-$r.json"
    for layout in $layouts; do
      flag=()
      [[ $layout == channels-last ]] && flag=(--channels-last)
      echo "\$ [round $r] OMP_NUM_THREADS=$threads /usr/bin/python3 $ref --device cpu --model $model --batch $batch --steps $steps --warmup 3 --threads $threads ${flag[*]}"
      OMP_NUM_THREADS=$threads /usr/bin/python3 "$ref" --device cpu --model "$model" --batch "$batch" --steps "$steps" --warmup 3 \
        --threads "$threads" "${flag[@]}" | tee "$out/torch-$layout-$r.json"
    done
    if [[ ${DDP:-0} == 1 ]]; then
      echo "\$ [round $r] mgbench 2 CPU replicas vs PyTorch DDP gloo, 2 processes, same per-replica batch"
      "$mg" --device cpu --gpus 2 --no-baseline --model "$model" --batch-size "$batch" --steps "$steps" --warmup 3 \
        --threads "$threads" --no-progress --json "$out/mgbench-2-$r.json"
      /usr/bin/python3 "$root/scripts/measure/torch_ddp_cpu.py" --model "$model" --batch "$batch" --steps "$steps" \
        --threads "$threads" | tee "$out/torch-ddp-$r.json"
    fi
  done
  if [[ ${PROBE:-1} == 1 ]]; then
    echo "\$ scripts/measure/onednn-breakdown.py $out/flops --mgbench $mg -- --device cpu --gpus 1 --model $model --batch-size $batch --steps 2 --warmup 1 --threads $threads"
    /usr/bin/python3 "$root/scripts/measure/onednn-breakdown.py" "$out/flops" --mgbench "$mg" -- --device cpu --gpus 1 \
      --model "$model" --batch-size "$batch" --steps 2 --warmup 1 --threads "$threads"
  fi
} 2>&1 | tee "$log"
python3 - "$out" "$rounds" "${PROBE:-1}" "$threads" "$layouts" <<'PY' | tee -a "$log"
import json, os, statistics, sys
out, rounds, probed, threads = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1", int(sys.argv[4])
layouts = sys.argv[5].split()
def last_json(path):
    return json.loads(open(path).read().strip().splitlines()[-1])
torch_sides = [(n, l) for n, l in (("pytorch NCHW", "nchw"), ("pytorch channels-last", "channels-last")) if l in layouts]
sides = {"mgbench": [], **{n: [] for n, _ in torch_sides}}
peak_rss = {n: [] for n in sides}
for r in range(1, rounds + 1):
    m = json.load(open(os.path.join(out, f"mgbench-{r}.json")))
    run = m["runs"][0]
    sides["mgbench"].append((run["global_batch"] / run["step_time"]["median_s"], run["images_per_sec"]))
    peak_rss["mgbench"].append(run["device_memory_in_use_bytes"])
    for name, layout in torch_sides:
        t = last_json(os.path.join(out, f"torch-{layout}-{r}.json"))
        sides[name].append((t["images_per_sec_at_median"], t["images_per_sec"]))
        peak_rss[name].append(t["peak_rss_bytes"])
cpu = json.load(open(os.path.join(out, "mgbench-1.json")))["environment"]["cpu"]
lines = [f"CPU: {cpu}; {rounds} alternating rounds; img/s = batch / median step time (median over rounds), "
         "[images over wall time], per round"]
ref = statistics.median(x[0] for x in sides["mgbench"])
for name, v in sides.items():
    med = statistics.median(x[0] for x in v)
    per = ", ".join(f"{a:.2f} [{b:.2f}]" for a, b in v)
    lines.append(f"{name}: {med:.2f} img/s (mgbench / this = {ref / med:.3f}); rounds: {per}")
lines.append("peak memory, process against process (GiB over rounds): " + "; ".join(
    f"{n} {min(v) / 2**30:.2f}-{max(v) / 2**30:.2f}" for n, v in peak_rss.items()))
if os.path.exists(os.path.join(out, "mgbench-2-1.json")):
    m2 = statistics.median(json.load(open(os.path.join(out, f"mgbench-2-{r}.json")))["runs"][-1]["images_per_sec"]
                           for r in range(1, rounds + 1))
    t2 = statistics.median(last_json(os.path.join(out, f"torch-ddp-{r}.json"))["images_per_sec"]
                           for r in range(1, rounds + 1))
    lines.append(f"2 replicas, images over the wall time of the timed window on both sides: mgbench {m2:.2f} img/s, "
                 f"PyTorch DDP (gloo) {t2:.2f} img/s, ratio {m2 / t2:.3f}")
if probed:
    # Training FLOPs per image: forward, and backward's two passes of the same size (data and weights).
    fwd = next(m["gflops_per_image"] for m in json.load(open(os.path.join(out, "models.json")))["models"]
               if m["name"] == json.load(open(os.path.join(out, "mgbench-1.json")))["config"]["model"])
    # Executed: less what Winograd's F(4x4, 3x3) did not compute, from the untimed verbose run (onednn_flops.py).
    bd = json.load(open(os.path.join(out, "flops", "breakdown.json")))
    executed = 3 * fwd - (bd["step_gflop_direct"] - bd["step_gflop_executed"]) / bd["batch_size"]
    wino_runs = sorted({json.load(open(os.path.join(out, f"mgbench-{r}.json")))["runs"][0].get("conv_algorithms", {})
                        .get("winograd", 0) for r in range(1, rounds + 1)})
    pct = []
    for r in range(1, rounds + 1):
        probe = json.load(open(os.path.join(out, f"probe-{r}.json")))
        # With fewer threads than cores, the peak of the cores mgbench used.
        peak = probe["fma_gflops_all_cores"] * min(threads, probe["cores"]) / probe["cores"]
        ips = sides["mgbench"][r - 1][0]
        pct.append((100 * ips * 3 * fwd / peak, 100 * ips * executed / peak, peak))
    lines.append(f"mgbench % of the FMA peak, each round against the probe run just before it: direct-equivalent "
                 f"({3 * fwd:.2f} GFLOP per training image) median {statistics.median(p[0] for p in pct):.1f} %, "
                 f"executed ({executed:.2f} GFLOP: {bd['winograd_layers']:g} Winograd F(4x4, 3x3) layers) median "
                 f"{statistics.median(p[1] for p in pct):.1f} %; rounds: "
                 + ", ".join(f"{d:.1f} / {e:.1f} % [{peak:.0f}]" for d, e, peak in pct))
    if wino_runs != [bd["winograd_layers"]]:
        lines.append(f"note: the timed runs chose {wino_runs} Winograd layers, the verbose run {bd['winograd_layers']:g}: "
                     "the executed figure is for the verbose run's choice")
text = "\n".join(lines)
print(text)
open(os.path.join(out, "summary.txt"), "w").write(text + "\n")
PY
