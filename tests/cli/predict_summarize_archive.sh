#!/usr/bin/env bash
# scripts/measure/predict-summarize.py reads a committed campaign straight from its raw.tar.xz: the table it renders
# from the compressed data is byte for byte the committed table.md, and the same as from the unpacked raw/ folder; a
# campaign with neither is one line on stderr and exit status 2, and no table.md is written.
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
tool=$here/scripts/measure/predict-summarize.py
for run in netns-2026-11-27 netns-2026-11-23-veth-loaded; do
  src=$here/results/predict/$run
  [ ! -e "$src/raw" ] || fail "$run: raw/ is committed unpacked"
  mkdir -p "$out/tar/$run" "$out/dir/$run"
  cp "$src/cases.tsv" "$src/raw.tar.xz" "$out/tar/$run/" || fail "$run: copy"
  python3 "$tool" "$out/tar/$run" >"$out/log" 2>&1 || { cat "$out/log"; fail "$run: from raw.tar.xz"; }
  cmp -s "$out/tar/$run/table.md" "$src/table.md" \
    || { diff "$src/table.md" "$out/tar/$run/table.md" | head -20; fail "$run: table from raw.tar.xz differs"; }
  cp "$src/cases.tsv" "$out/dir/$run/" && tar -xJf "$src/raw.tar.xz" -C "$out/dir/$run" raw || fail "$run: unpack"
  python3 "$tool" "$out/dir/$run" >"$out/log" 2>&1 || { cat "$out/log"; fail "$run: from raw/"; }
  cmp -s "$out/dir/$run/table.md" "$src/table.md" || fail "$run: table from raw/ differs"
  echo "ok: $run from raw.tar.xz and from raw/"
done
# Neither raw/ nor raw.tar.xz: a clear line, exit 2.
mkdir -p "$out/empty"
cp "$here/results/predict/netns-2026-11-27/cases.tsv" "$out/empty/"
python3 "$tool" "$out/empty" >"$out/stdout" 2>"$out/stderr"
status=$?
[ $status -eq 2 ] || { cat "$out/stderr"; fail "no raw data: exit $status, want 2"; }
[ "$(wc -l <"$out/stderr")" -eq 1 ] || { cat "$out/stderr"; fail "no raw data: want one line on stderr"; }
[ ! -e "$out/empty/table.md" ] || fail "no raw data: table.md written"
echo "ok: $(cat "$out/stderr")"
