#!/usr/bin/env bash
# The bundle's GPU-check summary (scripts/bundle/gpu_check_summary.py) renders the committed first GPU run's
# files into the figures results/gpu/README.md quotes: each precision's rates and ratio, the cuDNN each side
# loaded, the A100 prediction beside the published figure; and it renders a folder where most steps are missing.
source "$(dirname "$0")/lib.bash"
py=$(command -v /usr/bin/python3 || command -v python3)
summary=$MG_SOURCE_DIR/scripts/bundle/gpu_check_summary.py
published=$MG_SOURCE_DIR/scripts/bundle/published_resnet50.json
tar -C "$TMP" -xJf "$MG_SOURCE_DIR/results/gpu/2026-11-28-h100-first-run/raw.tar.xz" || fail "cannot unpack the first run"
rm -f "$TMP/gc/summary.json" "$TMP/gc/summary.md"
"$py" "$summary" "$TMP/gc" "$published" >"$TMP/summary.txt" || { cat "$TMP/summary.txt"; fail "the summary failed"; }
for want in '| fp32 | 444 | 955 | 0.465 (>= 1.0) | 25.27 | 24.24 | - |' \
            '| bf16 | 4224 | 3969 | 1.064 (>= 1.1) | 12.68 | 12.42 | 0.0 % |' \
            'cuDNN: mgbench 9.14.0 (/usr/lib/x86_64-linux-gnu/libcudnn.so.9.14.0), PyTorch None' \
            'bf16, 8x A100 over NVLink 3: predicted 19725 img/s (+18.7 %), naive 19760 (+18.9 %), published 16621' \
            '- racecheck: timed out after 90 s (90 s)'; do
  grep -qxF -- "$want" "$TMP/summary.txt" || { cat "$TMP/summary.txt"; fail "the summary lacks: $want"; }
done
json_check "$TMP/gc/summary.json" "abs(d['precisions']['tf32']['ratio_vs_torch_cl'] - 2408.7384/2518.9142) < 1e-4 \
  and d['check']['rows'] == 127 and len(d['check']['failed']) == 28 and d['memcheck'].endswith('0 errors')" ||
  fail "summary.json's values differ from the run's files: $(cat "$TMP/gc/summary.json")"

# A run that got no further than the check: the summary still renders, with what there is.
mkdir "$TMP/short" && cp "$TMP/gc/steps.tsv" "$TMP/gc/check.json" "$TMP/short/"
"$py" "$summary" "$TMP/short" "$published" >"$TMP/short.txt" || { cat "$TMP/short.txt"; fail "the summary of a short run failed"; }
grep -q '^| precision |' "$TMP/short.txt" || fail "the short run's summary has no table"
echo "the summary renders the first run's figures"
