#!/usr/bin/env bash
# `mgbench models` end to end: the table and the JSON list every network with torchvision's (GPT-2: Hugging
# Face's) parameter counts.
source "$(dirname "$0")/lib.bash"
set -e
if ! command -v python3 >/dev/null; then echo "skipped: python3 is needed to read the JSON"; exit 77; fi

"$MGBENCH" models >"$TMP/table.txt" || fail "mgbench models exited $?"
grep -Eq '^resnet50 +resnet +25,557,032 +8\.178 +224 ' "$TMP/table.txt" || fail "resnet50 row wrong: $(grep resnet50 "$TMP/table.txt")"
grep -Eq '^inception3 .*aux_logits=False' "$TMP/table.txt" || fail "inception3 row lacks the aux_logits note"
# test networks are listed after their own heading, not among the benchmarks
awk '/^Test networks/{t=1} /^tiny /{ if (!t) exit 1; found=1 } END { exit !found }' "$TMP/table.txt" \
  || fail "tiny is not under the test-network heading"

"$MGBENCH" models --json >"$TMP/models.json" || fail "mgbench models --json exited $?"
python3 - "$TMP/models.json" <<'PY'
import json, sys
want = {"resnet18": 11689512, "resnet34": 21797672, "resnet50": 25557032, "resnet101": 44549160,
        "resnet152": 60192808, "vgg16": 138357544, "vgg19": 143667240, "alexnet": 61100840,
        "inception3": 23834568, "gpt2": 124439808, "gpt2-medium": 354823168}  # GPT-2: Hugging Face's, head tied
models = {m["name"]: m for m in json.load(open(sys.argv[1]))["models"]}
for name, params in want.items():
    assert models[name]["parameters"] == params, (name, models[name]["parameters"])
    assert not models[name]["test_network"], name
assert abs(models["resnet50"]["gflops_per_image"] - 8.178368512) < 1e-9
assert models["resnet50"]["aliases"] == ["resnet"]
assert models["inception3"]["default_image_size"] == 299 and models["inception3"]["min_image_size"] == 75
assert models["tiny"]["test_network"] and models["tiny_nobn"]["test_network"]
PY

if "$MGBENCH" models --no-such-option >"$TMP/out" 2>&1; then fail "an unknown option was accepted"; fi
echo "ok"
