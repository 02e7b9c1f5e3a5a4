#!/usr/bin/env bash
# End-to-end: `mgbench prepare-data` packs a generated JPEG folder into a .mgrec file holding every image with
# its label, and rejects bad input with one-line errors, exit status 2 and no output file.
set -u
: "${MGBENCH:?MGBENCH must point at the mgbench binary}"
if ! "$MGBENCH" prepare-data --help >/dev/null 2>&1; then
  echo "skipped: this mgbench build has no prepare-data command"
  exit 77
fi
if ! command -v python3 >/dev/null; then
  echo "skipped: python3 is needed to read the record file back"
  exit 77
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# Expects exit status $1 from the rest of the command; stderr goes to $T/err.
expect() {
  local want=$1
  shift
  "$@" >"$T/out" 2>"$T/err"
  local got=$?
  [ "$got" -eq "$want" ] || fail "exit $got (want $want) from: $* -- $(cat "$T/err")"
}
one_line_naming() {
  [ "$(wc -l <"$T/err")" -eq 1 ] || fail "error is not one line: $(cat "$T/err")"
  grep -qF -- "$1" "$T/err" || fail "error does not name $1: $(cat "$T/err")"
}

expect 0 "$MGBENCH" prepare-data --generate-test-images "$T/imgs" --count 30 --size 40 --classes 3 --threads 2
[ "$(find "$T/imgs" -name '*.jpg' | wc -l)" -eq 30 ] || fail "generator did not write 30 images"

expect 0 "$MGBENCH" prepare-data "$T/imgs" "$T/all.mgrec" --threads 2
grep -q "wrote 30 images in 3 classes" "$T/out" || fail "unexpected summary: $(cat "$T/out")"

# Round trip: every image file's bytes are in the record, under its class's label, and nothing else is.
python3 - "$T/imgs" "$T/all.mgrec" <<'PY' || fail "record file does not match the folder"
import os, struct, sys
root, rec = sys.argv[1], sys.argv[2]
data = open(rec, "rb").read()
magic, version, ncls, count, cls_off, idx_off, total = struct.unpack_from("<8sIIQQQQ", data, 0)
assert magic == b"MGRECORD" and version == 1 and total == len(data), (magic, version, total, len(data))
names, p = [], cls_off
for _ in range(ncls):
    (n,) = struct.unpack_from("<I", data, p)
    names.append(data[p + 4:p + 4 + n].decode()); p += 4 + n
assert p == idx_off
got = []
for i in range(count):
    off, size, label = struct.unpack_from("<QIi", data, idx_off + 16 * i)
    got.append((names[label], data[off:off + size]))
want = []
for c in sorted(os.listdir(root)):
    for f in sorted(os.listdir(os.path.join(root, c))):
        want.append((c, open(os.path.join(root, c, f), "rb").read()))
assert names == sorted(os.listdir(root)), names
assert sorted(got) == sorted(want), "samples or labels differ"
print("round trip ok:", count, "samples")
PY

# Bad input.
expect 2 "$MGBENCH" prepare-data "$T/missing" "$T/x.mgrec"
one_line_naming "$T/missing"
mkdir "$T/empty"
expect 2 "$MGBENCH" prepare-data "$T/empty" "$T/x.mgrec"
one_line_naming "$T/empty"
expect 2 "$MGBENCH" prepare-data "$T/imgs" "$T/x.rec"
one_line_naming "x.rec"
head -c 300 "$T/imgs/class_0001/img_0000004.jpg" >"$T/imgs/class_0001/img_0000004.jpg.cut"
mv "$T/imgs/class_0001/img_0000004.jpg.cut" "$T/imgs/class_0001/img_0000004.jpg"
expect 2 "$MGBENCH" prepare-data "$T/imgs" "$T/bad.mgrec" --threads 2
one_line_naming "img_0000004.jpg"
[ -z "$(find "$T" -maxdepth 1 -name 'bad.mgrec*')" ] || fail "a failed prepare-data left a file behind"
expect 0 "$MGBENCH" prepare-data "$T/imgs" "$T/skip.mgrec" --skip-bad-images
grep -q "wrote 29 images.*skipped 1 bad images" "$T/out" || fail "skip summary wrong: $(cat "$T/out")"
echo "prepare-data: all checks passed"
