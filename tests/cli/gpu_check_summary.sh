#!/usr/bin/env bash
# The bundle's GPU-check summary (scripts/bundle/gpu_check_summary.py) renders the committed GPU runs' files into
# the figures results/gpu/README.md quotes: each precision's rates and ratio, the cuDNN each side loaded, the A100
# prediction beside the published figure, GPT-2 both ways, ViT-B/16 beside torchvision, each sanitizer run; and it
# renders a folder where most steps are missing.
source "$(dirname "$0")/lib.bash"
py=$(command -v /usr/bin/python3 || command -v python3)
summary=$MG_SOURCE_DIR/scripts/bundle/gpu_check_summary.py
published=$MG_SOURCE_DIR/scripts/bundle/published_resnet50.json
tar -C "$TMP" -xJf "$MG_SOURCE_DIR/results/gpu/2026-11-28-h100-first-run/raw.tar.xz" || fail "cannot unpack the first run"
rm -f "$TMP/gc/summary.json" "$TMP/gc/summary.md"
"$py" "$summary" "$TMP/gc" "$published" >"$TMP/summary.txt" || { cat "$TMP/summary.txt"; fail "the summary failed"; }
for want in '| fp32 | 444 | 955 | 0.465 (>= 1.0) | 25.27 | 24.24 | - |' \
            '| bf16 | 4224 | 3969 | 1.064 (>= 1.1) | 12.68 | 12.42 | 0.0 % |' \
            'cuDNN: mgbench 9.14.0 (/usr/lib/x86_64-linux-gnu/libcudnn.so.9.14.0), PyTorch None' \
            'bf16, 8x A100 over NVLink 3: predicted 19725 img/s (+18.7 %), naive 19760 (+18.9 %), published 16621' \
            '- racecheck: timed out after 90 s (90 s)'; do
  grep -qxF -- "$want" "$TMP/summary.txt" || { cat "$TMP/summary.txt"; fail "the summary lacks: $want"; }
done
json_check "$TMP/gc/summary.json" "abs(d['precisions']['tf32']['ratio_vs_torch_cl'] - 2408.7384/2518.9142) < 1e-4 \
  and d['check']['rows'] == 127 and len(d['check']['failed']) == 28 and d['memcheck'].endswith('0 errors')" ||
  fail "summary.json's values differ from the run's files: $(cat "$TMP/gc/summary.json")"

# The H200 run: GPT-2 both ways, both sides on PyTorch's cuDNN, the conv-algos line; with a PyTorch fused-attention
# result beside it (made here from the plain one at twice its rate), the second GPT-2 ratio.
tar -C "$TMP" -xJf "$MG_SOURCE_DIR/results/gpu/2026-11-28-h200-second-run/raw.tar.xz" || fail "cannot unpack the H200 run"
"$py" -c 'import json, sys
d = json.load(open(sys.argv[1])); d["tokens_per_sec"] *= 2; d["attention"] = "sdpa"
json.dump(d, open(sys.argv[2], "w"))' "$TMP/gc2/torch-gpt2-bf16.json" "$TMP/gc2/torch-gpt2-bf16-sdpa.json"
"$py" "$summary" "$TMP/gc2" "$published" >"$TMP/h200.txt" || { cat "$TMP/h200.txt"; fail "the H200 summary failed"; }
for want in 'GPT-2 bf16, sequence 1024: mgbench 163539 tokens/s, PyTorch 106774 tokens/s, ratio 1.532; peak GiB mgbench 11.92, PyTorch reserved 16.88' \
            'GPT-2 bf16 against PyTorch with fused attention (sdpa): PyTorch 213547 tokens/s, ratio 0.766; PyTorch reserved 16.88' \
            'cuDNN: mgbench 9.19.0 (/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cudnn/lib/libcudnn.so.9), PyTorch 91900' \
            '| fp32 | 462 | 1058 | 0.437 (>= 1.0) | 25.27 | 24.24 | - |'; do
  grep -qxF -- "$want" "$TMP/h200.txt" || { cat "$TMP/h200.txt"; fail "the H200 summary lacks: $want"; }
done

# The third run (H200): ViT-B/16 beside torchvision, the tied GPT-2 both ways, and one line per sanitizer run.
tar -C "$TMP" -xJf "$MG_SOURCE_DIR/results/gpu/2026-11-28-h200-third-run/raw.tar.xz" || fail "cannot unpack the third run"
"$py" "$summary" "$TMP/gc3" "$published" >"$TMP/h200b.txt" || { cat "$TMP/h200b.txt"; fail "the third run's summary failed"; }
for want in 'ViT-B/16 bf16, 224x224: mgbench 916 img/s, torchvision vit_b_16 1965 img/s, ratio 0.466; peak GiB mgbench 6.44, PyTorch reserved 5.50' \
            'GPT-2 bf16 against PyTorch with fused attention (sdpa): PyTorch 200384 tokens/s, ratio 0.825; PyTorch reserved 9.52' \
            'memcheck-gpt2-tiny: ========= ERROR SUMMARY: 0 errors' \
            'racecheck-vit-tiny: ========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)' \
            'racecheck-resnet18: no summary line (see the step'"'"'s file)' \
            '| fp32 | 785 | 1060 | 0.741 (>= 1.0) | 25.46 | 24.24 | - |'; do
  grep -qxF -- "$want" "$TMP/h200b.txt" || { cat "$TMP/h200b.txt"; fail "the third run's summary lacks: $want"; }
done

# Each model's time by layer kind when its run has --layer-times (added here to the third run's GPT-2 file).
"$py" -c 'import json, sys
d = json.load(open(sys.argv[1]))
d["runs"][0]["layer_times"] = [{"layer": 1, "name": "wte", "kind": "embedding", "forward_s": 0.001, "backward_s": 0.002},
    {"layer": 2, "name": "h.0.attn", "kind": "attention", "forward_s": 0.004, "backward_s": 0.008},
    {"layer": 3, "name": "h.0.fc", "kind": "linear", "forward_s": 0.002, "backward_s": 0.003},
    {"layer": -1, "name": "loss", "kind": "loss", "forward_s": 0.0, "backward_s": 0.0}]
json.dump(d, open(sys.argv[1], "w"))' "$TMP/gc3/gpt2-bf16.json"
"$py" "$summary" "$TMP/gc3" "$published" >"$TMP/kinds.txt" || { cat "$TMP/kinds.txt"; fail "the layer-kind summary failed"; }
want='gpt2-bf16 by layer kind (last warm-up step): attention 60.0 %, linear 25.0 %, embedding 15.0 %, loss 0.0 %'
grep -qxF -- "$want" "$TMP/kinds.txt" || { cat "$TMP/kinds.txt"; fail "the summary lacks: $want"; }
grep -q 'by layer kind' "$TMP/h200b.txt" && fail "a layer-kind line for a run without --layer-times"

# A run that got no further than the check: the summary still renders, with what there is.
mkdir "$TMP/short" && cp "$TMP/gc/steps.tsv" "$TMP/gc/check.json" "$TMP/short/"
"$py" "$summary" "$TMP/short" "$published" >"$TMP/short.txt" || { cat "$TMP/short.txt"; fail "the summary of a short run failed"; }
grep -q '^| precision |' "$TMP/short.txt" || fail "the short run's summary has no table"
echo "the summary renders the first run's figures"
