#!/usr/bin/env bash
# CPU speed and memory check for GPT-2: mgbench against llm.c's CPU trainer (train_gpt2.c) on the same machine,
# model, sequence length, batch, optimizer (AdamW) and thread count, in ROUNDS alternating rounds
# (mgbench, llm.c -O3, llm.c -Ofast, then again) so a slow period of a shared machine hits every side.
# llm.c is built twice: with -O3 -fopenmp -march=native (the flags the comparison was specified with) and with its
# own Makefile's -Ofast (fast-math lets GCC vectorise its dot products), both with -DOMP as its Makefile adds.
#   LLMC_DIR=<llm.c source tree> scripts/measure/bench-lm-vs-llmc.sh [SEQ] [BATCH] [STEPS]
#       env: ROUNDS=3 THREADS=$(nproc) OUT MGBENCH
# llm.c needs a checkpoint and a token file: this writes both (random weights, random tokens) in llm.c's layouts,
# since speed does not depend on the values; its main() is changed only in B, T, the step count and by dropping
# the validation and sampling passes, which lie outside its timed region (a python check refuses another
# train_gpt2.c). Per side: tokens per step over the median step time after warm-up (mgbench 2 steps; llm.c 1, as it
# has nothing to tune and its steps take minutes), median over rounds,
# and the process's peak resident set. Raw logs, mgbench JSON and a summary go under OUT
# (default results/transformers/<date>-gpt2-vs-llmc-tSEQ-bBATCH).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
seq=${1:-256}; batch=${2:-4}; steps=${3:-5}
threads=${THREADS:-$(nproc)}
rounds=${ROUNDS:-3}
llmc=${LLMC_DIR:-}
out=${OUT:-$root/results/transformers/$(date +%Y-%m-%d)-gpt2-vs-llmc-t$seq-b$batch}
mg=${MGBENCH:-$root/build/mgbench}
fail() { echo "bench-lm-vs-llmc: $*" >&2; exit 2; }
[[ -n $llmc ]] || fail "set LLMC_DIR to a checkout of github.com/karpathy/llm.c"
[[ -x $mg ]] || fail "no mgbench binary at $mg (build first or set MGBENCH)"
[[ -f $llmc/train_gpt2.c && -d $llmc/llmc ]] || fail "$llmc has no train_gpt2.c and llmc/ (LLMC_DIR: an llm.c source tree)"
/usr/bin/python3 -c "import numpy" 2>/dev/null || fail "/usr/bin/python3 lacks numpy (apt-get install python3-numpy)"
[[ $seq =~ ^[0-9]+$ && $seq -ge 1 && $seq -le 1024 ]] || fail "SEQ must be 1-1024 (GPT-2's context), got '$seq'"
[[ $batch =~ ^[0-9]+$ && $batch -ge 1 && $steps =~ ^[0-9]+$ && $steps -ge 1 ]] || fail "BATCH and STEPS must be counts"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# llm.c's main() with this shape; every replaced line must be found exactly once.
cp -r "$llmc/llmc" "$work/"
/usr/bin/python3 - "$llmc/train_gpt2.c" "$work/train_gpt2.c" "$batch" "$seq" "$steps" <<'PY'
import sys
src, dst, b, t, last = sys.argv[1:]
s = open(src).read()
for old, new in (("int B = 4;", f"int B = {b};"), ("int T = 64;", f"int T = {t};"),
                 ("step <= 40;", f"step <= {last};"), ("if (step % 10 == 0) {", "if (0) {"),
                 ("if (step > 0 && step % 20 == 0) {", "if (0) {")):
    if s.count(old) != 1:
        print(f"bench-lm-vs-llmc: {src} is not the train_gpt2.c this script knows ('{old}' found {s.count(old)} times)",
              file=sys.stderr)
        sys.exit(2)
    s = s.replace(old, new)
open(dst, "w").write(s)
PY
gcc -O3 -fopenmp -march=native -DOMP -o "$work/llmc-O3" "$work/train_gpt2.c" -lm
gcc -Ofast -Wno-unused-result -march=native -fopenmp -DOMP -o "$work/llmc-Ofast" "$work/train_gpt2.c" -lm

# GPT-2 124M in llm.c's checkpoint layout (header 20240326 v3; vocabulary padded to 50304) and a token file
# (header 20240520 v1, uint16 tokens).
mkdir -p "$work/run/dev/data/tinyshakespeare"
/usr/bin/python3 - "$work/run" <<'PY'
import sys
import numpy as np
run = sys.argv[1]
maxT, V, L, NH, C, Vp = 1024, 50257, 12, 12, 768, 50304
header = np.zeros(256, np.int32)
header[:8] = [20240326, 3, maxT, V, L, NH, C, Vp]
sizes = [Vp * C, maxT * C, L * C, L * C, L * 3 * C * C, L * 3 * C, L * C * C, L * C, L * C, L * C,
         L * 4 * C * C, L * 4 * C, L * C * 4 * C, L * C, C, C]
ones = {2, 8, 14}  # layer-norm gains start at one, as in GPT-2
rng = np.random.default_rng(1)
with open(f"{run}/gpt2_124M.bin", "wb") as f:
    header.tofile(f)
    for i, n in enumerate(sizes):
        (np.ones(n, np.float32) if i in ones else (0.02 * rng.standard_normal(n)).astype(np.float32)).tofile(f)
for name, n in (("train", 1 << 20), ("val", 1 << 16)):
    h = np.zeros(256, np.int32)
    h[:3] = [20240520, 1, n]
    with open(f"{run}/dev/data/tinyshakespeare/tiny_shakespeare_{name}.bin", "wb") as f:
        h.tofile(f)
        rng.integers(0, V, n, dtype=np.uint16).tofile(f)
print(f"checkpoint: {sum(sizes):,} parameters (vocabulary padded to {Vp})")
PY

mkdir -p "$out"

# One llm.c run: its log, then a JSON line with the step times after warm-up and the child's peak RSS.
run_llmc() {
  local bin=$1 log=$2
  (cd "$work/run" && OMP_NUM_THREADS=$threads /usr/bin/python3 - "$bin" "$log" <<'PY'
import json, re, resource, subprocess, sys
bin, log = sys.argv[1:]
p = subprocess.run([bin], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
open(log, "w").write(p.stdout)
if p.returncode != 0:
    sys.exit(f"bench-lm-vs-llmc: {bin} exited {p.returncode}; see {log}")
ms = [float(x) for x in re.findall(r"^step \d+: train loss \S+ \(took ([0-9.]+) ms\)$", p.stdout, re.M)]
print(json.dumps({"step_ms": ms[1:], "warmup_ms": ms[:1],
                  "peak_rss_bytes": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024}))
PY
  )
}

{
  echo "# $(date -u +%FT%TZ) on $(hostname): $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //') ($(nproc) CPUs; $(grep -o 'avx512f\|avx2' /proc/cpuinfo | sort -u | tr '\n' ' '))"
  echo "# mgbench: $("$mg" --version | head -1); llm.c: $(git -C "$llmc" rev-parse HEAD 2>/dev/null || echo "tree without git") train_gpt2.c sha256 $(sha256sum "$llmc/train_gpt2.c" | cut -c1-16); $(gcc --version | head -1)"
  echo "# gpt2, seq $seq, batch $batch, adamw, $steps timed steps after warm-up (mgbench 2, llm.c 1), $threads threads, $rounds alternating rounds"
  for ((r = 1; r <= rounds; r++)); do
    echo "\$ [round $r] $mg --device cpu --gpus 1 --model gpt2 --seq-len $seq --batch-size $batch --optimizer adamw --steps $steps --warmup 2 --threads $threads --no-check"
    /usr/bin/time -f "peak_rss_kib %M" -o "$out/mgbench-$r.rss" "$mg" --device cpu --gpus 1 --model gpt2 --seq-len "$seq" \
      --batch-size "$batch" --optimizer adamw --steps "$steps" --warmup 2 --threads "$threads" --no-check --no-progress \
      --json "$out/mgbench-$r.json"
    for v in O3 Ofast; do
      echo "\$ [round $r] OMP_NUM_THREADS=$threads llmc-$v (train_gpt2.c, B=$batch T=$seq)"
      run_llmc "$work/llmc-$v" "$out/llmc-$v-$r.log" | tee "$out/llmc-$v-$r.json"
    done
  done
} 2>&1 | tee "$out/log.txt"

python3 - "$out" "$rounds" "$seq" "$batch" <<'PY' | tee "$out/summary.txt"
import json, os, statistics, sys
out, rounds, seq, batch = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
sides = {"mgbench": [], "llm.c -O3": [], "llm.c -Ofast": []}
for r in range(1, rounds + 1):
    run = json.load(open(os.path.join(out, f"mgbench-{r}.json")))["runs"][0]
    rss = int(open(os.path.join(out, f"mgbench-{r}.rss")).read().split()[-1]) * 1024
    sides["mgbench"].append((run["global_batch"] * run["tokens_per_sample"] / run["step_time"]["median_s"], rss, run["mfu"]))
    for v in ("O3", "Ofast"):
        j = json.load(open(os.path.join(out, f"llmc-{v}-{r}.json")))
        sides[f"llm.c -{v}"].append((batch * seq / (statistics.median(j["step_ms"]) / 1e3), j["peak_rss_bytes"], None))
env = json.load(open(os.path.join(out, "mgbench-1.json")))["environment"]
print(f"CPU: {env['cpu']}; {rounds} alternating rounds; tokens/s = tokens per step / median step time, median over "
      "rounds (range); peak RSS of the process")
for name, v in sides.items():
    t = [x[0] for x in v]
    line = (f"  {name:13s} {statistics.median(t):8.1f} tokens/s ({min(t):.1f}-{max(t):.1f})  peak RSS "
            f"{max(x[1] for x in v) / 2**30:.2f} GiB")
    if v[0][2] is not None:
        line += f"  MFU {100 * statistics.median(x[2] for x in v):.1f} %"
    print(line)
for name in ("llm.c -O3", "llm.c -Ofast"):
    ratios = [a[0] / b[0] for a, b in zip(sides["mgbench"], sides[name])]
    print(f"  mgbench / {name} per round: {', '.join(f'{x:.2f}' for x in ratios)} (median {statistics.median(ratios):.2f})")
PY
