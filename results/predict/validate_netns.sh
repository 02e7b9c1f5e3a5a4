#!/usr/bin/env bash
# Validation of `mgbench predict` against real two-rank runs: two network namespaces joined by veth (see
# tests/cli/netns.bash), the link shaped with tc tbf to a rate. (No delay: this kernel has no sch_netem; tbf,
# htb and pfifo are the qdiscs it offers.) For every case, alternating on the same (shared, loaded) machine: a
# 1-device profile (same options, same thread count), then the two-rank run across the link. The link model of
# the prediction is a `mgbench comm` all-reduce sweep across the same shaped link with the case's wire dtype
# ("comm" link); the tc rate alone ("spec" link: bw=RATE,lat=0) is predicted too. Needs root (ip netns, tc).
#   MGBENCH=build/mgbench results/predict/validate_netns.sh OUTDIR [full|quick|repredict]
# quick: one link (100 Mbit/s) and one case (what tests/cli/predict_netns.sh runs). repredict: only the
# predictions again, from OUTDIR's raw profiles, comm curves and measurements (no namespaces, no root).
set -u
: "${MGBENCH:?MGBENCH must point at the mgbench binary}"
out=${1:?usage: validate_netns.sh OUTDIR [full|quick|repredict]}
mode=${2:-full}
here=$(cd "$(dirname "$0")/../.." && pwd)
cases="$out/cases.tsv"

predict_case() {  # predict_case NAME LINKTAG RATE DTYPE: both predictions of one measured case
  local name=$1 tag=$2 rate=$3 dtype=$4
  "$MGBENCH" predict --profile "$out/raw/$name.profile.json" --gpus 2 --link "$out/raw/${tag}_comm_${dtype}.json" \
    --measured "$out/raw/$name.measured.json" --json "$out/raw/$name.pred_comm.json" >"$out/raw/$name.pred_comm.txt" \
    || { echo "FAIL: predict $name"; exit 1; }
  "$MGBENCH" predict --profile "$out/raw/$name.profile.json" --gpus 2 --link "bw=$rate,lat=0" \
    --measured "$out/raw/$name.measured.json" --json "$out/raw/$name.pred_spec.json" >"$out/raw/$name.pred_spec.txt" \
    || { echo "FAIL: predict spec $name"; exit 1; }
}

if [ "$mode" = repredict ]; then
  while IFS=$'\t' read -r name rate model bucket overlap dtype load when; do
    predict_case "$name" "${name%%_*}" "$rate" "$dtype"
  done <"$cases"
  python3 "$here/results/predict/summarize.py" "$out"
  exit $?
fi

source "$here/tests/cli/netns.bash"
mkdir -p "$out/raw"
: >"$cases"
port=29900

shape() {  # shape RATE: a token bucket on both directions of the link
  ip netns exec "$ns0" tc qdisc replace dev "$v0" root tbf rate "$1" burst 256kb latency 400ms || fail "tc on $v0"
  ip netns exec "$ns1" tc qdisc replace dev "$v1" root tbf rate "$1" burst 256kb latency 400ms || fail "tc on $v1"
}

pair() {  # pair JSON ARGS...: one rank in each namespace, rank 0 writes JSON
  local json=$1; shift
  port=$((port + 1))
  pids=()
  ip netns exec "$ns0" env RANK=0 WORLD_SIZE=2 LOCAL_RANK=0 MASTER_ADDR=10.231.0.1 MASTER_PORT=$port \
    "$MGBENCH" "$@" --gloo-iface "$v0" --json "$json" >"$tmp/0.out" 2>&1 &
  pids+=($!)
  ip netns exec "$ns1" env RANK=1 WORLD_SIZE=2 LOCAL_RANK=0 MASTER_ADDR=10.231.0.1 MASTER_PORT=$port \
    "$MGBENCH" "$@" --gloo-iface "$v1" >"$tmp/1.out" 2>&1 &
  pids+=($!)
  wait "${pids[0]}" || { cat "$tmp/0.out" "$tmp/1.out"; fail "rank 0 failed: $*"; }
  wait "${pids[1]}" || { cat "$tmp/0.out" "$tmp/1.out"; fail "rank 1 failed: $*"; }
  pids=()
}

common=(--device cpu --threads 1 --no-progress --comm-timeout 300 --warmup 2)
model_args() {
  case $1 in
    resnet18) echo "--model resnet18 --image-size 32 --num-classes 10 --batch-size 16 --steps 8" ;;
    tiny) echo "--model tiny --num-classes 10 --batch-size 128 --steps 40" ;;
  esac
}

run_case() {  # run_case LINKTAG RATE MODEL BUCKET OVERLAP DTYPE
  local tag=$1 rate=$2 model=$3 bucket=$4 overlap=$5 dtype=$6
  local name="${tag}_${model}_b${bucket}_${overlap}_${dtype}"
  local args=("${common[@]}" $(model_args "$model") --bucket-mb "$bucket" --allreduce-dtype "$dtype")
  [ "$overlap" = nooverlap ] && args+=(--no-overlap)
  # Alternating: the profile right before the measured pair, under the same machine load. The two "hosts" share
  # this VM's two cores, so the profile is taken the same way: two independent 1-device runs at once, one per
  # namespace (each host busy with its own replica), rank 0's kept.
  ip netns exec "$ns1" "$MGBENCH" "${args[@]}" >/dev/null 2>&1 &
  local other=$!
  ip netns exec "$ns0" "$MGBENCH" "${args[@]}" --json "$out/raw/$name.profile.json" >/dev/null 2>&1 \
    || fail "profile $name"
  wait "$other" || fail "second profile $name"
  pair "$out/raw/$name.measured.json" "${args[@]}"
  predict_case "$name" "$tag" "$rate" "$dtype"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$rate" "$model" "$bucket" "$overlap" "$dtype" \
    "$(cut -d' ' -f1 /proc/loadavg)" "$(date -u +%T)" >>"$cases"
  echo "$name done (load $(cut -d' ' -f1 /proc/loadavg))"
}

link() {  # link TAG RATE CASES...: shape, measure the comm curves, run the cases ("model:bucket:overlap:dtype")
  local tag=$1 rate=$2; shift 2
  shape "$rate"
  local dtypes=(fp32 bf16) largest=16M
  [ "$mode" = quick ] && dtypes=(fp32) largest=4M  # quick uses 1 MiB buckets only
  for dt in "${dtypes[@]}"; do
    pair "$out/raw/${tag}_comm_${dt}.json" comm --device cpu --op allreduce -b 16K -e "$largest" -f 4 --warmup 2 \
      --iters 8 --dtype "$dt" --comm-timeout 300
  done
  for c in "$@"; do
    IFS=: read -r m b o d <<<"$c"
    run_case "$tag" "$rate" "$m" "$b" "$o" "$d"
  done
}

echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
if [ "$mode" = quick ]; then
  link q100 100mbit resnet18:1:overlap:fp32
else
  full=(resnet18:1:overlap:fp32 resnet18:25:overlap:fp32 resnet18:1:nooverlap:fp32 resnet18:25:nooverlap:fp32
        resnet18:25:overlap:bf16 tiny:25:overlap:fp32 tiny:25:nooverlap:fp32 tiny:25:overlap:bf16)
  link r100 100mbit "${full[@]}"
  link r300 300mbit "${full[@]}"
  link r1000 1000mbit "${full[@]}"
fi
python3 "$here/results/predict/summarize.py" "$out"
