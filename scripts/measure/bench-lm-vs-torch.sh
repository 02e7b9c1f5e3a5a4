#!/usr/bin/env bash
# CPU speed and memory check for language models: mgbench against GPT-2 written plainly in PyTorch
# (scripts/measure/torch_gpt2.py) on the same machine, model, sequence length, batch, optimizer and thread count,
# in ROUNDS alternating rounds (mgbench, then PyTorch, then again) so a slow period of a shared machine hits both sides.
# Each side's figure is the median over rounds of its per-run tokens/s at the median step time; tokens over the
# wall time of the timed window and the process's peak resident set are shown beside it, and mgbench's MFU.
# Raw JSON of every run, the log and a summary go under OUT (default results/transformers/<date>-MODEL-tSEQ-bBATCH).
#   scripts/measure/bench-lm-vs-torch.sh [MODEL] [SEQ] [BATCH] [STEPS]
#       env: ROUNDS=3 THREADS=$(nproc) OPT=adamw OUT MGBENCH
# Needs Debian's python3-torch (/usr/bin/python3, run with OMP_NUM_THREADS equal to --threads as the CNN
# comparison does). Its matrix products go to the system BLAS
# (BLAS_INFO=generic): with Debian's reference libblas3 alone GPT-2 runs about 13x slower, so install
# libopenblas0-pthread (which takes over the libblas.so.3 alternative) for a fair comparison; the log names the BLAS.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
model=${1:-gpt2}; seq=${2:-256}; batch=${3:-4}; steps=${4:-5}
threads=${THREADS:-$(nproc)}
rounds=${ROUNDS:-3}
opt=${OPT:-adamw}
out=${OUT:-$root/results/transformers/$(date +%Y-%m-%d)-$model-t$seq-b$batch}
mg=${MGBENCH:-$root/build/mgbench}
[[ -x $mg ]] || { echo "bench-lm-vs-torch: no mgbench binary at $mg (build first or set MGBENCH)" >&2; exit 2; }
/usr/bin/python3 -c "import torch" 2>/dev/null ||
  { echo "bench-lm-vs-torch: /usr/bin/python3 lacks torch (apt-get install python3-torch)" >&2; exit 2; }
mkdir -p "$out"
{
  echo "# $(date -u +%FT%TZ) on $(hostname): $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //') ($(nproc) CPUs; $(grep -o 'avx512f\|avx2' /proc/cpuinfo | sort -u | tr '\n' ' '))"
  echo "# mgbench: $("$mg" --version | head -1); torch $(/usr/bin/python3 -c 'import torch; print(torch.__version__)'); its BLAS: $(readlink -f /usr/lib/x86_64-linux-gnu/libblas.so.3)"
  echo "# $model, seq $seq, batch $batch, $opt, $steps timed steps after 2 warm-up, $threads threads, $rounds alternating rounds"
  for ((r = 1; r <= rounds; r++)); do
    echo "\$ [round $r] $mg --device cpu --gpus 1 --model $model --seq-len $seq --batch-size $batch --optimizer $opt --steps $steps --warmup 2 --threads $threads --no-check"
    "$mg" --device cpu --gpus 1 --model "$model" --seq-len "$seq" --batch-size "$batch" --optimizer "$opt" \
      --steps "$steps" --warmup 2 --threads "$threads" --no-check --no-progress --json "$out/mgbench-$r.json"
    echo "\$ [round $r] OMP_NUM_THREADS=$threads /usr/bin/python3 scripts/measure/torch_gpt2.py --model $model --seq-len $seq --batch $batch --optimizer $opt --steps $steps --warmup 2 --threads $threads"
    OMP_NUM_THREADS=$threads /usr/bin/python3 "$root/scripts/measure/torch_gpt2.py" --model "$model" --seq-len "$seq" --batch "$batch" --optimizer "$opt" \
      --steps "$steps" --warmup 2 --threads "$threads" | tee "$out/torch-$r.json" | cut -c1-300
  done
} 2>&1 | tee "$out/log.txt"
python3 - "$out" "$rounds" <<'PY' | tee "$out/summary.txt"
import json, os, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
mg, pt = [], []
for r in range(1, rounds + 1):
    run = json.load(open(os.path.join(out, f"mgbench-{r}.json")))["runs"][0]
    mg.append((run["global_batch"] * run["tokens_per_sample"] / run["step_time"]["median_s"], run["tokens_per_sec"],
               run["device_memory_in_use_bytes"], run["mfu"]))
    t = json.loads(open(os.path.join(out, f"torch-{r}.json")).read().strip().splitlines()[-1])
    pt.append((t["tokens_per_sec_at_median"], t["tokens_per_sec"], t["peak_rss_bytes"], None))
env = json.load(open(os.path.join(out, "mgbench-1.json")))["environment"]
print(f"CPU: {env['cpu']}; {rounds} alternating rounds; tokens/s = tokens per step / median step time, median over "
      "rounds (range); wall = tokens over the timed window's wall time; peak RSS of the process")
for name, v in (("mgbench", mg), ("pytorch eager", pt)):
    med = [x[0] for x in v]
    line = (f"  {name:14s} {statistics.median(med):8.1f} tokens/s ({min(med):.1f}-{max(med):.1f})  wall "
            f"{statistics.median(x[1] for x in v):8.1f}  peak RSS {max(x[2] for x in v) / 2**30:.2f} GiB")
    if v[0][3] is not None:
        line += f"  MFU {100 * statistics.median(x[3] for x in v):.1f} %"
    print(line)
ratios = [a[0] / b[0] for a, b in zip(mg, pt)]
print(f"  mgbench / pytorch per round: {', '.join(f'{x:.2f}' for x in ratios)} (median {statistics.median(ratios):.2f})")
PY
