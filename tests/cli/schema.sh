#!/usr/bin/env bash
# The --json result validates against docs/result-schema.json (JSON Schema draft-07), with Debian's
# python3-jsonschema: a file from the report writer fed every field (test_result's [example-result] case), and a
# real CPU sweep. A deliberately broken copy must fail, so the check itself is known to bite.
source "$(dirname "$0")/lib.bash"
: "${MG_SOURCE_DIR:?}" "${MG_BINARY_DIR:?}"
schema="$MG_SOURCE_DIR/docs/result-schema.json"

py=""
for p in python3 /usr/bin/python3; do
  if command -v "$p" >/dev/null && "$p" -c 'import jsonschema' 2>/dev/null; then py=$p; break; fi
done
if [[ -z $py ]]; then
  echo "skipped: no python3 with the jsonschema module (apt-get install python3-jsonschema)"
  exit 77
fi

validate() {  # validate FILE: exit 0 when FILE satisfies the schema, else prints the first error
  "$py" - "$schema" "$1" <<'PY'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft7Validator.check_schema(schema)
errors = sorted(jsonschema.Draft7Validator(schema).iter_errors(json.load(open(sys.argv[2]))), key=str)
for e in errors[:1]:
    print(f"{sys.argv[2]}: {'/'.join(map(str, e.absolute_path))}: {e.message}")
sys.exit(1 if errors else 0)
PY
}

# 1. Every field the writer can emit.
test_result="$MG_BINARY_DIR/tests/test_result"
[[ -x $test_result ]] || fail "$test_result not built (it writes the example result)"
MG_EXAMPLE_RESULT_OUT="$TMP/example.json" "$test_result" "[example-result]" >"$TMP/test_out" 2>&1 \
  || { cat "$TMP/test_out"; fail "test_result [example-result] failed"; }
validate "$TMP/example.json" || fail "the writer's example result does not match the schema"
"$py" - "$TMP/example.json" "$TMP/broken.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
del d["runs"][0]["step_time"]["median_s"]
d["config"]["precision"] = "fp8"
json.dump(d, open(sys.argv[2], "w"))
PY
if validate "$TMP/broken.json" >/dev/null; then fail "a result without step_time.median_s passed validation"; fi

# 2. A real sweep from the binary, and one pooled over fresh processes (--runs).
expect_status 0 "$MGBENCH" --device cpu --model tiny --batch-size 4 --steps 3 --warmup 1 --gpus 1,2 --json "$TMP/out.json"
validate "$TMP/out.json" || fail "mgbench's own --json output does not match the schema"
expect_status 0 "$MGBENCH" --device cpu --model tiny --batch-size 4 --steps 3 --warmup 1 --gpus 1 --runs 2 \
  --json "$TMP/runs.json"
validate "$TMP/runs.json" || fail "a --runs result does not match the schema"
echo "ok"
