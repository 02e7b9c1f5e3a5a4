#!/usr/bin/env bash
# README.md is the front door: at most 120 lines; its two set-up commands are executable scripts of the tree; every
# page of docs/ and every folder of results/ is linked from it, so what moved out of it stays one click away.
source "$(dirname "$0")/lib.bash"
: "${MG_SOURCE_DIR:?}"
readme=$MG_SOURCE_DIR/README.md
lines=$(wc -l <"$readme")
((lines <= 120)) || fail "README.md has $lines lines, more than 120: move details to the docs/ page that owns them"
for cmd in scripts/bench.sh scripts/test.sh; do
  grep -Eq "^$cmd( |$)" "$readme" || fail "README.md does not give the set-up command $cmd"
  [[ -x $MG_SOURCE_DIR/$cmd ]] || fail "README.md's set-up command $cmd is not an executable file"
done
for page in "$MG_SOURCE_DIR"/docs/*.md; do
  name=docs/$(basename "$page")
  grep -Fq "]($name)" "$readme" || fail "README.md does not link $name"
done
for area in "$MG_SOURCE_DIR"/results/*/; do
  name=results/$(basename "$area")/
  grep -Fq "]($name" "$readme" || fail "README.md does not link $name"
done
echo "ok: README.md is $lines lines and links every docs/ page and results/ folder"
