#!/usr/bin/env bash
# `mgbench comm` on CPU replicas in one process: a sweep with --json (parsed and checked with python3), every
# collective and dtype correct, and bad input rejected with one line and exit status 2.
set -u
: "${MGBENCH:?MGBENCH must point at the mgbench binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() { echo "FAIL: $*"; exit 1; }

"$MGBENCH" comm --device cpu --devices 3 --op allreduce -b 8 -e 1M -f 8 --warmup 1 --iters 3 \
  --json "$tmp/ar.json" >"$tmp/ar.out" 2>&1 || { cat "$tmp/ar.out"; fail "allreduce sweep exited non-zero"; }
grep -q "# mgbench comm: allreduce" "$tmp/ar.out" || fail "no table header"
python3 - "$tmp/ar.json" <<'PY' || fail "JSON check"
import json, sys
j = json.load(open(sys.argv[1]))
rows = j["results"]
assert len(rows) == 2 * 6, len(rows)          # 8, 64, ..., 256K: 6 sizes, out of place and in place
need = {"op", "bytes", "in_place", "time_us", "algbw_GBps", "busbw_GBps", "wrong", "transport", "devices"}
for r in rows:
    assert need <= set(r), set(r)
    assert r["op"] == "allreduce" and r["wrong"] == 0 and r["devices"] == 3 and r["transport"] == "auto", r
    assert r["time_us"] > 0
    assert abs(r["algbw_GBps"] - r["bytes"] / (r["time_us"] * 1e3)) <= 1e-9 + 1e-6 * r["algbw_GBps"], r
    assert abs(r["busbw_GBps"] - r["algbw_GBps"] * 2 * 2 / 3) <= 1e-9 + 1e-6 * r["busbw_GBps"], r
assert [r["bytes"] for r in rows[::2]] == [8, 64, 512, 4096, 32768, 262144]
assert [r["in_place"] for r in rows[:2]] == [False, True]
env = j["environment"]
for k in ("host", "mgbench_version", "git_commit", "libraries", "command_line", "ranks", "topology"):
    assert k in env, k
assert env["ranks"] == 3 and env["launcher"] == "none"
print("json ok:", len(rows), "rows")
PY

# --min-time: a size whose --iters loop is shorter than the time gets more iterations (the same on every rank,
# or the collectives would deadlock); one that is already long enough keeps --iters. The count is per row.
"$MGBENCH" comm --device cpu --devices 2 -b 4K -e 4K --warmup 1 --iters 2 --min-time 0.05 --json "$tmp/mt.json" \
  >"$tmp/mt.out" 2>&1 || { cat "$tmp/mt.out"; fail "--min-time exited non-zero"; }
grep -q "more while a size's loop is shorter than 0.05 s" "$tmp/mt.out" || { cat "$tmp/mt.out"; fail "--min-time header"; }
python3 -c "
import json; j=json.load(open('$tmp/mt.json'))
assert j['min_time_s'] == 0.05 and j['iters'] == 2
for r in j['results']:
    # The last loop lasted the time (as rank 0 timed it; time_us is the mean over ranks): 2 iterations of a 4 KiB
    # exchange between threads cannot, unless a stall made them, so this fails when the count never grows.
    assert r['wrong'] == 0 and r['iters'] * r['time_us'] * 1e-6 >= 0.05 * 0.5, r
" || fail "--min-time rows"
"$MGBENCH" comm --device cpu --devices 2 -b 4K -e 4K --warmup 0 --iters 3 --json "$tmp/it.json" >/dev/null 2>&1 || fail "--iters run"
python3 -c "
import json; j=json.load(open('$tmp/it.json'))
assert j['min_time_s'] == 0 and all(r['iters'] == 3 for r in j['results']), j['results']
" || fail "without --min-time a row has exactly --iters"

for op in reducescatter allgather broadcast; do
  for dt in fp16 bf16; do
    "$MGBENCH" comm --device cpu --devices 2 --op "$op" --dtype "$dt" -b 1K -e 64K -f 8 --warmup 0 --iters 2 \
      --root 1 --transport tcp --json "$tmp/$op.json" >"$tmp/$op.out" 2>&1 ||
      { cat "$tmp/$op.out"; fail "$op $dt exited non-zero"; }
    python3 -c "
import json,sys; j=json.load(open('$tmp/$op.json'))
assert all(r['wrong']==0 and r['op']=='$op' and r['dtype']=='$dt' and r['transport']=='tcp' for r in j['results'])
" || fail "$op $dt results"
  done
done

# Several transports: each entry runs in a fresh process (NCCL reads NCCL_* once per process); one JSON.
"$MGBENCH" comm --device cpu --devices 2 -b 1K -e 4K -f 4 --warmup 0 --iters 2 --transport auto,tcp \
  --json "$tmp/tr.json" >"$tmp/tr.out" 2>&1 || { cat "$tmp/tr.out"; fail "--transport auto,tcp exited non-zero"; }
[ "$(grep -c '# mgbench comm' "$tmp/tr.out")" -eq 2 ] || { cat "$tmp/tr.out"; fail "expected one table per transport"; }
grep -q "2 ranks (cpu, local), transport auto" "$tmp/tr.out" || { cat "$tmp/tr.out"; fail "auto is not local"; }
grep -q "2 ranks (cpu, gloo), transport tcp" "$tmp/tr.out" || { cat "$tmp/tr.out"; fail "tcp is not gloo"; }
python3 -c "
import json; j=json.load(open('$tmp/tr.json'))
assert [r['transport'] for r in j['results']] == ['auto'] * 4 + ['tcp'] * 4, j['results']
# Replica threads exchange through shared memory unless tcp asks for Gloo.
assert [r['library'] for r in j['results']] == ['local'] * 4 + ['gloo'] * 4, j['results']
assert set(j['environment']['transport_env']) == {'auto', 'tcp'}
assert all(r['wrong'] == 0 for r in j['results'])
" || fail "merged transport JSON"
RANK=0 WORLD_SIZE=1 "$MGBENCH" comm --device cpu --transport auto,tcp >"$tmp/l.out" 2>"$tmp/l.err"
[ $? -eq 2 ] && grep -q "fresh process per entry" "$tmp/l.err" || { cat "$tmp/l.err"; fail "several transports under a launcher"; }

# Bad input: one line on stderr, exit 2, no result file.
expect_usage() {
  local want="$1"; shift
  rm -f "$tmp/bad.json"
  "$MGBENCH" comm --device cpu --devices 2 --json "$tmp/bad.json" "$@" >"$tmp/bad.out" 2>"$tmp/bad.err"
  local rc=$?
  [ "$rc" -eq 2 ] || { cat "$tmp/bad.err"; fail "'$*' exited $rc, expected 2"; }
  [ "$(wc -l <"$tmp/bad.err")" -eq 1 ] || { cat "$tmp/bad.err"; fail "'$*' printed more than one line"; }
  grep -q -- "$want" "$tmp/bad.err" || { cat "$tmp/bad.err"; fail "'$*' message lacks '$want'"; }
  [ ! -e "$tmp/bad.json" ] || fail "'$*' wrote a result file"
}
expect_usage "reversed" -b 1M -e 8
expect_usage "at least 1 byte" -b 0 -e 8
expect_usage "allreduce, reducescatter, allgather, broadcast" --op alltoall
expect_usage "unknown" --transport carrier-pigeon
expect_usage "does not apply to --device cpu" --transport shm
expect_usage "fp32, fp16, bf16" --dtype int8
expect_usage "K, M or G" -e 12Q
expect_usage "--min-time must be" --min-time -1
"$MGBENCH" comm --device cuda --transport local >/dev/null 2>"$tmp/bad.err"
[ $? -eq 2 ] && grep -q "does not apply to --device cuda" "$tmp/bad.err" || { cat "$tmp/bad.err"; fail "local on cuda"; }
echo "comm cpu sweep: ok"
