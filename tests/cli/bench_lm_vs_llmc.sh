#!/usr/bin/env bash
# scripts/measure/bench-lm-vs-llmc.sh refuses bad input with one line and exit 2 before writing anything: no llm.c
# tree, a tree that is not llm.c's, a sequence GPT-2 cannot take, a bad count, and a train_gpt2.c whose main() it
# does not know (it would otherwise time a trainer it has not set up).
source "$(dirname "$0")/lib.bash"
tool=$MG_SOURCE_DIR/scripts/measure/bench-lm-vs-llmc.sh
export OUT=$TMP/out-dir
unset LLMC_DIR
expect_usage_error "^bench-lm-vs-llmc: set LLMC_DIR" "$tool"
expect_usage_error "^bench-lm-vs-llmc: $TMP has no train_gpt2.c" env LLMC_DIR="$TMP" "$tool"
mkdir -p "$TMP/llmc/llmc"
printf 'int main() {\n    int B = 4;\n    int T = 64;\n    for (int step = 0; step <= 40; step++) {}\n}\n' >"$TMP/llmc/train_gpt2.c"
expect_usage_error "^bench-lm-vs-llmc: SEQ must be 1-1024" env LLMC_DIR="$TMP/llmc" "$tool" 2000
expect_usage_error "^bench-lm-vs-llmc: BATCH and STEPS must be counts" env LLMC_DIR="$TMP/llmc" "$tool" 256 x
# Only three of the five lines it changes are there: refused, naming the file.
expect_usage_error "^bench-lm-vs-llmc: .*train_gpt2.c is not the train_gpt2.c this script knows" \
  env LLMC_DIR="$TMP/llmc" "$tool" 64 1 1
[[ ! -e $OUT ]] || fail "bad input left $OUT behind"
echo "ok"
