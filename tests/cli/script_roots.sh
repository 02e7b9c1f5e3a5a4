#!/usr/bin/env bash
# Scripts run from any working directory: each finds the checkout from its own place (bash: root=$(cd
# "$(dirname "$0")/REL" && pwd); Python: os.path.dirname(__file__) joined with ".." parts), and that place must be
# the checkout's root wherever under scripts/ the script lives. The machine probe runs from a foreign directory too.
source "$(dirname "$0")/lib.bash"
: "${MG_SOURCE_DIR:?}"
command -v python3 >/dev/null || { echo "skipped: python3 is needed"; exit 77; }
python3 - "$MG_SOURCE_DIR" >"$TMP/problems" <<'PY'
import os, re, sys

root = os.path.realpath(sys.argv[1])
BASH_ROOT = re.compile(r'root=\$\(cd "\$\(dirname "\$0"\)(/[./]*)?" && pwd\)')
PY_UP = re.compile(r'os\.path\.dirname\((?:os\.path\.abspath\()?__file__\)?\)((?:\s*,\s*"\.\.")+)')
found = 0
for d, subdirs, names in os.walk(os.path.join(root, "scripts")):
    subdirs[:] = [s for s in subdirs if s != "__pycache__"]
    for n in names:
        path = os.path.join(d, n)
        rel = os.path.relpath(path, root)
        if not n.endswith((".sh", ".py")):
            continue
        text = open(path, encoding="utf-8").read()
        ups = [m.group(1) or "" for m in BASH_ROOT.finditer(text)]
        ups += ["/" + "/".join([".."] * m.group(1).count('".."')) for m in PY_UP.finditer(text)]
        for up in ups:
            found += 1
            where = os.path.realpath(os.path.join(d, up.lstrip("/")))
            if where != root:
                print(f"{rel}: finds the checkout at {os.path.relpath(where, root)}, not at its root")
if found < 10:
    print(f"only {found} scripts find the checkout from their place: the patterns above no longer match them")
PY
[[ $? -eq 0 ]] || fail "the root check itself failed"
[[ ! -s $TMP/problems ]] || { cat "$TMP/problems" >&2; fail "scripts that would miss the checkout (above)"; }
# From a foreign directory the machine probe still finds its source beside it and prints its JSON.
mkdir "$TMP/elsewhere" && cd "$TMP/elsewhere" || fail "cannot make a working directory"
expect_status 0 bash "$MG_SOURCE_DIR/scripts/measure/machine-probe.sh" "$TMP/probe.json" 1
json_check "$TMP/probe.json" 'd["fma_gflops_all_cores"] > 0 and d["copy_GBps_1thread"] > 0' ||
  fail "machine-probe.sh wrote no rates: $(cat "$TMP/probe.json")"
echo "ok: every script finds the checkout's root from its own place"
