#!/usr/bin/env bash
# CPU speed check (issue 2/3): mgbench vs PyTorch's own training loop in the same run, same machine, model,
# batch and thread count. Writes both JSONs, a summary and the full log under OUT (default results/cpu/<date>).
#   scripts/bench-cpu-vs-torch.sh [MODEL] [BATCH] [STEPS]
# Needs Debian's python3-torch and python3-torchvision (apt-get install them; /usr/bin/python3 is used).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
model=${1:-resnet50}; batch=${2:-16}; steps=${3:-10}
threads=${THREADS:-$(nproc)}
out=${OUT:-$root/results/cpu/$(date +%Y-%m-%d)-$model-b$batch}
mg=${MGBENCH:-$root/build/mgbench}
anchor=${ANCHOR:-$root/../shared/anchors/torch_gpu_train.py}
mkdir -p "$out"
log="$out/log.txt"
{
  echo "# $(date -u +%FT%TZ) on $(hostname): $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-) ($(nproc) CPUs)"
  echo "# mgbench: $("$mg" --version | head -1)"
  echo "\$ $mg --device cpu --gpus 1 --model $model --batch-size $batch --steps $steps --warmup 3 --threads $threads"
  "$mg" --device cpu --gpus 1 --model "$model" --batch-size "$batch" --steps "$steps" --warmup 3 \
    --threads "$threads" --no-progress --json "$out/mgbench.json"
  echo "\$ OMP_NUM_THREADS=$threads /usr/bin/python3 $anchor --device cpu --model $model --batch $batch --steps $steps --warmup 3"
  OMP_NUM_THREADS=$threads /usr/bin/python3 "$anchor" --device cpu --model "$model" --batch "$batch" \
    --steps "$steps" --warmup 3 | tee "$out/torch.json"
  if [[ "${DDP:-0}" == 1 ]]; then
    echo "\$ mgbench 2 CPU replicas (threads) vs PyTorch DDP gloo, 2 processes, same per-replica batch"
    "$mg" --device cpu --gpus 2 --no-baseline --model "$model" --batch-size "$batch" --steps "$steps" --warmup 3 \
      --threads "$threads" --no-progress --json "$out/mgbench-2.json"
    /usr/bin/python3 "$root/scripts/torch_ddp_cpu.py" --model "$model" --batch "$batch" --steps "$steps" \
      --threads "$threads" | tee "$out/torch-ddp.json"
  fi
} 2>&1 | tee "$log"
python3 - "$out" <<'PY' | tee -a "$log"
import json, os, sys
out = sys.argv[1]
m = json.load(open(os.path.join(out, "mgbench.json")))["runs"][0]["images_per_sec"]
t = json.loads(open(os.path.join(out, "torch.json")).read().strip().splitlines()[-1])["images_per_sec"]
line = f"1 replica: mgbench {m:.2f} img/s, pytorch {t:.2f} img/s, ratio {m/t:.3f}"
if os.path.exists(os.path.join(out, "mgbench-2.json")):
    m2 = json.load(open(os.path.join(out, "mgbench-2.json")))["runs"][-1]["images_per_sec"]
    t2 = json.loads(open(os.path.join(out, "torch-ddp.json")).read().strip().splitlines()[-1])["images_per_sec"]
    line += f"\n2 replicas: mgbench {m2:.2f} img/s, pytorch DDP(gloo) {t2:.2f} img/s, ratio {m2/t2:.3f}"
print(line)
open(os.path.join(out, "summary.txt"), "w").write(line + "\n")
PY
