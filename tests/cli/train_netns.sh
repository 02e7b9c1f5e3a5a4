#!/usr/bin/env bash
# Multi-host training: one rank in each of two network namespaces (two "hosts" on a veth link), Gloo across
# them, bootstrapped from RANK/WORLD_SIZE/MASTER_ADDR. Rank 0's result covers both ranks, whose weights agree.
set -u
: "${MGBENCH:?MGBENCH must point at the mgbench binary}"
source "$(dirname "$0")/netns.bash"
args=(--device cpu --model tiny --num-classes 10 --batch-size 8 --steps 4 --warmup 1 --threads 1 --no-progress
      --comm-timeout 60)
ip netns exec "$ns0" env RANK=0 WORLD_SIZE=2 LOCAL_RANK=0 MASTER_ADDR=10.231.0.1 MASTER_PORT=29811 \
  "$MGBENCH" "${args[@]}" --gloo-iface "$v0" --json "$tmp/r.json" >"$tmp/0.out" 2>&1 &
pids+=($!)
ip netns exec "$ns1" env RANK=1 WORLD_SIZE=2 LOCAL_RANK=0 MASTER_ADDR=10.231.0.1 MASTER_PORT=29811 \
  "$MGBENCH" "${args[@]}" --gloo-iface "$v1" >"$tmp/1.out" 2>&1 &
pids+=($!)
wait "${pids[0]}" || { cat "$tmp/0.out" "$tmp/1.out"; fail "rank 0 failed"; }
wait "${pids[1]}" || { cat "$tmp/0.out" "$tmp/1.out"; fail "rank 1 failed"; }
pids=()
python3 - "$tmp/r.json" <<'PY' || fail "result check"
import json, sys
d = json.load(open(sys.argv[1]))
r = d["runs"][0]
assert r["devices"] == 2 and d["environment"]["launcher"] == "env", (r["devices"], d["environment"]["launcher"])
assert r["replicas_identical"] and len(r["replica_checksums"]) == 2, r["replica_checksums"]
assert r["allreduce"]["library"] == "gloo" and r["allreduce"]["busbw_GBps"] > 0
PY
echo "train netns: ok"
