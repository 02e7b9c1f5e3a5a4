#!/usr/bin/env bash
# Multi-host Gloo across two network namespaces joined by a veth pair (10.231.0.1/24 and 10.231.0.2/24, used
# only inside them), one rank in each. The link is shaped with tc tbf to 100 Mbit/s and then 400 Mbit/s; the
# all-reduce bus bandwidth must rank the two links the same way. Skipped where namespaces cannot be made.
set -u
: "${MGBENCH:?MGBENCH must point at the mgbench binary}"
source "$(dirname "$0")/netns.bash"

shape() {  # shape RATE: token-bucket limit on both directions of the link
  ip netns exec "$ns0" tc qdisc replace dev "$v0" root tbf rate "$1" burst 256kb latency 200ms || fail "tc on $v0"
  ip netns exec "$ns1" tc qdisc replace dev "$v1" root tbf rate "$1" burst 256kb latency 200ms || fail "tc on $v1"
}

run_pair() {  # run_pair NAME [extra args for rank 0] -- [extra args for rank 1]; prints the mean busbw (GB/s)
  local name=$1 port=29711
  local args=(comm --device cpu --op allreduce -b 2M -e 2M --warmup 1 --iters 3 --comm-timeout 60)
  pids=()
  ip netns exec "$ns0" env RANK=0 WORLD_SIZE=2 MASTER_ADDR=10.231.0.1 MASTER_PORT=$port \
    "$MGBENCH" "${args[@]}" $2 --json "$tmp/$name.json" >"$tmp/$name.0" 2>&1 &
  pids+=($!)
  ip netns exec "$ns1" env RANK=1 WORLD_SIZE=2 MASTER_ADDR=10.231.0.1 MASTER_PORT=$port \
    "$MGBENCH" "${args[@]}" $3 >"$tmp/$name.1" 2>&1 &
  pids+=($!)
  wait "${pids[0]}" || { cat "$tmp/$name.0" "$tmp/$name.1"; fail "$name: rank 0 failed"; }
  wait "${pids[1]}" || { cat "$tmp/$name.0" "$tmp/$name.1"; fail "$name: rank 1 failed"; }
  pids=()
  python3 -c "
import json; j=json.load(open('$tmp/$name.json')); rows=j['results']
assert rows and all(r['wrong']==0 and r['devices']==2 for r in rows), rows
print(sum(r['busbw_GBps'] for r in rows)/len(rows))" || fail "$name: JSON check"
}

shape 100mbit
slow=$(run_pair slow "" "") || exit 1
shape 400mbit
# The fast run also names the interfaces explicitly (--gloo-iface), the multi-host option users pass.
fast=$(run_pair fast "--gloo-iface $v0" "--gloo-iface $v1") || exit 1
echo "busbw at 100 Mbit/s: $slow GB/s; at 400 Mbit/s: $fast GB/s"
python3 -c "
slow, fast = $slow, $fast
assert slow < 0.0125 * 1.1, 'faster than a 100 Mbit/s link allows: %g GB/s' % slow
assert fast > 1.5 * slow, 'busbw does not follow the link rate: %g vs %g GB/s' % (fast, slow)
" || fail "bandwidth ranking"
echo "comm netns: ok"
