#!/usr/bin/env bash
# `mgbench models` end to end: the table and the JSON list every network with torchvision's (GPT-2: Hugging
# Face's) parameter counts.
source "$(dirname "$0")/lib.bash"
set -e
if ! command -v python3 >/dev/null; then echo "skipped: python3 is needed to read the JSON"; exit 77; fi

"$MGBENCH" models >"$TMP/table.txt" || fail "mgbench models exited $?"
grep -Eq '^resnet50 +resnet +25,557,032 +8\.178 +224 ' "$TMP/table.txt" || fail "resnet50 row wrong: $(grep resnet50 "$TMP/table.txt")"
grep -Eq '^inception3 .*aux_logits=False' "$TMP/table.txt" || fail "inception3 row lacks the aux_logits note"
# The transformers: timm's/torchvision's ViT counts, GFLOPs per image (ViT) or per 1024-token sequence (GPT-2).
grep -Eq '^vit-b16 +vit_b_16 +86,567,656 +35\.13 +224 +224 ' "$TMP/table.txt" || fail "vit-b16 row wrong: $(grep '^vit-b16' "$TMP/table.txt")"
grep -Eq '^vit-s16 +vit_s_16 +22,050,664 +9\.198 +224 +224 ' "$TMP/table.txt" || fail "vit-s16 row wrong: $(grep '^vit-s16' "$TMP/table.txt")"
grep -Eq '^gpt2-medium +- +354,823,168 +827 +1024 +1 ' "$TMP/table.txt" || fail "gpt2-medium row wrong: $(grep '^gpt2-medium' "$TMP/table.txt")"
# test networks are listed after their own heading, not among the benchmarks
awk '/^Test networks/{t=1} /^tiny /{ if (!t) exit 1; found=1 } END { exit !found }' "$TMP/table.txt" \
  || fail "tiny is not under the test-network heading"

"$MGBENCH" models --json >"$TMP/models.json" || fail "mgbench models --json exited $?"
python3 - "$TMP/models.json" <<'PY'
import json, sys
want = {"resnet18": 11689512, "resnet34": 21797672, "resnet50": 25557032, "resnet101": 44549160,
        "resnet152": 60192808, "vgg16": 138357544, "vgg19": 143667240, "alexnet": 61100840,
        "inception3": 23834568, "gpt2": 124439808, "gpt2-medium": 354823168,  # GPT-2: Hugging Face's, head tied
        "vit-b16": 86567656, "vit-s16": 22050664}  # torchvision vit_b_16, timm vit_small_patch16_224
models = {m["name"]: m for m in json.load(open(sys.argv[1]))["models"]}
for name, params in want.items():
    assert models[name]["parameters"] == params, (name, models[name]["parameters"])
    assert not models[name]["test_network"], name
assert abs(models["resnet50"]["gflops_per_image"] - 8.178368512) < 1e-9
# Forward FLOPs by the closed forms tests/models/test_gpt2.cpp and test_vit.cpp check: GPT-2 per sequence of
# T = 1024 tokens, 2T(12LC^2 + VC) + 4LT^2C; ViT at 224 (P = 196 patches of p = 16, T = 197 tokens, K = 1000),
# 2(3p^2CP + L(12TC^2 + 2T^2C) + CK).
def gpt2(L, C, V=50257, T=1024): return (2 * T * (12 * L * C * C + V * C) + 4 * L * T * T * C) / 1e9
def vit(L, C, p=16, P=196, T=197, K=1000): return 2 * (3 * p * p * C * P + L * (12 * T * C * C + 2 * T * T * C) + C * K) / 1e9
for name, want in {"gpt2": gpt2(12, 768), "gpt2-medium": gpt2(24, 1024), "vit-b16": vit(12, 768),
                   "vit-s16": vit(12, 384)}.items():
    assert abs(models[name]["gflops_per_image"] - want) < 1e-9 * want, (name, models[name]["gflops_per_image"], want)
assert abs(models["gpt2-medium"]["gflops_per_image"] - 826.951073792) < 1e-9
assert models["vit-b16"]["aliases"] == ["vit_b_16"] and models["vit-s16"]["aliases"] == ["vit_s_16"]
assert models["vit-b16"]["default_image_size"] == 224 and models["gpt2-medium"]["default_image_size"] == 1024
assert models["resnet50"]["aliases"] == ["resnet"]
assert models["inception3"]["default_image_size"] == 299 and models["inception3"]["min_image_size"] == 75
assert models["tiny"]["test_network"] and models["tiny_nobn"]["test_network"]
PY

if "$MGBENCH" models --no-such-option >"$TMP/out" 2>&1; then fail "an unknown option was accepted"; fi
echo "ok"
