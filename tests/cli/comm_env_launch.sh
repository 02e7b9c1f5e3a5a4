#!/usr/bin/env bash
# Two background processes started with torchrun-style RANK/WORLD_SIZE/MASTER_ADDR=127.0.0.1: one result from
# rank 0 covering both ranks; an unreachable MASTER_ADDR and a configuration mismatch fail clearly.
set -u
: "${MGBENCH:?MGBENCH must point at the mgbench binary}"
tmp=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

port=$(free_port)
base=(comm --device cpu --op allgather --dtype bf16 -b 4K -e 256K -f 8 --warmup 1)
for r in 0 1; do
  RANK=$r WORLD_SIZE=2 LOCAL_RANK=$r MASTER_ADDR=127.0.0.1 MASTER_PORT=$port \
    "$MGBENCH" "${base[@]}" --iters 3 --comm-timeout 30 --json "$tmp/r$r.json" >"$tmp/out$r" 2>&1 &
  pids+=($!)
done
for r in 0 1; do wait "${pids[$r]}" || { cat "$tmp/out0" "$tmp/out1"; fail "rank $r exited non-zero"; }; done
pids=()
[ -e "$tmp/r0.json" ] || fail "rank 0 wrote no JSON"
[ ! -e "$tmp/r1.json" ] || fail "rank 1 wrote a JSON file; only rank 0 reports"
grep -q "# mgbench comm" "$tmp/out0" || fail "rank 0 printed no table"
! grep -q "# mgbench comm" "$tmp/out1" || fail "rank 1 printed a table"
python3 -c "
import json; j=json.load(open('$tmp/r0.json'))
assert j['environment']['launcher']=='env' and j['environment']['ranks']==2
assert j['results'] and all(r['wrong']==0 and r['devices']==2 for r in j['results'])
" || fail "JSON check"

# Nobody serves the store: rank 1 gives up within the timeout, naming the address.
port=$(free_port)
start=$(date +%s)
RANK=1 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port timeout 60 "$MGBENCH" "${base[@]}" \
  --comm-timeout 2 >"$tmp/unreach.out" 2>"$tmp/unreach.err"
rc=$?
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || fail "unreachable MASTER_ADDR: exit $rc"
grep -q "cannot reach MASTER_ADDR 127.0.0.1:$port within 2s" "$tmp/unreach.err" || { cat "$tmp/unreach.err"; fail "message"; }
[ $(( $(date +%s) - start )) -le 15 ] || fail "unreachable MASTER_ADDR took too long"
[ "$(wc -l <"$tmp/unreach.err")" -eq 1 ] || { cat "$tmp/unreach.err"; fail "expected one line"; }

# Processes launched with different options: both refuse with a usage error (exit 2).
port=$(free_port)
RANK=0 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port "$MGBENCH" "${base[@]}" --comm-timeout 30 --iters 3 >"$tmp/m0" 2>&1 &
pids=($!)
RANK=1 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port "$MGBENCH" "${base[@]}" --comm-timeout 30 --iters 4 >"$tmp/m1" 2>&1 &
pids+=($!)
wait "${pids[0]}"; rc0=$?
wait "${pids[1]}"; rc1=$?
pids=()
[ "$rc0" -eq 2 ] && [ "$rc1" -eq 2 ] || { cat "$tmp/m0" "$tmp/m1"; fail "mismatch: exit $rc0/$rc1, expected 2/2"; }
grep -q "disagree.*iters=3 vs iters=4" "$tmp/m0" || { cat "$tmp/m0"; fail "mismatch message"; }
echo "comm env launch: ok"
