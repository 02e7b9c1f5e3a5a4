#!/usr/bin/env bash
# A Vision Transformer trains from the command line as a CNN does: two replicas that stay identical, images/s as
# the headline with MFU from its FLOPs, a falling loss on real images; image sizes its position table cannot take
# and language-model options refused in one line, no result file.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.bash"

expect_status 0 "$MGBENCH" prepare-data --generate-test-images "$TMP/images" --count 16 --size 40 --classes 4
expect_status 0 "$MGBENCH" --device cpu --model vit-tiny --image-size 32 --num-classes 4 --batch-size 4 \
  --devices 1,2 --steps 30 --warmup 1 --optimizer adamw --data "$TMP/images" --no-progress --json "$TMP/r.json"
grep -Eq "images/s +img/s/dev" "$TMP/out" || fail "the table does not head with images/s: $(cat "$TMP/out")"
# A training step is 3 x the forward's 2 (3 p^2 C P + L (12 T C^2 + 2 T^2 C) + C K) = 1,106,432 FLOPs
# (p 8, C 32, P 16, T 17, L 2, K 4).
json_check "$TMP/r.json" 'all(abs(r["model_flops_per_sample"] - 3 * 1106432) < 1 and r["mfu"] > 0 and
    r["replicas_identical"] for r in d["runs"])' || fail "FLOPs, MFU or replicas: $(cat "$TMP/r.json")"
# ln 4 = 1.39 for a uniform guess; 30 AdamW steps over 16 images must fit them.
json_check "$TMP/r.json" 'all(r["final_loss"] < 1.0 for r in d["runs"])' || fail "the loss did not fall: $(cat "$TMP/out")"

run() { "$MGBENCH" --device cpu --steps 1 --warmup 0 --no-progress --json "$TMP/bad.json" "$@"; }
expect_usage_error "--image-size 48 does not fit vit-tiny: its position table holds 16 patches but this size gives 36 \(a 6x6 grid\); image sizes 32 to 39 fit" \
  run --model vit-tiny --image-size 48
expect_usage_error "--seq-len applies to language models" run --model vit-tiny --seq-len 8
[[ ! -e "$TMP/bad.json" ]] || fail "a refused run wrote a result file"
echo ok
