#!/usr/bin/env bash
# The HTML report as a person opens it: headless Chromium renders pages made from real runs (a CPU training
# sweep, a comm sweep over two transports, a compare, and a prediction) to PNG, and report_page_check.py checks
# that the page loaded without console errors or external requests and that every plot area holds data.
# Two tampered pages (an external image and stylesheet; a plot with its data removed) must fail the same
# check, so it is known to catch what it is for.
# Chromium contacts Google's update servers on its own even with background networking disabled, so it runs
# in a fresh network namespace (unshare -n: no interface but a down loopback) and nothing can leave the host.
source "$(dirname "$0")/lib.bash"
: "${MG_SOURCE_DIR:?}"
command -v chromium >/dev/null || { echo "skipped: chromium is not installed (scripts/deps.txt lists it)"; exit 77; }
command -v python3 >/dev/null || { echo "skipped: python3 is needed"; exit 77; }
unshare -n true 2>/dev/null || { echo "skipped: unshare -n (root) is needed to keep Chromium off the network"; exit 77; }
check="$MG_SOURCE_DIR/tests/cli/report_page_check.py"
cd "$TMP" || fail "no temp dir"

train() {  # train JSON [HTML]
  local html=()
  [[ -n ${2:-} ]] && html=(--html "$2")
  expect_status 0 "$MGBENCH" --device cpu --devices 1,2 --model tiny --batch-size 8 --steps 12 --warmup 2 \
    --no-progress --json "$1" "${html[@]}"
}
train sweep.json train.html
train sweep2.json
expect_status 0 "$MGBENCH" comm --device cpu --devices 2 -b 1K -e 1M -f 4 --iters 5 --warmup 2 \
  --transport auto,tcp --json comm.json --html comm.html
"$MGBENCH" compare sweep.json sweep2.json --json cmp.json --html cmp.html >/dev/null 2>"$TMP/err"
[[ $? -le 1 ]] || { cat "$TMP/err"; fail "compare failed"; }
# The prediction: `mgbench predict` from a real 1-device profile, for the device counts the sweep measured.
expect_status 0 "$MGBENCH" --device cpu --devices 1 --model tiny --batch-size 8 --steps 12 --warmup 2 \
  --no-progress --json profile.json
expect_status 0 "$MGBENCH" predict --profile profile.json --gpus 1,2 --link pcie4,bw=1Gbit,lat=50us --json pred.json
expect_status 0 "$MGBENCH" report sweep.json pred.json comm.json cmp.json -o all.html
expect_status 0 "$MGBENCH" report pred.json -o pred.html

# Tampered copies: one fetches an image and a stylesheet, one has a plot whose data was removed.
python3 - all.html external.html blank.html <<'PY'
import re, sys
html = open(sys.argv[1]).read()
open(sys.argv[2], "w").write(html.replace("<body>", '<body><img src="http://127.0.0.1:9/x.png">'
                                          '<link rel="stylesheet" href="http://127.0.0.1:9/x.css">', 1))
first = html.index('<svg class="plot"')
end = html.index("</svg>", first)
svg = re.sub(r'<g class="(series|legend|bar)">.*?</g>\n', "", html[first:end], flags=re.S)
open(sys.argv[3], "w").write(html[:first] + svg + html[end:])
PY

# render PAGE: PNG and Chromium's log beside it; the window is tall enough for the whole page.
render() {
  local page=$1 height
  height=$(python3 - "$page" <<'PY'
import re, sys
h = open(sys.argv[1]).read()
est = sum(float(x) for x in re.findall(r'<svg class="plot" width="[0-9.]+" height="([0-9.]+)"', h))
est += 24 * h.count("<tr") + 24 * h.count("<dt>") + 60 * (h.count("<h2") + h.count("<h3")) + 50 * h.count('class="caption"')
print(min(16000, int(est * 1.3) + 600))
PY
)
  rm -rf "$TMP/profile"
  timeout 180 unshare -n chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync --user-data-dir="$TMP/profile" \
    --hide-scrollbars --force-device-scale-factor=1 --window-size=1000,"$height" --enable-logging=stderr --v=0 \
    --screenshot="$TMP/${page%.html}.png" "file://$TMP/$page" >"$TMP/${page%.html}.out" 2>"$TMP/${page%.html}.log"
  [[ -s $TMP/${page%.html}.png ]] || { cat "$TMP/${page%.html}.log"; fail "$page: chromium wrote no screenshot"; }
}

for page in train.html comm.html cmp.html pred.html all.html; do
  render "$page"
  python3 "$check" "$page" "${page%.html}.png" "${page%.html}.log" || fail "$page: the rendered page failed the check"
done
grep -q "dashed\|predicted" all.html || fail "all.html: no predicted series"

render external.html
python3 "$check" external.html external.png external.log >"$TMP/out" && fail "external requests went unnoticed"
grep -q "browser console" "$TMP/out" || { cat "$TMP/out"; fail "the browser did not report the blocked requests"; }
render blank.html
python3 "$check" blank.html blank.png blank.log >"$TMP/out" && fail "a plot without data went unnoticed"
grep -q "is blank" "$TMP/out" || { cat "$TMP/out"; fail "the blank plot was not reported as blank"; }
[[ -n ${MG_REPORT_PNG_DIR:-} ]] && cp "$TMP"/*.png "$MG_REPORT_PNG_DIR"/
echo "ok"
