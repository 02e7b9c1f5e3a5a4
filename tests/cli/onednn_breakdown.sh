#!/usr/bin/env bash
# scripts/measure/onednn-breakdown.py end to end: the per-primitive breakdown of a CPU training step, its FLOP counts
# checked against `mgbench models` (a wrong parse of oneDNN's problem shapes would misstate % of peak).
set -uo pipefail
if [[ -z "${MGBENCH:-}" || ! -x "$MGBENCH" ]]; then echo "skipped: MGBENCH is not an executable ('${MGBENCH:-}')"; exit 77; fi
if ! command -v python3 >/dev/null; then echo "skipped: python3 is needed"; exit 77; fi
source "$(dirname "$0")/lib.bash"
script="$(dirname "$0")/../../scripts/measure/onednn-breakdown.py"
probe="$TMP/probe.json"
echo '{"fma_gflops_all_cores": 100.0}' >"$probe"

expect_status 0 python3 "$script" "$TMP/bd" --probe "$probe" --mgbench "$MGBENCH" -- \
  --model resnet18 --device cpu --gpus 1 --batch-size 2 --steps 2 --warmup 1 --no-check
grep -q "^convolution .*forward_training" "$TMP/out" || { cat "$TMP/out"; fail "no convolution row in the table"; }
"$MGBENCH" models --json >"$TMP/models.json" || fail "mgbench models --json"
python3 - "$TMP/bd/breakdown.json" "$TMP/models.json" <<'PY' || fail "breakdown.json is wrong"
import json, sys
b = json.load(open(sys.argv[1]))
gf = {m["name"]: m["gflops_per_image"] for m in json.load(open(sys.argv[2]))["models"]}["resnet18"]
rows = {(r["primitive"], r["prop"]): r for r in b["rows"]}
# Forward FLOPs per image from the parsed shapes (convolutions + classifier) must be the model's own count.
fwd = sum(r["gflops"] * r["ms_per_step"] * 1e-3 for k, r in rows.items()
          if k[1] == "forward_training" and k[0] in ("convolution", "inner_product")) / b["batch_size"]
assert abs(fwd / gf - 1) < 0.01, (fwd, gf)
conv = rows[("convolution", "forward_training")]
assert conv["per_step"] == 20, conv  # resnet18: 17 3x3/7x7 + 3 projection convolutions, once per step
assert 0 < b["onednn_ms_per_step"] and b["conv_ms_per_step"] <= b["onednn_ms_per_step"]
assert abs(b["step_pct_of_peak"] - b["step_gflops"]) < 1e-6  # the fake probe's peak is 100 GFLOP/s
PY

# With --accum-steps the classifier runs once per micro-batch: a step is two of them here, so the convolutions
# run twice per step (a window of micro-batches taken for steps would halve every per-step figure).
expect_status 0 python3 "$script" "$TMP/acc" --mgbench "$MGBENCH" -- \
  --model resnet18 --device cpu --gpus 1 --batch-size 2 --steps 2 --warmup 1 --accum-steps 2 --no-check
json_check "$TMP/acc/breakdown.json" "[r['per_step'] for r in d['rows'] if (r['primitive'], r['prop']) == ('convolution', 'forward_training')] == [40]" \
  || { cat "$TMP/acc/breakdown.json"; fail "--accum-steps: per-step counts"; }

# More than one device: refused (the replicas' primitives interleave in one log), exit 2, one line.
expect_usage_error "give one device" python3 "$script" "$TMP/bd2" --mgbench "$MGBENCH" -- \
  --model tiny --device cpu --gpus 2 --steps 2 --warmup 1 --no-check
expect_usage_error "after --" python3 "$script" "$TMP/bd3" --mgbench "$MGBENCH"
# A bad --probe or --mgbench is refused before the (possibly long) run: one line, exit 2, no log written.
echo '{"cores": 2}' >"$TMP/noprobe.json"
echo '[1, 2' >"$TMP/badprobe.json"
echo '{"fma_gflops_all_cores": -5}' >"$TMP/negprobe.json"
for p in "$TMP/missing.json" "$TMP/badprobe.json" "$TMP/noprobe.json" "$TMP/negprobe.json"; do
  expect_usage_error "--probe .*(not a machine-probe|no positive)" python3 "$script" "$TMP/bd4" --probe "$p" \
    --mgbench "$MGBENCH" -- --model tiny --device cpu --gpus 1 --steps 2 --warmup 1 --no-check
done
expect_usage_error "--mgbench .*not an executable" python3 "$script" "$TMP/bd4" --mgbench "$TMP/no-mgbench" -- \
  --model tiny --device cpu --gpus 1 --steps 2 --warmup 1 --no-check
[[ ! -e "$TMP/bd4/verbose.log" ]] || fail "a refused invocation ran mgbench"
echo "ok"
