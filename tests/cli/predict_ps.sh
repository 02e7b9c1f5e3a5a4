#!/usr/bin/env bash
# --allreduce ps, measured and predicted alike: mgbench comm measures all-reduce done as reduce to rank 0 plus
# broadcast (results checked), --op reduce sums on the root, training with ps keeps the replicas identical and
# (two replicas: a + b either way) gives the very weights the ring gives; predict costs ps above the ring.
source "$(dirname "$0")/lib.bash"
expect_status 0 "$MGBENCH" comm --device cpu --devices 3 --op allreduce --allreduce ps -b 1K -e 64K -f 8 --iters 3 \
  --warmup 1 --json "$TMP/ps.json"
grep -q "allreduce as ps" "$TMP/out" || { cat "$TMP/out"; fail "comm table does not say ps"; }
json_check "$TMP/ps.json" "d['allreduce'] == 'ps' and len(d['results']) >= 4 and all(r['wrong'] == 0 for r in d['results'])" \
  || fail "ps comm result"
expect_status 0 "$MGBENCH" comm --device cpu --devices 3 --op reduce --root 2 -b 1K -e 8K --iters 2 --warmup 0 --json "$TMP/red.json"
json_check "$TMP/red.json" "all(r['wrong'] == 0 and r['op'] == 'reduce' for r in d['results'])" || fail "reduce comm result"
expect_usage_error "applies to --op allreduce" "$MGBENCH" comm --device cpu --devices 2 --op broadcast --allreduce ps
expect_usage_error "not one of: ring, ps" "$MGBENCH" comm --device cpu --devices 2 --allreduce tree

train=(--device cpu --model tiny --num-classes 10 --batch-size 8 --steps 3 --warmup 1 --no-progress --devices 2 --no-baseline)
"$MGBENCH" "${train[@]}" --allreduce ps --json "$TMP/tps.json" >/dev/null || fail "training with --allreduce ps"
"$MGBENCH" "${train[@]}" --allreduce ring --json "$TMP/tring.json" >/dev/null || fail "training with --allreduce ring"
json_check "$TMP/tps.json" "d['config']['allreduce'] == 'ps' and d['runs'][0]['replicas_identical'] and d['runs'][0]['allreduce']['library'] == 'local'" \
  || fail "ps training result"
a=$(json_get "$TMP/tps.json" "d['runs'][0]['replica_checksums'][0]")
b=$(json_get "$TMP/tring.json" "d['runs'][0]['replica_checksums'][0]")
[[ "$a" == "$b" ]] || fail "ps and ring training of two replicas differ ($a vs $b)"

# predict: the profile's strategy is the default, --allreduce overrides it; ps costs more than the ring at 8.
"$MGBENCH" --device cpu --model tiny --num-classes 10 --batch-size 8 --steps 3 --warmup 1 --no-progress --devices 1 \
  --allreduce ps --json "$TMP/prof.json" >/dev/null || fail "profile"
"$MGBENCH" predict --profile "$TMP/prof.json" --gpus 8 --link bw=1GB/s --json "$TMP/pps.json" >/dev/null || fail "predict ps"
"$MGBENCH" predict --profile "$TMP/prof.json" --gpus 8 --link bw=1GB/s --allreduce ring --json "$TMP/pring.json" >/dev/null || fail "predict ring"
json_check "$TMP/pps.json" "d['config']['allreduce'] == 'ps' and d['runs'][0]['allreduce']['library'] == 'ps'" || fail "ps not the default"
ps_t=$(json_get "$TMP/pps.json" "d['runs'][0]['allreduce']['time_s']")
ring_t=$(json_get "$TMP/pring.json" "d['runs'][0]['allreduce']['time_s']")
python3 -c "import sys; sys.exit(0 if $ps_t > 3 * $ring_t else 1)" || fail "ps ($ps_t s) should cost ~8x the ring ($ring_t s) at 8 GPUs"
# A link must be described by a ring measurement.
expect_usage_error "allreduce ps" "$MGBENCH" predict --profile "$TMP/prof.json" --link "$TMP/ps.json"
echo "predict ps: ok"
