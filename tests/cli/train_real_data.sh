#!/usr/bin/env bash
# Real data end to end: a generated JPEG folder and its .mgrec packing feed training and the input-only mode;
# a corrupt JPEG fails the run naming the file, or is skipped and counted with --skip-bad-images.
source "$(dirname "$0")/lib.bash"
expect_status 0 "$MGBENCH" prepare-data --generate-test-images "$TMP/imgs" --count 64 --size 48 --classes 4
expect_status 0 "$MGBENCH" prepare-data "$TMP/imgs" "$TMP/imgs.mgrec"
common=(--device cpu --model tiny --num-classes 4 --batch-size 8 --warmup 1 --no-progress --data-threads 2)

for src in "$TMP/imgs" "$TMP/imgs.mgrec"; do
  expect_status 0 "$MGBENCH" "${common[@]}" --gpus 1,2 --steps 4 --data "$src" --json "$TMP/train.json"
  [[ $(json_get "$TMP/train.json" "d['config']['data']") == "$src" ]] || fail "data source not recorded"
  json_check "$TMP/train.json" "all(r['images_per_sec'] > 0 for r in d['runs'])" || fail "$src: throughput"
done

expect_status 0 "$MGBENCH" "${common[@]}" --gpus 1,2 --steps 4 --data "$TMP/imgs" --input-only --json "$TMP/in.json"
json_check "$TMP/in.json" "all(r['input_only'] and r['images_per_sec'] > 0 and r['wire_casts'] == [] for r in d['runs'])" \
  || fail "input-only result (no network: no wire casts either)"
grep -q "images/s" "$TMP/out" || fail "input-only table"

# Corrupt one JPEG: the run fails naming it; with --skip-bad-images it is skipped and counted.
victim=$(find "$TMP/imgs" -name '*.jp*g' | sort | head -1)
head -c 200 "$victim" > "$TMP/cut" && mv "$TMP/cut" "$victim"
expect_status 1 "$MGBENCH" "${common[@]}" --gpus 1 --data "$TMP/imgs" --steps 10 --json "$TMP/bad.json"
grep -q "$(basename "$victim")" "$TMP/err" || { cat "$TMP/err"; fail "the error does not name the corrupt file"; }
[[ ! -e "$TMP/bad.json" ]] || fail "a failed run wrote a result"
expect_status 0 "$MGBENCH" "${common[@]}" --gpus 1 --data "$TMP/imgs" --steps 10 --skip-bad-images --json "$TMP/skip.json"
[[ $(json_get "$TMP/skip.json" "d['runs'][0]['skipped_images']") -ge 1 ]] || fail "skipped image not counted"

mkdir -p "$TMP/empty"
expect_usage_error "empty" "$MGBENCH" "${common[@]}" --data "$TMP/empty" --json "$TMP/e.json"
expect_usage_error "no/such" "$MGBENCH" "${common[@]}" --data "$TMP/no/such/dir" --json "$TMP/e.json"
echo "ok"
