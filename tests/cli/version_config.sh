#!/usr/bin/env bash
# --version names the libraries; a --config preset applies and the command line overrides it.
source "$(dirname "$0")/lib.bash"
expect_status 0 "$MGBENCH" --version
grep -q "^mgbench [0-9]" "$TMP/out" || fail "version line"
grep -q "onednn" "$TMP/out" || fail "oneDNN version"
grep -q "gloo" "$TMP/out" || fail "Gloo version"

cat > "$TMP/preset.json" <<'JSON'
{"description": "test preset", "device": "cpu", "model": "tiny", "num-classes": 5, "batch-size": 4,
 "gpus": [1], "steps": 3, "warmup": 1}
JSON
expect_status 0 "$MGBENCH" --config "$TMP/preset.json" --steps 4 --json "$TMP/r.json"
[[ $(json_get "$TMP/r.json" "d['config']['model']") == tiny ]] || fail "preset model"
[[ $(json_get "$TMP/r.json" "d['config']['steps']") == 4 ]] || fail "command line must override the preset"
[[ $(json_get "$TMP/r.json" "d['runs'][0]['batch_per_device']") == 4 ]] || fail "preset batch"
for f in "$MG_SOURCE_DIR"/configs/*.json; do   # shipped presets must at least parse as presets
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert isinstance(d, dict)" "$f" || fail "$f"
done
echo "ok"
