#!/usr/bin/env bash
# mgbench predict as a user runs it: a 1-device profile of tiny, predictions over presets, a custom link and a
# two-level topology, written as a result file of kind "prediction" that compare reads; a measured 2-device
# sweep beside it; bad input (exit 2, one line, no file).
source "$(dirname "$0")/lib.bash"
train=(--device cpu --model tiny --num-classes 10 --batch-size 8 --steps 6 --warmup 2 --no-progress)
"$MGBENCH" "${train[@]}" --devices 1,2 --json "$TMP/sweep.json" >/dev/null || fail "training sweep"
"$MGBENCH" "${train[@]}" --devices 1 --json "$TMP/profile.json" >/dev/null || fail "profile run"
json_check "$TMP/profile.json" "len(d['runs'][0]['gradient_layers']) == 5 and all(l['ready_s'] > 0 for l in d['runs'][0]['gradient_layers'])" \
  || fail "the profile has no gradient_layers"
json_check "$TMP/profile.json" "all('ready_s' in b for b in d['runs'][0]['allreduce']['per_bucket'])" || fail "bucket ready_s"

expect_status 0 "$MGBENCH" predict --profile "$TMP/profile.json" --gpus 1,2,4,8,16 --link nvlink4,pcie3,bw=100Mbit,lat=2ms \
  --gpus-per-node 8 --inter-node ib-ndr --json "$TMP/pred.json"
grep -q "nvlink4+ib-ndr" "$TMP/out" || { cat "$TMP/out"; fail "table lacks the link"; }
python3 - "$TMP/pred.json" "$TMP/profile.json" <<'PY' || fail "prediction JSON"
import json, sys
d, prof = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert d["kind"] == "prediction" and d["schema_version"] == 1
runs = d["runs"]
assert len(runs) == 15, len(runs)
labels = sorted({r["transport"] for r in runs})
assert labels == ["bw=100Mbit,lat=2ms+ib-ndr", "nvlink4+ib-ndr", "pcie3+ib-ndr"], labels
one = [r for r in runs if r["devices"] == 1]
base = prof["runs"][0]["images_per_sec"]
# The profile is scaled to its headline rate (docs/predict.md): one device predicts exactly what was measured.
assert all(abs(r["images_per_sec"] - base) / base < 1e-9 for r in one), (base, [r["images_per_sec"] for r in one])
for r in runs:
    assert r["samples"]["total_s"] == [] and r["step_time"]["samples"] == 0
    assert 0 < r["scaling_efficiency"] <= 1.0 + 1e-9, r
    b = r["breakdown"]
    assert abs(b["input_wait_s"] + b["forward_s"] + b["backward_s"] + b["comm_exposed_s"] + b["optimizer_s"] - b["total_s"]) < 1e-9
# The slow link is slower than NVLink at every count above 1, and scales worse.
by = {(r["transport"], r["devices"]): r for r in runs}
for n in (2, 4, 8, 16):
    assert by[("bw=100Mbit,lat=2ms+ib-ndr", n)]["images_per_sec"] < by[("nvlink4+ib-ndr", n)]["images_per_sec"]
    assert by[("pcie3+ib-ndr", n)]["breakdown"]["comm_exposed_s"] >= by[("nvlink4+ib-ndr", n)]["breakdown"]["comm_exposed_s"]
# 100 Mbit/s with 2 ms per step: 2(n-1) x 2 ms of latency alone at 4 GPUs.
assert by[("bw=100Mbit,lat=2ms+ib-ndr", 4)]["allreduce"]["time_s"] >= 6 * 2e-3
assert d["environment"]["topology"]["prediction"]["interconnects"][0]["inter"]["bandwidth_GBps"] == 50
PY

# A prediction is a valid result file (docs/result-schema.json), where python3-jsonschema is installed.
if python3 -c 'import jsonschema' 2>/dev/null; then
  python3 - "${MG_SOURCE_DIR:-$(dirname "$0")/../..}/docs/result-schema.json" "$TMP/pred.json" "$TMP/profile.json" <<'PY' || fail "schema"
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
for f in sys.argv[2:]:
    errors = sorted(jsonschema.Draft7Validator(schema).iter_errors(json.load(open(f))), key=str)
    assert not errors, f"{f}: {'/'.join(map(str, errors[0].absolute_path))}: {errors[0].message}"
PY
fi

# Options honoured as in a real run: no overlap exposes all communication, a bf16 wire halves the bytes,
# smaller buckets make more of them (0.002 MiB = 524 fp32 elements: 4 buckets of tiny's 1586).
"$MGBENCH" predict --profile "$TMP/profile.json" --gpus 4 --link bw=1Gbit --no-overlap --json "$TMP/nov.json" >/dev/null || fail "no-overlap"
json_check "$TMP/nov.json" "abs(d['runs'][0]['breakdown']['comm_exposed_s'] - d['runs'][0]['allreduce']['time_s'] - d['environment']['topology']['prediction']['interconnects'][0]['straggler_wait_s']['4']) < 1e-12 and d['config']['overlap'] == False" \
  || fail "--no-overlap not honoured"
# The straggler wait comes from the profile's own step spread; with --profile-rate (another device) it is left out.
json_check "$TMP/nov.json" "d['environment']['topology']['prediction']['interconnects'][0]['straggler_wait_s']['4'] > 0" \
  || fail "no straggler wait from a profile with several steps"
"$MGBENCH" predict --profile "$TMP/profile.json" --profile-rate 1000 --gpus 4 --link bw=1Gbit --json "$TMP/rate.json" >/dev/null \
  || fail "profile-rate"
json_check "$TMP/rate.json" "d['environment']['topology']['prediction']['interconnects'][0]['straggler_wait_s']['4'] == 0" \
  || fail "--profile-rate kept this machine's step spread"
# Another per-device batch: with --profile-rate the 1-device rate stays the given one and the batch is recorded.
expect_status 0 "$MGBENCH" predict --profile "$TMP/profile.json" --batch-size 32 --profile-rate 1000 --gpus 1,4 --link bw=1Gbit \
  --json "$TMP/batch.json"
grep -q "from batch 8 to 32 per device" "$TMP/out" || { cat "$TMP/out"; fail "the --batch-size line"; }
json_check "$TMP/batch.json" "d['config']['batch_size'] == 32 and [r['batch_per_device'] for r in d['runs']] == [32, 32] and d['runs'][1]['global_batch'] == 128 and abs(d['runs'][0]['images_per_sec'] - 1000) < 1e-6" \
  || fail "--batch-size not honoured"
"$MGBENCH" predict --profile "$TMP/profile.json" --gpus 4 --link bw=1Gbit --allreduce-dtype bf16 --bucket-mb 0.002 --json "$TMP/bf.json" >/dev/null || fail "bf16"
elements=$(json_get "$TMP/profile.json" "sum(l['elements'] for l in d['runs'][0]['gradient_layers'])")
[[ $elements -eq 1586 ]] || fail "tiny with 10 classes has 1586 parameters, the profile says $elements"
json_check "$TMP/bf.json" "d['runs'][0]['allreduce']['bytes_per_step'] == 1586 * 2 and d['runs'][0]['allreduce']['buckets'] == 4" \
  || fail "bf16 wire / bucket size not honoured"
# The 16-bit wire casts: the 1-device run timed them (both dtypes, both directions; a multi-device entry does
# not), predict schedules them from the profile, and an older profile without them is said to lack them.
json_check "$TMP/profile.json" "[c['dtype'] for c in d['runs'][0]['wire_casts']] == ['fp16', 'bf16'] and all(c['to_wire_s_per_element'] > 0 and c['from_wire_s_per_element'] > 0 and c['elements'] == 1586 for c in d['runs'][0]['wire_casts'])" \
  || fail "the profile has no wire_casts"
json_check "$TMP/sweep.json" "[r['wire_casts'] == [] for r in d['runs']] == [False, True]" || fail "wire_casts on a 2-device entry"
expect_status 0 "$MGBENCH" predict --profile "$TMP/profile.json" --gpus 1,2 --link bw=1Gbit --allreduce-dtype bf16 --json "$TMP/cast.json"
grep -q "bf16 casts on the compute stream (profile)" "$TMP/out" || { cat "$TMP/out"; fail "cast line"; }
[ ! -s "$TMP/err" ] || { cat "$TMP/err"; fail "a profile with wire_casts warned"; }
python3 - "$TMP/profile.json" "$TMP/old.json" <<'PY' || fail "writing an older profile"
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["runs"]:
    del r["wire_casts"]
json.dump(d, open(sys.argv[2], "w"))
PY
expect_status 0 "$MGBENCH" predict --profile "$TMP/old.json" --gpus 1,2 --link bw=1Gbit --allreduce-dtype bf16 --json "$TMP/nocast.json"
[ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "old.json: the profile has no bf16 wire-cast cost" "$TMP/err" \
  || { cat "$TMP/err"; fail "an older profile's missing cast cost is not said in one line"; }
# The note is no second line after a usage error, and not given where nothing is cast.
expect_usage_error "accum-steps" "$MGBENCH" predict --profile "$TMP/old.json" --gpus 2 --link bw=1Gbit \
  --allreduce-dtype bf16 --accum-steps 0
expect_status 0 "$MGBENCH" predict --profile "$TMP/old.json" --gpus 1,2 --link bw=1Gbit --allreduce-dtype bf16 --allreduce none
[ ! -s "$TMP/err" ] || { cat "$TMP/err"; fail "--allreduce none casts nothing, yet the missing cast cost was noted"; }
expect_status 0 "$MGBENCH" predict --profile "$TMP/old.json" --gpus 1 --link bw=1Gbit --allreduce-dtype bf16
[ ! -s "$TMP/err" ] || { cat "$TMP/err"; fail "one device casts nothing, yet the missing cast cost was noted"; }
python3 - "$TMP/cast.json" "$TMP/nocast.json" "$TMP/profile.json" <<'PY' || fail "cast scheduling"
import json, sys
c, n, p = (json.load(open(f)) for f in sys.argv[1:])
cast = p["runs"][0]["wire_casts"][1]
wc, wn = c["environment"]["topology"]["prediction"]["wire_cast"], n["environment"]["topology"]["prediction"]["wire_cast"]
assert wc["source"] == "profile" and wc["to_wire_s_per_element"] == cast["to_wire_s_per_element"], wc
assert wn["source"] == "missing" and "older mgbench" in wn["note"], wn
# One 25 MiB bucket over a fast link: the cast out lengthens backward, the cast back the exposed part.
bc, bn = c["runs"][1]["breakdown"], n["runs"][1]["breakdown"]
assert abs(bc["backward_s"] - bn["backward_s"] - 1586 * cast["to_wire_s_per_element"]) < 1e-12, (bc, bn)
assert abs(bc["comm_exposed_s"] - bn["comm_exposed_s"] - 1586 * cast["from_wire_s_per_element"]) < 1e-12, (bc, bn)
assert c["runs"][0]["breakdown"]["total_s"] == n["runs"][0]["breakdown"]["total_s"]  # one device casts nothing
PY
"$MGBENCH" predict --profile "$TMP/profile.json" --gpus 4 --link bw=1Gbit --allreduce none --json "$TMP/none.json" >/dev/null || fail "none"
json_check "$TMP/none.json" "d['runs'][0]['allreduce']['time_s'] == 0 and d['runs'][0]['allreduce']['library'] == 'none'" || fail "--allreduce none"

# Measured beside predicted, with the error; compare reads the prediction as a baseline.
expect_status 0 "$MGBENCH" predict --profile "$TMP/profile.json" --gpus 1,2 --link bw=10GB/s,lat=20us --measured "$TMP/sweep.json" \
  --json "$TMP/pm.json"
grep -Eq "error% +naive%" "$TMP/out" && grep -Eq "^ +2 .*[+-][0-9]+\.[0-9]\s*$" "$TMP/out" || { cat "$TMP/out"; fail "measured column"; }
# The naive forecast's error (2 x the prediction's own 1-device rate against the measured 2-device rate) beside
# the model's; with another accumulation than the profile's that rate is not the profile's.
naive_err() {  # PREDICTION.json: the naive error the 2-device row must end with
  python3 - "$1" "$TMP/sweep.json" <<'PY'
import json, sys
one = [r for r in json.load(open(sys.argv[1]))["runs"] if r["devices"] == 1][0]["images_per_sec"]
two = [r for r in json.load(open(sys.argv[2]))["runs"] if r["devices"] == 2][0]["images_per_sec"]
print(f"{100 * (2 * one - two) / two:+.1f}")
PY
}
naive=$(naive_err "$TMP/pm.json")
[[ $(awk '$1 == 2 {print $NF}' "$TMP/out") == "$naive" ]] || { cat "$TMP/out"; fail "naive column: want $naive"; }
expect_status 0 "$MGBENCH" predict --profile "$TMP/profile.json" --gpus 1,2 --link bw=10GB/s,lat=20us --accum-steps 3 \
  --measured "$TMP/sweep.json" --json "$TMP/pm3.json"
naive=$(naive_err "$TMP/pm3.json")
[[ $(awk '$1 == 2 {print $NF}' "$TMP/out") == "$naive" ]] || { cat "$TMP/out"; fail "naive column with --accum-steps 3: want $naive"; }
status=0
"$MGBENCH" compare "$TMP/pm.json" "$TMP/sweep.json" >"$TMP/cmp" 2>&1 || status=$?
[[ $status -le 1 ]] || { cat "$TMP/cmp"; fail "compare refused a prediction baseline (status $status)"; }
grep -qi "predict" "$TMP/cmp" || { cat "$TMP/cmp"; fail "compare does not say the baseline is a prediction"; }

# Bad input.
out="$TMP/never.json"
expect_usage_error "unknown link 'nvlink9'" "$MGBENCH" predict --profile "$TMP/profile.json" --link nvlink9 --json "$out"
expect_usage_error "bandwidth must be positive" "$MGBENCH" predict --profile "$TMP/profile.json" --link bw=0 --json "$out"
# transport=gloo-tcp's host keys: a negative, absurd or unparsable time, or one without the transport it prices.
expect_usage_error "step: must not be negative" "$MGBENCH" predict --profile "$TMP/profile.json" \
  --link bw=1Gbit,lat=2ms,transport=gloo-tcp,step=-1 --json "$out"
expect_usage_error "wake: '5s' is more than 1 s" "$MGBENCH" predict --profile "$TMP/profile.json" \
  --link bw=1Gbit,lat=2ms,transport=gloo-tcp,wake=5s --json "$out"
expect_usage_error "step: 'fast' is not a number" "$MGBENCH" predict --profile "$TMP/profile.json" \
  --link bw=1Gbit,lat=2ms,transport=gloo-tcp,step=fast --json "$out"
expect_usage_error "apply to transport=gloo-tcp" "$MGBENCH" predict --profile "$TMP/profile.json" \
  --link bw=1Gbit,lat=2ms,wake=1ms --json "$out"
expect_usage_error "gpus-per-node must be at least 1" "$MGBENCH" predict --profile "$TMP/profile.json" --link nvlink4 --gpus-per-node 0 --json "$out"
expect_usage_error "inter-node" "$MGBENCH" predict --profile "$TMP/profile.json" --link nvlink4 --gpus 16 --gpus-per-node 8 --json "$out"
expect_usage_error "not a training result" "$MGBENCH" predict --profile "$TMP/pred.json" --link nvlink4 --json "$out"
"$MGBENCH" comm --device cpu --op allreduce -b 1K -e 1K --iters 2 --warmup 1 --json "$TMP/comm1k.json" >/dev/null 2>&1 \
  || fail "comm result"
expect_usage_error "comm1k.json: a .mgbench comm. file, not a training or prediction result" "$MGBENCH" predict \
  --profile "$TMP/comm1k.json" --link nvlink4 --json "$out"
# The ranges a training run accepts, and options given a value that means nothing.
expect_usage_error "bucket-mb must be in" "$MGBENCH" predict --profile "$TMP/profile.json" --link nvlink4 --bucket-mb 0 --json "$out"
expect_usage_error "bucket-mb must be in" "$MGBENCH" predict --profile "$TMP/profile.json" --link nvlink4 --bucket-mb 1e9 --json "$out"
expect_usage_error "accum-steps .* between 1 and 4096" "$MGBENCH" predict --profile "$TMP/profile.json" --link nvlink4 --accum-steps 5000 --json "$out"
expect_usage_error "nics-per-node must be at least 1" "$MGBENCH" predict --profile "$TMP/profile.json" --link nvlink4 --nics-per-node 0 --json "$out"
expect_usage_error "batch-size 0 must be between 1 and 65536" "$MGBENCH" predict --profile "$TMP/profile.json" --link nvlink4 --batch-size 0 --json "$out"
expect_usage_error "batch-size 4611686018427387904 must be between 1 and 65536" "$MGBENCH" predict \
  --profile "$TMP/profile.json" --link nvlink4 --batch-size 4611686018427387904 --json "$out"
# A measured sweep at another batch than the prediction's is no measurement of it.
expect_usage_error "sweep.json: its batch per device is 8, the prediction's 32" "$MGBENCH" predict \
  --profile "$TMP/profile.json" --batch-size 32 --gpus 1,2 --link nvlink4 --measured "$TMP/sweep.json" --json "$out"
expect_usage_error "input-rate must be a positive" "$MGBENCH" predict --profile "$TMP/profile.json" --link nvlink4 --input-rate 0 --json "$out"
"$MGBENCH" "${train[@]}" --devices 2 --no-baseline --json "$TMP/two.json" >/dev/null || fail "2-device run"
expect_usage_error "no 1-device run" "$MGBENCH" predict --profile "$TMP/two.json" --link nvlink4 --json "$out"
expect_usage_error "cannot read" "$MGBENCH" predict --profile "$TMP/nope.json" --link nvlink4 --json "$out"
expect_usage_error "allreduce" "$MGBENCH" predict --profile "$TMP/profile.json" --link nvlink4 --allreduce tree --json "$out"
expect_usage_error "allreduce-dtype" "$MGBENCH" predict --profile "$TMP/profile.json" --link nvlink4 --allreduce-dtype fp8 --json "$out"
expect_usage_error "gpus" "$MGBENCH" predict --profile "$TMP/profile.json" --link nvlink4 --gpus 0 --json "$out"
[[ ! -e "$out" ]] || fail "a prediction file was written by a failed run"
echo "predict: ok"
