#!/usr/bin/env bash
# A language model trains from the command line as a user would start it: a token file made from text with
# `prepare-data`, two replicas that stay identical, tokens/s as the headline, the loss falling; synthetic tokens
# from the host and the device; and every mismatch between model and input refused in one line, no result file.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.bash"
tok() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))$1)" "$TMP/r.json"; }

# Text with structure to learn: a few sentences repeated, about 12 KB.
python3 -c "
import sys
s = ['the quick brown fox jumps over the lazy dog. ', 'pack my box with five dozen liquor jugs. ',
     'how vexingly quick daft zebras jump! ']
open(sys.argv[1], 'w').write(''.join(s[i % 3] for i in range(300)))" "$TMP/text.txt"
expect_status 0 "$MGBENCH" prepare-data "$TMP/text.txt" "$TMP/text.bin"
grep -q "byte-level tokens" "$TMP/out" || fail "prepare-data did not report the tokens: $(cat "$TMP/out")"

expect_status 0 "$MGBENCH" --device cpu --model gpt2-tiny --seq-len 32 --batch-size 4 --devices 1,2 --steps 40 \
  --warmup 1 --optimizer adamw --data "$TMP/text.bin" --no-progress --json "$TMP/r.json"
grep -Eq "tokens/s +tok/s/dev" "$TMP/out" || fail "the table does not head with tokens/s: $(cat "$TMP/out")"
grep -q "batch 4 x 32 tokens per device" "$TMP/out" || fail "the table does not give the sequence: $(head -1 "$TMP/out")"
json_check "$TMP/r.json" 'd["config"]["seq_len"] == 32 and d["config"]["num_classes"] == 256 and d["config"]["image_size"] == 0' \
  || fail "config: $(tok '["config"]')"
for i in 0 1; do
  json_check "$TMP/r.json" "(lambda r: r['tokens_per_sample'] == 32 and r['tokens_per_sec'] > 0 and
      abs(r['tokens_per_sec'] - 32 * r['images_per_sec']) <= 1e-9 * r['tokens_per_sec'] and r['replicas_identical'])(d['runs'][$i])" \
    || fail "run $i: tokens_per_sample/tokens_per_sec/replicas: $(tok "['runs'][$i]")"
done
# MFU: a training step is 3 x the forward's 2T(12LC^2 + VC) + 4LT^2C = 7,864,320 FLOPs (L 2, C 64, V 256, T 32).
json_check "$TMP/r.json" 'all(abs(r["model_flops_per_sample"] - 3 * 7864320) < 1 and r["peak_flops_per_device"] > 0 and
    "measured fp32 FMA peak" in r["peak_flops_source"] and
    abs(r["mfu"] - r["images_per_sec_per_device"] * r["model_flops_per_sample"] / r["peak_flops_per_device"]) <= 1e-9 * r["mfu"]
    for r in d["runs"])' || fail "MFU: $(tok '["runs"][0]')"
grep -q "model FLOPs utilisation: .* of the measured fp32 FMA peak" "$TMP/out" || fail "the table gives no MFU: $(cat "$TMP/out")"
# ln 256 = 5.55 for a uniform guess; 40 AdamW steps on three repeated sentences must learn much of them.
json_check "$TMP/r.json" 'all(r["final_loss"] < 3.5 for r in d["runs"])' \
  || fail "the loss did not fall: $(tok '["runs"][0]["final_loss"]'), $(tok '["runs"][1]["final_loss"]')"

# predict forecasts the same headline from the 1-device entry.
expect_status 0 "$MGBENCH" predict --profile "$TMP/r.json" --link nvlink4 --devices 1,8 --json "$TMP/p.json"
grep -Eq "tokens/s +tok/s/dev" "$TMP/out" || fail "predict's table does not head with tokens/s: $(cat "$TMP/out")"
json_check "$TMP/p.json" 'all(r["tokens_per_sample"] == 32 and abs(r["tokens_per_sec"] - 32 * r["images_per_sec"]) <= 1e-9 * r["tokens_per_sec"] for r in d["runs"])' \
  || fail "predict lost the tokens: $(cat "$TMP/p.json" | head -c 600)"

# --runs, --trace, a bf16 gradient wire and accumulation together: two process runs pooled as docs/results.md
# says (run_samples, the CI between the runs' medians), the first run's trace of both replicas, each step two
# micro-batches, and half fp32's wire bytes (2 bytes a parameter).
expect_status 0 "$MGBENCH" models --json
cp "$TMP/out" "$TMP/models.json"
expect_status 0 "$MGBENCH" --device cpu --model gpt2-tiny --seq-len 16 --batch-size 2 --devices 2 --steps 3 --warmup 1 \
  --runs 2 --trace "$TMP/t.json" --allreduce-dtype bf16 --accum-steps 2 --no-progress --json "$TMP/r.json"
grep -q "2 runs in fresh processes" "$TMP/out" || fail "the table does not say the runs were pooled: $(head -1 "$TMP/out")"
python3 - "$TMP/r.json" "$TMP/t.json" "$TMP/models.json" <<'PY' || fail "--runs/--trace/bf16 wire/--accum-steps"
import json, sys
d, t = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
params = {m["name"]: m["parameters"] for m in json.load(open(sys.argv[3]))["models"]}["gpt2-tiny"]
c = d["config"]
assert c["runs"] == 2 and c["accum_steps"] == 2 and c["allreduce_dtype"] == "bf16", c
assert [r["devices"] for r in d["runs"]] == [1, 2], [r["devices"] for r in d["runs"]]
for r in d["runs"]:
    st = r["step_time"]
    assert r["run_samples"] == [3, 3] and len(r["samples"]["total_s"]) == 6, r["run_samples"]
    assert st["runs"] == 2 and st["samples"] == 6 and st["ci95_method"] == "between-runs", st
    assert st["ci95_lo_s"] <= st["median_s"] <= st["ci95_hi_s"], st
    assert r["global_batch"] == 2 * 2 * r["devices"] and r["tokens_per_sample"] == 16, (r["global_batch"], r["devices"])
    assert r["replicas_identical"]
a = d["runs"][-1]["allreduce"]
assert a["dtype"] == "bf16" and a["bytes_per_step"] == 2 * params and 2 * a["bytes_per_step"] == 4 * params, (a, params)
# A Chrome trace: complete events with times, one process per replica named in metadata events.
assert isinstance(t["traceEvents"], list) and t["otherData"]["devices"] == 2 and t["otherData"]["global_batch"] == 8, t["otherData"]
x = [e for e in t["traceEvents"] if e["ph"] == "X"]
assert all(e["ts"] >= 0 and e["dur"] >= 0 and isinstance(e["pid"], int) and isinstance(e["tid"], int) for e in x)
named = {e["pid"]: e["args"]["name"] for e in t["traceEvents"] if e["ph"] == "M" and e["name"] == "process_name"}
assert named == {0: "replica 0", 1: "replica 1"}, named
for pid in (0, 1):  # 3 timed steps, each two micro-batches, one optimizer step and the bucket's all-reduce
    mine = [e["name"] for e in x if e["pid"] == pid]
    assert mine.count("forward [0]") == 3 and mine.count("backward [1]") == 3 and mine.count("optimizer") == 3, mine
    assert mine.count("all-reduce bucket 0") == 3, mine
PY

for source in host device; do
  expect_status 0 "$MGBENCH" --device cpu --model gpt2-tiny --batch-size 2 --steps 2 --warmup 0 --devices 2 \
    --synthetic-source "$source" --no-progress --json "$TMP/r.json"
  json_check "$TMP/r.json" 'd["runs"][-1]["tokens_per_sample"] == 64 and d["runs"][-1]["tokens_per_sec"] > 0' \
    || fail "synthetic $source: $(tok '["runs"][-1]')"
done

# The progress line (on stderr with --progress) counts sequences, as the table does.
expect_status 0 "$MGBENCH" --device cpu --model gpt2-tiny --batch-size 2 --steps 2 --warmup 0 --devices 1 --no-check \
  --progress --json "$TMP/r.json"
grep -q "step 2/2 .* seq/s" "$TMP/err" || fail "the progress line does not count sequences: $(tr '\r' '\n' <"$TMP/err")"
grep -q "img/s" "$TMP/err" && fail "the progress line says img/s for a language model: $(tr '\r' '\n' <"$TMP/err")"

# Out-of-vocabulary tokens (a GPT-2 BPE file for the 256-token model) and mismatched inputs.
python3 -c "
import struct, sys
open(sys.argv[1], 'wb').write(struct.pack('<256i', 20240520, 1, 100, *[0] * 253) + struct.pack('<100H', *[300] * 100))" "$TMP/bpe.bin"
mkdir -p "$TMP/images/a"
run() { "$MGBENCH" --device cpu --steps 1 --warmup 0 --no-check --no-progress --json "$TMP/bad.json" "$@"; }
expect_usage_error "token 0 is 300, outside the model's vocabulary of 256" run --model gpt2-tiny --data "$TMP/bpe.bin"
expect_usage_error "--image-size applies to image models" run --model gpt2-tiny --image-size 32
expect_usage_error "--num-classes applies to image models" run --model gpt2-tiny --num-classes 10
expect_usage_error "--seq-len 65 must be between 1 and gpt2-tiny's context length, 64" run --model gpt2-tiny --seq-len 65
expect_usage_error "--seq-len applies to language models" run --model tiny --seq-len 8
expect_usage_error "holds tokens: it is for language models" run --model tiny --data "$TMP/text.bin"
expect_usage_error "a language model reads a token file" run --model gpt2-tiny --data "$TMP/images"
[[ ! -e "$TMP/bad.json" ]] || fail "a refused run wrote a result file"
expect_usage_error "is a folder: a token file" "$MGBENCH" prepare-data "$TMP/images" "$TMP/x.bin"
printf x >"$TMP/one.txt"
expect_usage_error "fewer than 2 bytes" "$MGBENCH" prepare-data "$TMP/one.txt" "$TMP/x.bin"
expect_usage_error "--threads applies to images, not to a token file" "$MGBENCH" prepare-data "$TMP/text.txt" "$TMP/x.bin" --threads 4
[[ ! -e "$TMP/x.bin" ]] || fail "a refused prepare-data wrote a token file"
echo ok
