#!/usr/bin/env bash
# `mgbench topo` end to end: text and JSON reports, also on a machine without GPUs (exit 0, "no GPUs"), and the
# library files loaded.
source "$(dirname "$0")/lib.bash"
set -e
if ! command -v python3 >/dev/null; then echo "skipped: python3 is needed to read the JSON"; exit 77; fi

"$MGBENCH" topo >"$TMP/topo.txt" || fail "mgbench topo exited $?"
grep -q '^Host: ' "$TMP/topo.txt" || fail "no host line"
grep -q '^NUMA node ' "$TMP/topo.txt" || fail "no NUMA line"
grep -Eq '^  lo +up +loopback' "$TMP/topo.txt" || fail "loopback interface missing"
grep -Eq '^GPUs: ' "$TMP/topo.txt" || fail "no GPU line"

"$MGBENCH" topo --json "$TMP/topo.json" >"$TMP/text2.txt" || fail "topo --json FILE exited $?"
grep -q '^Host: ' "$TMP/text2.txt" || fail "topo --json FILE should still print the text report"
"$MGBENCH" topo --json - >"$TMP/stdout.json" || fail "topo --json - exited $?"
for f in "$TMP/topo.json" "$TMP/stdout.json"; do
  python3 - "$f" "$TMP/topo.txt" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for key in ("host", "nvml", "gpus", "gpu_matrix", "p2p_read", "cpu", "numa", "network", "nics", "gpu_nic_matrix"):
    assert key in r, key
assert r["cpu"]["pus"] >= 1 and len(r["numa"]) >= 1
assert any(i["name"] == "lo" and i["loopback"] for i in r["network"]["interfaces"])
n = len(r["gpus"])
assert len(r["gpu_matrix"]) == n and all(len(row) == n for row in r["gpu_matrix"])
text = open(sys.argv[2]).read()
if n == 0:
    assert "GPUs: no GPUs" in text, "a machine without GPUs must say so"
else:
    assert "GPU0" in text and "Legend:" in text
PY
done

# The library files mgbench loaded: oneDNN's is the file the dynamic loader resolves for the binary (ldd), symlinks
# followed, and the text report lists it with the version it reports.
python3 - "$TMP/topo.json" "$TMP/topo.txt" "$(ldd "$MGBENCH" | sed -n 's/.*libdnnl[^ ]* => \([^ ]*\) .*/\1/p')" <<'PY' || fail "topo does not record the oneDNN file mgbench loaded"
import json, os, sys
r = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
lib = r["libraries"]["onednn"]
assert sys.argv[3], "ldd does not list libdnnl"
assert lib["file"] == os.path.realpath(sys.argv[3]), (lib["file"], sys.argv[3])
assert not os.path.islink(lib["file"]) and os.path.isfile(lib["file"]), lib
assert lib["version"].count(".") == 2, lib
line = [l for l in text.splitlines() if l.strip().startswith("onednn ")]
assert line and lib["file"] in line[0] and lib["version"] in line[0], line
assert "Libraries loaded:" in text
PY

if "$MGBENCH" topo --json "$TMP/no/such/dir/t.json" >"$TMP/out" 2>&1; then fail "an unwritable --json path was accepted"; fi
[[ ! -e "$TMP/no/such/dir/t.json" ]] || fail "a file was written"
echo "ok"
