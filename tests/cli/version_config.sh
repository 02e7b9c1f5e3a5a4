#!/usr/bin/env bash
# --version names the libraries; a --config preset applies and the command line overrides it.
source "$(dirname "$0")/lib.bash"
expect_status 0 "$MGBENCH" --version
grep -q "^mgbench [0-9]" "$TMP/out" || fail "version line"
grep -q "onednn" "$TMP/out" || fail "oneDNN version"
grep -q "gloo" "$TMP/out" || fail "Gloo version"
if grep -q "^  cublas_headers" "$TMP/out"; then  # a CUDA build: --version names the cuBLAS a CUDA run would open
  grep -q "^  cublas [0-9]" "$TMP/out" || fail "--version does not name the cuBLAS it can open"
fi
# cuBLAS costs a process about 0.4 s and 200 MB at start: neither --help nor a CPU run opens it, in any build.
for args in "--help" "--device cpu --model tiny --steps 1 --warmup 0 --batch-size 2 --no-progress"; do
  LD_DEBUG=files "$MGBENCH" $args 2>"$TMP/ld" >/dev/null || fail "mgbench $args failed"
  ! grep -q "file=libcublas" "$TMP/ld" || fail "mgbench $args opened cuBLAS: $(grep -m1 'file=libcublas' "$TMP/ld")"
done

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
