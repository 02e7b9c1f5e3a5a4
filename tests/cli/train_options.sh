#!/usr/bin/env bash
# The gradient and mode options as a user passes them, checked in the recorded result: forward-only,
# accumulation with compressed all-reduce, no overlap, independent replicas, strong scaling, bf16 on CPU.
source "$(dirname "$0")/lib.bash"
run=(--device cpu --model tiny --num-classes 10 --warmup 1 --steps 4 --no-progress)

expect_status 0 "$MGBENCH" "${run[@]}" --gpus 1,2 --batch-size 8 --forward-only --json "$TMP/fwd.json"
json_check "$TMP/fwd.json" "d['config']['forward_only'] and all(r['breakdown']['backward_s'] < 1e-4 and r['breakdown']['comm_exposed_s'] < 1e-4 and r['breakdown']['forward_s'] > 0 for r in d['runs'])" \
  || fail "forward-only: no backward time expected"
# Forward-only micro-batches through the host stager: each slot is released before the next batch is taken.
expect_status 0 "$MGBENCH" "${run[@]}" --gpus 1 --batch-size 8 --forward-only --accum-steps 3 --synthetic-source host \
  --json "$TMP/fwd3.json"
# No gradients, no profile: the wire casts are timed by 1-device training runs only.
json_check "$TMP/fwd.json" "[r['wire_casts'] for r in d['runs']] == [[], []]" || fail "forward-only: wire_casts timed"

expect_status 0 "$MGBENCH" "${run[@]}" --gpus 2 --no-baseline --batch-size 8 --accum-steps 3 --allreduce-dtype bf16 \
  --bucket-mb 0.001 --json "$TMP/acc.json"
python3 - "$TMP/acc.json" <<'PY' || fail "accumulation / bf16 all-reduce / buckets"
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]
assert r["global_batch"] == 8 * 2 * 3, r["global_batch"]            # micro-batches count in the throughput
assert r["allreduce"]["dtype"] == "bf16" and r["allreduce"]["buckets"] > 1, r["allreduce"]
assert r["allreduce"]["bytes_per_step"] == sum(b["bytes"] for b in r["allreduce"]["per_bucket"])
assert r["replicas_identical"]
PY

expect_status 0 "$MGBENCH" "${run[@]}" --gpus 2 --no-baseline --batch-size 8 --no-overlap --json "$TMP/noov.json"
json_check "$TMP/noov.json" "d['config']['overlap'] == False and d['runs'][0]['replicas_identical']" \
  || fail "--no-overlap"

expect_status 0 "$MGBENCH" "${run[@]}" --gpus 2 --no-baseline --batch-size 8 --allreduce none --json "$TMP/none.json"
json_check "$TMP/none.json" "d['runs'][0]['allreduce']['library'] == 'none' and not d['runs'][0]['replicas_identical']" \
  || fail "--allreduce none: replicas must not exchange gradients"

expect_status 0 "$MGBENCH" "${run[@]}" --gpus 1,2 --batch-size 8 --scaling strong --json "$TMP/strong.json"
[[ $(json_get "$TMP/strong.json" "[r['batch_per_device'] for r in d['runs']]") == "[8, 4]" ]] || fail "strong scaling"

# The CPU convolution algorithm: timed per shape by default, or pinned; what ran is recorded and shown. tiny has
# two 3x3 stride-1 convolutions (3 and 8 input channels).
small=(--device cpu --model tiny --num-classes 10 --batch-size 4 --warmup 1 --steps 1 --gpus 1 --no-progress --no-check)
expect_status 0 "$MGBENCH" "${small[@]}" --cpu-conv-algo direct --json "$TMP/direct.json"
json_check "$TMP/direct.json" "d['config']['cpu_conv_algo'] == 'direct' and d['runs'][0]['conv_algorithms'] == {'direct': 2}" \
  || fail "--cpu-conv-algo direct: not every convolution direct"
grep -q "^convolution layers: 2 direct (--cpu-conv-algo direct)$" "$TMP/out" || { cat "$TMP/out"; fail "table lacks the convolution algorithms"; }
expect_status 0 "$MGBENCH" "${small[@]}" --json "$TMP/fastest.json"
json_check "$TMP/fastest.json" "d['config']['cpu_conv_algo'] == 'fastest' and sum(d['runs'][0]['conv_algorithms'].values()) == 2" \
  || fail "default: the convolutions' algorithms not recorded"
grep -q "^convolution layers: .* (the faster per shape, timed at set-up)$" "$TMP/out" || { cat "$TMP/out"; fail "table lacks the timed choice"; }
if grep -q avx512f /proc/cpuinfo; then  # oneDNN 2.6 has Winograd on AVX-512
  expect_status 0 "$MGBENCH" "${small[@]}" --cpu-conv-algo winograd --json "$TMP/wino.json"
  json_check "$TMP/wino.json" "d['runs'][0]['conv_algorithms'] == {'winograd': 2}" || fail "--cpu-conv-algo winograd"
fi
ONEDNN_MAX_CPU_ISA=AVX2 expect_usage_error "--cpu-conv-algo winograd: oneDNN has no Winograd convolution on this CPU" \
  "$MGBENCH" "${small[@]}" --cpu-conv-algo winograd
expect_usage_error "--cpu-conv-algo fft is not one of" "$MGBENCH" "${small[@]}" --cpu-conv-algo fft

# AdamW: PyTorch's defaults unless given, recorded; two replicas stay in step; its options refused where they do not
# apply or out of range.
expect_status 0 "$MGBENCH" "${run[@]}" --gpus 2 --no-baseline --batch-size 8 --optimizer adamw --adam-beta2 0.95 \
  --json "$TMP/adamw.json"
json_check "$TMP/adamw.json" "(c := d['config'])['optimizer'] == 'adamw' and all(abs(c[k] - v) <= 1e-6 * v for k, v in [('lr', 1e-3), ('weight_decay', 0.01), ('adam_beta1', 0.9), ('adam_beta2', 0.95), ('adam_eps', 1e-8)])" \
  || fail "--optimizer adamw: defaults not recorded: $(json_get "$TMP/adamw.json" "d['config']")"
json_check "$TMP/adamw.json" "d['runs'][0]['replicas_identical']" || fail "--optimizer adamw: replicas drifted apart"
grep -q "^tiny fp32 on cpu (AdamW), " "$TMP/out" || { cat "$TMP/out"; fail "the table's title does not say AdamW"; }
json_check "$TMP/fwd.json" "d['config']['optimizer'] == 'sgd' and abs(d['config']['lr'] - 0.01) < 1e-8 and abs(d['config']['weight_decay'] - 1e-4) < 1e-10" \
  || fail "SGD's defaults not recorded"
expect_usage_error "--momentum applies to --optimizer sgd" "$MGBENCH" "${run[@]}" --optimizer adamw --momentum 0.5
expect_usage_error "--optimizer adam is not one of" "$MGBENCH" "${run[@]}" --optimizer adam
expect_usage_error "--adam-beta2 must be in \[0, 1\)" "$MGBENCH" "${run[@]}" --optimizer adamw --adam-beta2 1
expect_usage_error "--adam-eps must be positive" "$MGBENCH" "${run[@]}" --optimizer adamw --adam-eps 0
expect_usage_error "--adam-beta1, --adam-beta2 and --adam-eps apply to --optimizer adamw" "$MGBENCH" "${run[@]}" \
  --adam-beta1 0.8

# --layer-times: the last warm-up step's per-layer times in the JSON (every layer, then the loss) and a table by
# kind on stdout, for the largest entry of a sweep; refused without a warm-up step or with no layers to time.
expect_status 0 "$MGBENCH" --device cpu --model gpt2-tiny --seq-len 16 --batch-size 2 --steps 1 --warmup 2 --gpus 1,2 \
  --no-progress --no-check --layer-times --json "$TMP/lt.json"
cp "$TMP/out" "$TMP/lt.txt"
json_check "$TMP/lt.json" "d['config']['layer_times'] and all(r['layer_times'][-1]['kind'] == 'loss' and \
  [t['layer'] for t in r['layer_times'][:-1]] == list(range(len(r['layer_times']) - 1)) and \
  any(t['kind'] == 'attention' and t['forward_s'] > 0 and t['backward_s'] > 0 for t in r['layer_times']) \
  for r in d['runs'])" || fail "--layer-times: every layer and the loss expected in each entry"
grep -q '^time by layer kind, last warm-up step (replica 0, 2 devices): ' "$TMP/lt.txt" &&
  grep -qE '^  attention +2 ' "$TMP/lt.txt" && grep -q '^  slowest layers: ' "$TMP/lt.txt" ||
  { cat "$TMP/lt.txt"; fail "--layer-times: no table by layer kind for the 2-device entry"; }
expect_status 0 "$MGBENCH" "${small[@]}" --json "$TMP/nolt.json"
cp "$TMP/out" "$TMP/nolt.txt"
json_check "$TMP/nolt.json" "[r['layer_times'] for r in d['runs']] == [[]]" || fail "layer_times without --layer-times"
! grep -q 'time by layer kind' "$TMP/nolt.txt" || fail "a layer-kind table without --layer-times"
expect_usage_error "--layer-times times the last warm-up step: give --warmup 1 or more" \
  "$MGBENCH" --device cpu --model tiny --batch-size 4 --steps 1 --gpus 1 --no-progress --warmup 0 --layer-times
expect_usage_error "--layer-times times the model's layers; --input-only runs none" \
  "$MGBENCH" "${small[@]}" --input-only --layer-times

if grep -q avx512_bf16 /proc/cpuinfo; then
  expect_status 0 "$MGBENCH" "${run[@]}" --gpus 1 --batch-size 8 --precision bf16 --json "$TMP/bf16.json"
  [[ $(json_get "$TMP/bf16.json" "d['config']['precision']") == bf16 ]] || fail "bf16 not recorded"
  expect_usage_error "--cpu-conv-algo winograd: oneDNN's Winograd convolution is fp32 only" \
    "$MGBENCH" "${small[@]}" --cpu-conv-algo winograd --precision bf16
else
  echo "no AVX-512 BF16 on this CPU: bf16 part skipped"
  expect_usage_error "precision bf16" "$MGBENCH" "${run[@]}" --precision bf16
fi
echo "ok"
