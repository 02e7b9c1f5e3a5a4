#!/usr/bin/env bash
# `mpirun -np 2 mgbench comm --device cpu`: one rank per process, the store address broadcast over MPI,
# one table and one JSON covering both ranks, written by rank 0 only.
set -u
: "${MGBENCH:?MGBENCH must point at the mgbench binary}"
command -v mpirun >/dev/null || { echo "skip: mpirun is not installed"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,tcp
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

timeout 300 mpirun --allow-run-as-root --oversubscribe -np 2 "$MGBENCH" comm --device cpu --op allreduce \
  -b 1K -e 1M -f 32 --warmup 1 --iters 3 --comm-timeout 60 --json "$tmp/mpi.json" >"$tmp/out" 2>&1 ||
  { cat "$tmp/out"; fail "mpirun comm exited non-zero"; }
[ "$(grep -c '# mgbench comm' "$tmp/out")" -eq 1 ] || { cat "$tmp/out"; fail "expected exactly one table (rank 0)"; }
python3 - "$tmp/mpi.json" <<'PY' || fail "JSON check"
import json, sys
j = json.load(open(sys.argv[1]))
env = j["environment"]
assert env["launcher"] == "mpi" and env["processes"] == 2 and env["ranks"] == 2, env
assert len(j["results"]) == 6, len(j["results"])   # 1K, 32K, 1M
for r in j["results"]:
    assert r["devices"] == 2 and r["wrong"] == 0 and r["time_us"] > 0, r
print("mpirun json ok")
PY
echo "comm mpirun: ok"
