#!/usr/bin/env bash
# Bad input: one-line error naming the option, exit status 2, no result file.
source "$(dirname "$0")/lib.bash"
out="$TMP/never.json"
base=(--device cpu --steps 1 --warmup 0 --json "$out")

expect_usage_error "unknown model 'resnet9000'.*resnet50" "$MGBENCH" "${base[@]}" --model resnet9000
expect_usage_error "batch-size" "$MGBENCH" "${base[@]}" --model tiny --batch-size -3
expect_usage_error "batch-size" "$MGBENCH" "${base[@]}" --model tiny --batch-size 10000000
# 0 is no default: it is refused, on the command line and in a preset alike.
expect_usage_error "batch-size 0 must be" "$MGBENCH" "${base[@]}" --model tiny --batch-size 0
echo '{"model": "tiny", "batch-size": 0}' > "$TMP/zero.json"
expect_usage_error "batch-size 0 must be" "$MGBENCH" "${base[@]}" --config "$TMP/zero.json"
expect_usage_error "^mgbench: error: --threads 0 must be" "$MGBENCH" "${base[@]}" --model tiny --threads 0
expect_usage_error "threads-per-replica 0 must be" "$MGBENCH" "${base[@]}" --model tiny --threads-per-replica 0
# Zero steps and a negative warm-up are refused, not read as "the default" (leave the option out for that).
expect_usage_error "steps -1 must be between 1 and" "$MGBENCH" --device cpu --json "$out" --model tiny --steps -1
expect_usage_error "steps 0 must be between 1 and" "$MGBENCH" --device cpu --json "$out" --model tiny --steps 0
expect_usage_error "warmup -1 must be between 0 and" "$MGBENCH" --device cpu --json "$out" --model tiny --warmup -1
expect_usage_error "image-size 0 must be between 1 and 4096" "$MGBENCH" "${base[@]}" --model tiny --image-size 0
expect_usage_error "seq-len 0 must be between 1 and gpt2-tiny" "$MGBENCH" "${base[@]}" --model gpt2-tiny --seq-len 0
# A 0 for the other kind of model names the kind, not a range.
expect_usage_error "seq-len applies to language models; tiny takes --image-size" "$MGBENCH" "${base[@]}" --model tiny --seq-len 0
expect_usage_error "image-size applies to image models; gpt2-tiny takes --seq-len" "$MGBENCH" "${base[@]}" --model gpt2-tiny --image-size 0
expect_usage_error "image-size 100" "$MGBENCH" "${base[@]}" --model vgg16 --image-size 100
expect_usage_error "image-size" "$MGBENCH" "${base[@]}" --model inception3 --image-size 40
expect_usage_error "precision fp16" "$MGBENCH" "${base[@]}" --model tiny --precision fp16
expect_usage_error "precision" "$MGBENCH" "${base[@]}" --model tiny --precision fp8
expect_usage_error "devices 64" "$MGBENCH" "${base[@]}" --model tiny --devices 64
expect_usage_error "listed twice" "$MGBENCH" "${base[@]}" --model tiny --devices 1,1
expect_usage_error "cannot be split" "$MGBENCH" "${base[@]}" --model tiny --devices 2 --batch-size 3 --scaling strong
expect_usage_error "device cuda" "$MGBENCH" --device cuda --model tiny --json "$out"
expect_usage_error "--json /nonexistent-dir/r.json: directory /nonexistent-dir does not exist" "$MGBENCH" --device cpu \
  --steps 1 --warmup 0 --model tiny --json /nonexistent-dir/r.json
echo '{"model": "tiny", "batch-size": ' > "$TMP/bad.json"
expect_usage_error "config" "$MGBENCH" --config "$TMP/bad.json"
echo '{"model": "tiny", "no-such-option": 3}' > "$TMP/extra.json"
expect_usage_error "no-such-option" "$MGBENCH" --config "$TMP/extra.json"
expect_usage_error "" "$MGBENCH" --no-such-flag
[[ ! -e "$out" ]] || fail "a result file was written by a failed run"
echo "ok"
