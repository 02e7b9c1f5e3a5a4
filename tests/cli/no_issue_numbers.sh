#!/usr/bin/env bash
# No script, document or campaign write-up cites an issue number ("#" or "issue" and a number): each says what it
# means in words, since a tracker's numbering is not part of the tree. Covers README.md, docs/, scripts/, dev/,
# the results write-ups (Markdown) and tests/cli/.
source "$(dirname "$0")/lib.bash"
: "${MG_SOURCE_DIR:?}"
cd "$MG_SOURCE_DIR" || fail "cannot enter $MG_SOURCE_DIR"
pattern='(^|[^&$[:alnum:]])#[0-9]{1,5}\b|\b[Ii]ssues? #?[0-9]+\b'
files=(README.md)
while IFS= read -r -d '' f; do files+=("$f"); done < <(
  find docs scripts dev tests/cli -type f -not -path '*/__pycache__/*' -print0
  find results -type f -name '*.md' -print0)
((${#files[@]} > 50)) || fail "found only ${#files[@]} files to check"
if grep -nIE -- "$pattern" "${files[@]}" >"$TMP/hits"; then
  cat "$TMP/hits" >&2
  fail "$(wc -l <"$TMP/hits") issue-number citations (above)"
fi
echo "ok: ${#files[@]} files cite no issue number"
