#!/usr/bin/env bash
# One process per device: under mpirun, and under torchrun-style RANK/WORLD_SIZE/MASTER_ADDR variables.
# Only rank 0 prints and writes, and its result covers both ranks.
source "$(dirname "$0")/lib.bash"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,tcp OMPI_MCA_btl_tcp_if_include=lo \
  OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_rmaps_base_oversubscribe=1
args=(--device cpu --model tiny --num-classes 10 --batch-size 8 --steps 4 --warmup 1 --threads 1 --no-progress)

if command -v mpirun >/dev/null; then
  expect_status 0 timeout 300 mpirun --oversubscribe -np 2 "$MGBENCH" "${args[@]}" --json "$TMP/mpi.json"
  [[ $(json_get "$TMP/mpi.json" "d['runs'][0]['devices']") == 2 ]] || fail "mpirun: result must cover 2 ranks"
  [[ $(json_get "$TMP/mpi.json" "d['environment']['launcher']") == mpi ]] || fail "mpirun: launcher"
  json_check "$TMP/mpi.json" "d['runs'][0]['replicas_identical']" || fail "mpirun: ranks diverged"
  [[ $(grep -c "images/s" "$TMP/out") -eq 1 ]] || fail "mpirun: only rank 0 prints the table"
else
  echo "mpirun not installed: MPI part skipped"
fi

port=$(free_port)
for r in 0 1; do
  RANK=$r WORLD_SIZE=2 LOCAL_RANK=$r MASTER_ADDR=127.0.0.1 MASTER_PORT=$port \
    timeout 300 "$MGBENCH" "${args[@]}" --json "$TMP/env$r.json" >"$TMP/env$r.out" 2>&1 &
  pids[$r]=$!
done
wait "${pids[0]}" || { cat "$TMP/env0.out"; fail "env launch: rank 0 failed"; }
wait "${pids[1]}" || { cat "$TMP/env1.out"; fail "env launch: rank 1 failed"; }
[[ -f "$TMP/env0.json" && ! -e "$TMP/env1.json" ]] || fail "env launch: only rank 0 writes the result"
[[ $(json_get "$TMP/env0.json" "d['runs'][0]['devices']") == 2 ]] || fail "env launch: result must cover 2 ranks"
[[ $(json_get "$TMP/env0.json" "d['environment']['launcher']") == env ]] || fail "env launch: launcher"

# World-size mismatch between launcher and options.
RANK=0 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port expect_usage_error "world size" \
  "$MGBENCH" "${args[@]}" --gpus 4
# Ranks launched with different options are refused before any collective, naming the mismatch.
port=$(free_port)
RANK=0 WORLD_SIZE=2 LOCAL_RANK=0 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port timeout 120 "$MGBENCH" "${args[@]}" \
  --comm-timeout 30 >"$TMP/m0.out" 2>&1 &
m0=$!
RANK=1 WORLD_SIZE=2 LOCAL_RANK=1 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port timeout 120 "$MGBENCH" "${args[@]}" \
  --comm-timeout 30 --seed 7 >"$TMP/m1.out" 2>&1
s1=$?
wait $m0
s0=$?
[[ $s0 -ne 0 && $s1 -ne 0 ]] || { cat "$TMP/m0.out" "$TMP/m1.out"; fail "mismatched options: both ranks must fail"; }
grep -q "different options.*seed=[0-9]* vs seed=[0-9]*" "$TMP/m0.out" "$TMP/m1.out" \
  || { cat "$TMP/m0.out" "$TMP/m1.out"; fail "mismatch not named"; }
echo "ok"
