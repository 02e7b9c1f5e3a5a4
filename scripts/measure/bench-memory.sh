#!/usr/bin/env bash
# Peak memory of one CPU training run: the whole process's peak resident set of mgbench and of PyTorch's
# reference loop (scripts/measure/torch_reference.py, NCHW and channels-last; the whole Python process) at the same
# model and batch, compared process against process; mgbench's own allocation high-water mark (peak_memory_bytes in its
# JSON) is printed beside its process figure. MGBENCH_BEFORE=path adds another mgbench binary (e.g. a build of main) to compare;
# TORCH=0 skips PyTorch (keeping earlier torch-*.json in OUT).
#   scripts/measure/bench-memory.sh [MODEL] [BATCH]   (OUT defaults to results/cpu/<date>-speed-memory-<model>-b<batch>)
# Needs Debian's python3-torch and python3-torchvision (/usr/bin/python3).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
model=${1:-resnet50}; batch=${2:-16}
out=${OUT:-$root/results/cpu/$(date -u +%Y-%m-%d)-speed-memory-$model-b$batch}
mg=${MGBENCH:-$root/build/mgbench}
mkdir -p "$out"
# Runs a command and appends its peak resident set (bytes) as "name rss" to rss.txt.
peak_rss() {
  local name=$1; shift
  /usr/bin/python3 - "$name" "$out/rss.txt" "$@" <<'PY'
import resource, subprocess, sys
name, dest, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
rc = subprocess.call(cmd)
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
open(dest, "a").write(f"{name} {rss}\n")
sys.exit(rc)
PY
}
[[ "${TORCH:-1}" == 0 && -f "$out/rss.txt" ]] || : >"$out/rss.txt"
{
  echo "# $(date -u +%FT%TZ) on $(hostname): $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-) ($(nproc) CPUs)"
  echo "# load average: $(cut -d' ' -f1-3 /proc/loadavg) (shared machine)"
  mgrun() {  # name binary
    echo "\$ $2 --device cpu --gpus 1 --model $model --batch-size $batch --steps 2 --warmup 1"
    "$2" --version | head -1
    peak_rss "$1" "$2" --device cpu --gpus 1 --model "$model" --batch-size "$batch" --steps 2 --warmup 1 \
      --no-progress --json "$out/$1.json"
  }
  mgrun mgbench "$mg"
  [[ -n "${MGBENCH_BEFORE:-}" ]] && mgrun mgbench-before "$MGBENCH_BEFORE"
  [[ "${TORCH:-1}" == 0 ]] || for layout in nchw channels-last; do
    flag=""; [[ $layout == channels-last ]] && flag=--channels-last
    echo "\$ /usr/bin/python3 scripts/measure/torch_reference.py --device cpu --model $model --batch $batch $flag"
    peak_rss "torch-$layout" /usr/bin/python3 "$root/scripts/measure/torch_reference.py" --device cpu --model "$model" \
      --batch "$batch" --steps 2 --warmup 1 --threads "$(nproc)" $flag | tee "$out/torch-$layout.json"
  done
} 2>&1 | tee -a "$out/log.txt"
python3 - "$out" <<'PY' | tee "$out/summary.txt"
import json, os, sys
out = sys.argv[1]
rss = dict(l.split() for l in open(os.path.join(out, "rss.txt")))
gib = lambda b: f"{int(b) / 2**30:.2f} GiB"
# Comparisons are process peak against process peak, both measured the same way (this script's wrapper);
# mgbench's allocation high-water mark is its own, smaller, figure and is never set against PyTorch's process.
for name in ("mgbench", "mgbench-before"):
    p = os.path.join(out, name + ".json")
    if os.path.exists(p):
        peak = json.load(open(p))["runs"][0]["peak_memory_bytes"]
        print(f"{name}: process peak RSS {gib(rss[name])} (its allocations' own peak {gib(peak)})")
for layout in ("nchw", "channels-last"):
    name = f"torch-{layout}"
    if name in rss:
        print(f"pytorch {layout}: process peak RSS {gib(rss[name])} (python included); "
              f"mgbench / pytorch process peaks = {int(rss['mgbench']) / int(rss[name]):.2f}x")
PY
