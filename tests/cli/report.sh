#!/usr/bin/env bash
# `mgbench report` and --html as a user runs them: pages from a real CPU sweep, comm sweep and compare, every
# section present, nothing to fetch; unusable input is one line, exit 2 and no file.
source "$(dirname "$0")/lib.bash"
command -v python3 >/dev/null || { echo "skipped: python3 is needed"; exit 77; }
cd "$TMP" || fail "no temp dir"

expect_status 0 "$MGBENCH" --device cpu --devices 1,2 --model tiny --batch-size 8 --steps 8 --warmup 2 --no-progress \
  --json a.json --html a.html
expect_status 0 "$MGBENCH" --device cpu --devices 1,2 --model tiny --batch-size 8 --steps 8 --warmup 2 --no-progress \
  --json b.json
expect_status 0 "$MGBENCH" comm --device cpu --devices 2 -b 1K -e 64K -f 4 --iters 3 --warmup 1 --json comm.json \
  --html comm.html
"$MGBENCH" compare a.json b.json --json cmp.json --html cmp.html >/dev/null 2>err
[[ $? -le 1 ]] || { cat err; fail "compare failed"; }
expect_status 0 "$MGBENCH" report a.json b.json comm.json cmp.json -o all.html
grep -q "wrote all.html" "$TMP/out" || fail "report did not say what it wrote"

# Each page holds what its inputs support, names every series, and fetches nothing.
has() { grep -q -- "$2" "$1" || fail "$1: missing '$2'"; }
lacks() { ! grep -q -- "$2" "$1" || fail "$1: unexpected '$2'"; }
for p in a.html comm.html cmp.html all.html; do
  has "$p" "Content-Security-Policy"
  for bad in "<script" "<link" "http://" "https://" " src=" " href="; do lacks "$p" "$bad"; done
  has "$p" '<h2>Environment</h2>'
done
has a.html "Throughput vs device count"
has a.html "Scaling efficiency"
has a.html "Step breakdown: tiny"
has a.html "Step-time distribution: tiny"
has a.html "command line"
lacks a.html "Collective communication"
has comm.html "Bus bandwidth vs message size"
has comm.html ">auto allreduce (out-of-place, 2 ranks)</text>"
has comm.html ">1 KiB</text>"
has cmp.html "Comparison: compare"
has cmp.html ">tiny fp32 cpu train synthetic-device default x2</text>"
has all.html ">a</text>"   # series labelled by file when there are several
has all.html ">b</text>"
has all.html "Step breakdown: b"
has all.html "Time per collective vs message size: comm"
has all.html "Comparison: cmp"
# A prediction is drawn dashed and labelled as such.
python3 -c "
import json; d = json.load(open('a.json')); d['kind'] = 'prediction'
for r in d['runs']: r['samples'] = {k: [] for k in r['samples']}; r['run_samples'] = []
json.dump(d, open('p.json', 'w'))"
expect_status 0 "$MGBENCH" report a.json p.json -o pred.html
has pred.html ">p (predicted)</text>"
has pred.html 'stroke-dasharray="7 4"'
has pred.html "prediction (simulated, not measured)"

# Unusable input: one line, exit 2, no page.
echo '{"hello": 1}' >other.json
echo 'not json' >broken.json
expect_usage_error "no input files" "$MGBENCH" report -o x.html
expect_usage_error "other.json: not an mgbench result" "$MGBENCH" report a.json other.json -o x.html
expect_usage_error "broken.json: not valid JSON" "$MGBENCH" report broken.json -o x.html
expect_usage_error "cannot read missing.json" "$MGBENCH" report missing.json -o x.html
python3 -c "import json; d = json.load(open('a.json')); d['kind'] = 'guess'; json.dump(d, open('kind.json', 'w'))"
expect_usage_error "kind.json: .*not a result kind" "$MGBENCH" report kind.json -o x.html
expect_usage_error "cannot write" "$MGBENCH" report a.json -o "$TMP/no/such/dir/x.html"
[[ ! -e x.html ]] || fail "a page was written for unusable input"
expect_usage_error "--html .*does not exist" "$MGBENCH" --device cpu --model tiny --steps 2 --html "$TMP/no/x.html"
# An existing page is replaced only by a complete one.
cp all.html keep.html
expect_usage_error "other.json" "$MGBENCH" report other.json -o keep.html
cmp -s all.html keep.html || fail "a failed report touched an existing page"
echo "ok"
