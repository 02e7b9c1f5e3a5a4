#!/usr/bin/env bash
# A CPU sweep of 1 and 2 replicas end to end: table on stdout, JSON with both runs, a trace with per-replica tracks.
source "$(dirname "$0")/lib.bash"

expect_status 0 "$MGBENCH" --device cpu --gpus 1,2 --model tiny --num-classes 10 --batch-size 8 --steps 5 \
  --warmup 1 --repeat 2 --synthetic-source host --json "$TMP/r.json" --trace "$TMP/t.json"
grep -q "images/s" "$TMP/out" || fail "no table on stdout"
[[ -f "$TMP/r.json" ]] || fail "no JSON written"
[[ $(json_get "$TMP/r.json" "len(d['runs'])") == 2 ]] || fail "expected 2 runs"
[[ $(json_get "$TMP/r.json" "[r['devices'] for r in d['runs']]") == "[1, 2]" ]] || fail "device counts"
[[ $(json_get "$TMP/r.json" "len(d['runs'][1]['samples']['total_s'])") == 10 ]] || fail "5 steps x 2 repeats"
[[ $(json_get "$TMP/r.json" "d['runs'][0]['scaling_efficiency']") == 1.0 ]] || fail "baseline efficiency"
json_check "$TMP/r.json" "d['runs'][1]['images_per_sec'] > 0 and d['runs'][1]['allreduce']['busbw_GBps'] > 0" \
  || fail "2-replica throughput and bus bandwidth"
json_check "$TMP/r.json" "d['runs'][1]['replicas_identical']" || fail "replicas diverged"
json_get "$TMP/r.json" "d['environment']['versions']['onednn']" >/dev/null || fail "environment versions"
python3 - "$TMP/t.json" <<'PY' || fail "trace"
import json, sys
t = json.load(open(sys.argv[1]))
ev = t["traceEvents"] if isinstance(t, dict) else t
spans = [e for e in ev if e.get("ph") == "X"]
pids = {e["pid"] for e in spans}
assert len(pids) == 2, pids                      # one process track per replica
names = {e["name"] for e in spans}
assert any(n.startswith("all-reduce") for n in names), names
assert any(n.startswith("host-to-device") for n in names), names   # copy track (host staging)
tids = {(e["pid"], e["tid"]) for e in spans}
assert len(tids) >= 6, tids                     # compute, copy, comm per replica
assert "forward" in names and "backward" in names
PY
echo "ok"
