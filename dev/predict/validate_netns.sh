#!/usr/bin/env bash
# Validation of `mgbench predict` against real two-rank runs across a link of known rate and delay between two
# network namespaces (see tests/cli/netns.bash). This kernel has no sch_netem (nor sch_fq for a BPF delay), so
# the link is a delay line, dev/predict/netwire.cpp: one TAP device in each namespace, every frame handed to
# the other side a fixed time after it left (0 or 2 ms one way), in order; the rate is tc tbf on each TAP's
# egress, as on the veth of the older runs. Per link, first a check of what the link really does
# (linkcheck.py: TCP round trip and bulk rate, raw/<link>_linkcheck.txt), then `mgbench comm` all-reduce sweeps
# in fp32 and bf16 (the "comm curve" link model), then the cases. Per case, alternating on the same machine:
# a 1-device profile (same options, same thread count; two at once, one per namespace, because the two "hosts"
# share this VM's cores), then the two-rank run across the link, then the predictions from the comm curve and
# from the tc numbers alone ("spec": bw=RATE,lat=DELAY,transport=gloo-tcp with the TAPs' MTU and tbf's burst;
# campaigns up to 2026-11-27 used bw=RATE,lat=DELAY, which reeval_numbers_only.py re-predicts). A `tiny` case is
# that sequence TINY_REPEATS times
# (default 5; a ResNet-18 case once) and scripts/measure/predict-summarize.py takes the median of each figure over the
# repetitions: one `tiny` run lasts under a second and its rate moves by +-15 % from one run to the next on this VM, so a single
# run against a single prediction measures the VM (results/predict/HISTORY.md, 2026-11-27). Needs root (ip netns,
# tc, /dev/net/tun) and g++ (builds netwire into a temporary directory unless NETWIRE names a binary).
#   MGBENCH=build/mgbench [TINY_STEPS=40] [TINY_REPEATS=5] dev/predict/validate_netns.sh OUTDIR \
#     [full|fast|quick|tiny|repredict|tcpinfo] [RATE...]
# full: 100, 300, 1000 Mbit/s x 0, 2 ms x 8 cases (~30 min on the idle 2-core VM); RATEs (Mbit/s, of 100 300
# 1000) run only those links, replacing their cases in OUTDIR/cases.tsv and keeping the others, so a full run
# can be taken in pieces (DELAYS="0 2", the default, narrows the links the same way). fast: 300 Mbit/s x 0, 2 ms x 4 cases. quick: one link (100 Mbit/s, 2 ms) and one case
# (what tests/cli/predict_netns.sh runs). tiny: the three `tiny` cases on the 100 and 1000 Mbit/s, 0 ms links
# (~10 min). repredict: only the predictions again, from OUTDIR's raw profiles, comm curves and measurements
# (no namespaces, no root). tcpinfo: the 1000 Mbit/s, 2 ms link, an fp32 comm curve and three ResNet-18 cases,
# with rank 0's TCP state (`ss -tin`: cwnd, RTT, and the time the sender was limited by the receive window or the
# send buffer) sampled every 0.2 s beside each run into raw/<run>.ss.txt, summarized by tcpinfo.py.
# The comm curves are measured back to back and, with --gap, one collective at a time after 10 ms of busy work
# on the issuing thread, as a training step issues its all-reduce after compute (docs/predict.md): 10 ms is
# shorter than either model's forward + backward here (13 and 65 ms), one value for every link and case.
set -u
: "${MGBENCH:?MGBENCH must point at the mgbench binary}"
out=${1:?usage: validate_netns.sh OUTDIR [full|fast|quick|tiny|repredict|tcpinfo] [RATE...]}
mode=${2:-full}
for knob in TINY_STEPS TINY_REPEATS; do
  [[ ${!knob:-1} =~ ^[1-9][0-9]*$ ]] || { echo "validate_netns.sh: $knob must be a positive integer" >&2; exit 2; }
done
case $mode in full | fast | quick | tiny | repredict | tcpinfo) ;; *) echo "validate_netns.sh: unknown mode '$mode'" >&2; exit 2 ;; esac
shift $(($# < 2 ? $# : 2))
rates=("$@")
read -r -a delays <<<"${DELAYS:-0 2}"  # full's one-way delays (ms), e.g. DELAYS=2 for one piece of a full run
for d in "${delays[@]}"; do
  case $d in 0 | 2) ;; *) echo "validate_netns.sh: DELAYS entry '$d' is not 0 or 2" >&2; exit 2 ;; esac
done
for r in "${rates[@]}"; do
  case $r in 100 | 300 | 1000) ;; *) echo "validate_netns.sh: rate '$r' is not one of 100 300 1000" >&2; exit 2 ;; esac
done
[ ${#rates[@]} -eq 0 ] || [ "$mode" = full ] || { echo "validate_netns.sh: RATEs apply to full" >&2; exit 2; }
here=$(cd "$(dirname "$0")/../.." && pwd)
cases="$out/cases.tsv"

mtu=9000 tbf_burst=256kb  # the link's MTU and tbf bucket: wire_up sets them, the numbers-only prediction reads them
rep() {  # rep NAME K: the file stem of repetition K of a case (the first keeps the case's name)
  if [ "$2" -eq 1 ]; then echo "$1"; else echo "$1.r$2"; fi
}

predict_case() {  # predict_case STEM LINKTAG RATE DELAY_MS DTYPE: both predictions of one measured repetition
  local name=$1 tag=$2 rate=$3 delay=$4 dtype=$5
  "$MGBENCH" predict --profile "$out/raw/$name.profile.json" --gpus 2 --link "$out/raw/${tag}_comm_${dtype}.json" \
    --measured "$out/raw/$name.measured.json" --json "$out/raw/$name.pred_comm.json" >"$out/raw/$name.pred_comm.txt" \
    || { echo "FAIL: predict $name"; exit 1; }
  "$MGBENCH" predict --profile "$out/raw/$name.profile.json" --gpus 2 \
    --link "bw=$rate,lat=${delay}ms,transport=gloo-tcp,mtu=$mtu,burst=$tbf_burst" \
    --measured "$out/raw/$name.measured.json" --json "$out/raw/$name.pred_spec.json" >"$out/raw/$name.pred_spec.txt" \
    || { echo "FAIL: predict spec $name"; exit 1; }
}

if [ "$mode" = repredict ]; then
  while IFS=$'\t' read -r name rate model bucket overlap dtype load when delay repeats; do
    for k in $(seq "${repeats:-1}"); do
      predict_case "$(rep "$name" "$k")" "${name%%_*}" "$rate" "${delay:-0}" "$dtype"
    done
  done <"$cases"
  python3 "$here/scripts/measure/predict-summarize.py" "$out"
  exit $?
fi

NETNS_LINK=none source "$here/tests/cli/netns.bash"
mkdir -p "$out/raw"
if [ ${#rates[@]} -eq 0 ]; then
  : >"$cases"
else  # a piece of a full run: drop these links' earlier cases, keep the others
  touch "$cases"
  for r in "${rates[@]}"; do
    for d in "${delays[@]}"; do grep -v "^r${r}d${d}_" "$cases" >"$cases.tmp"; mv "$cases.tmp" "$cases"; done
  done
fi
port=29900
wire_pid=
stop_wire() {  # the TAP devices go with the process; its counters go to raw/<link>_wire.txt
  [ -n "$wire_pid" ] || return 0
  kill -TERM "$wire_pid" 2>/dev/null
  wait "$wire_pid" 2>/dev/null
  wire_pid=
}
trap 'stop_wire; cleanup' EXIT

netwire=${NETWIRE:-}
if [ -z "$netwire" ]; then
  [ -e /dev/net/tun ] || skip "no /dev/net/tun"
  command -v "${CXX:-g++}" >/dev/null || skip "no C++ compiler to build netwire"
  netwire="$tmp/netwire"  # removed with the namespaces on exit
  "${CXX:-g++}" -O2 -std=c++17 -Wall -Wextra -o "$netwire" "$here/dev/predict/netwire.cpp" \
    || fail "building netwire"
fi

# link TAG RATE DELAY_MS: a fresh delay line, addresses, tbf on both TAPs, then the link check.
wire_up() {
  local tag=$1 rate=$2 delay=$3
  stop_wire
  # The delay line runs at real-time priority where it can (a frame released late is delay the link did not
  # have; the program sleeps between frames, so this costs the ranks almost nothing: see raw/*_wire.txt).
  local rt=(chrt -f 1)
  chrt -f 1 true 2>/dev/null || rt=()
  "${rt[@]}" "$netwire" --ns "$ns0" --dev "$v0" --ns "$ns1" --dev "$v1" --delay-ms "$delay" --mtu "$mtu" \
    >"$tmp/wire.out" 2>"$out/raw/${tag}_wire.txt" &
  wire_pid=$!
  for _ in $(seq 100); do grep -q ready "$tmp/wire.out" 2>/dev/null && break; sleep 0.05; done
  grep -q ready "$tmp/wire.out" || { cat "$out/raw/${tag}_wire.txt"; fail "netwire did not start"; }
  ip -n "$ns0" link set "$v0" mtu "$mtu" up && ip -n "$ns1" link set "$v1" mtu "$mtu" up || fail "tap up"
  ip -n "$ns0" addr add 10.231.0.1/24 dev "$v0" && ip -n "$ns1" addr add 10.231.0.2/24 dev "$v1" || fail "addresses"
  ip netns exec "$ns0" tc qdisc replace dev "$v0" root tbf rate "$rate" burst "$tbf_burst" latency 400ms || fail "tc on $v0"
  ip netns exec "$ns1" tc qdisc replace dev "$v1" root tbf rate "$rate" burst "$tbf_burst" latency 400ms || fail "tc on $v1"
  port=$((port + 1))
  local mb=$((${rate%mbit} * 3 / 16))  # about 1.5 s of data at the shaped rate
  ip netns exec "$ns1" timeout 120 python3 "$here/dev/predict/linkcheck.py" serve 10.231.0.2 $port &
  local srv=$!
  ip netns exec "$ns0" timeout 120 python3 "$here/dev/predict/linkcheck.py" probe 10.231.0.2 $port "$mb" \
    >"$out/raw/${tag}_linkcheck.txt" || fail "link check $tag"
  wait "$srv"
  echo "$tag: tbf $rate, netwire ${delay} ms one way: $(cat "$out/raw/${tag}_linkcheck.txt")"
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
  local sampler=
  if [ "$mode" = tcpinfo ]; then  # rank 0's sockets to the other namespace, as long as both ranks run
    while :; do
      echo "# $(date +%s.%N)"
      ip netns exec "$ns0" ss -tinH state established dst 10.231.0.2
      sleep 0.2
    done >"${json%.json}.ss.txt" 2>&1 &
    sampler=$!
  fi
  wait "${pids[0]}" || { cat "$tmp/0.out" "$tmp/1.out"; fail "rank 0 failed: $*"; }
  wait "${pids[1]}" || { cat "$tmp/0.out" "$tmp/1.out"; fail "rank 1 failed: $*"; }
  [ -z "$sampler" ] || { kill "$sampler"; wait "$sampler" 2>/dev/null; }
  pids=()
}

common=(--device cpu --threads 1 --no-progress --comm-timeout 300 --warmup 2)
# tiny's step is 9-13 ms of compute and a few-KB all-reduce, so its profile and its measured run each time
# TINY_STEPS steps (default 40, under 1 s; netns-2026-11-26b ran 200, 2-5 s, to see whether a longer window
# narrows the spread: its median error grew, results/predict/HISTORY.md). ResNet-18's 8 steps last 0.5-30 s. A
# full run taken in pieces must keep one TINY_STEPS.
model_args() {
  case $1 in
    resnet18) echo "--model resnet18 --image-size 32 --num-classes 10 --batch-size 16 --steps 8" ;;
    tiny) echo "--model tiny --num-classes 10 --batch-size 128 --steps ${TINY_STEPS:-40}" ;;
  esac
}

run_case() {  # run_case LINKTAG RATE DELAY MODEL BUCKET OVERLAP DTYPE
  local tag=$1 rate=$2 delay=$3 model=$4 bucket=$5 overlap=$6 dtype=$7
  local name="${tag}_${model}_b${bucket}_${overlap}_${dtype}"
  local args=("${common[@]}" $(model_args "$model") --bucket-mb "$bucket" --allreduce-dtype "$dtype")
  [ "$overlap" = nooverlap ] && args+=(--no-overlap)
  local repeats=1 k stem
  [ "$model" = tiny ] && repeats=${TINY_REPEATS:-5}
  # Alternating, per repetition: the profile right before the measured pair, under the same machine load. The
  # two "hosts" share this VM's two cores, so the profile is taken the same way: two independent 1-device runs
  # at once, one per namespace (each host busy with its own replica), rank 0's kept.
  for k in $(seq "$repeats"); do
    stem=$(rep "$name" "$k")
    ip netns exec "$ns1" "$MGBENCH" "${args[@]}" >/dev/null 2>&1 &
    local other=$!
    ip netns exec "$ns0" "$MGBENCH" "${args[@]}" --json "$out/raw/$stem.profile.json" \
      >/dev/null 2>&1 || fail "profile $stem"
    wait "$other" || fail "second profile $stem"
    pair "$out/raw/$stem.measured.json" "${args[@]}"
    predict_case "$stem" "$tag" "$rate" "$delay" "$dtype"
  done
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$rate" "$model" "$bucket" "$overlap" "$dtype" \
    "$(cut -d' ' -f1 /proc/loadavg)" "$(date -u +%T)" "$delay" "$repeats" >>"$cases"
  echo "$name done (load $(cut -d' ' -f1 /proc/loadavg))"
}

link() {  # link TAG RATE DELAY_MS CASES...: the link, its comm curves, the cases ("model:bucket:overlap:dtype")
  local tag=$1 rate=$2 delay=$3; shift 3
  wire_up "$tag" "$rate" "$delay"
  # 2 KiB .. 32 MiB: every bucket of the cases lies between two measured sizes (tiny's 3-6 KB, 1 MiB, the 25 MiB
  # plan's 18.5 and 26.2 MB), none beyond the curve.
  local dtypes=(fp32 bf16) smallest=2K largest=32M
  [ "$mode" = quick ] && dtypes=(fp32) smallest=4K largest=4M  # quick uses 1 MiB fp32 buckets only
  [ "$mode" = tcpinfo ] && dtypes=(fp32) smallest=256K  # ResNet-18's 1 and 25 MiB plans, fp32
  for dt in "${dtypes[@]}"; do
    pair "$out/raw/${tag}_comm_${dt}.json" comm --device cpu --op allreduce -b "$smallest" -e "$largest" -f 4 \
      --warmup 2 --iters 8 --min-time 1 --gap 0.01 --dtype "$dt" --comm-timeout 300
  done
  for c in "$@"; do
    IFS=: read -r m b o d <<<"$c"
    run_case "$tag" "$rate" "$delay" "$m" "$b" "$o" "$d"
  done
  stop_wire
}

echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
full=(resnet18:1:overlap:fp32 resnet18:25:overlap:fp32 resnet18:1:nooverlap:fp32 resnet18:25:nooverlap:fp32
      resnet18:25:overlap:bf16 tiny:25:overlap:fp32 tiny:25:nooverlap:fp32 tiny:25:overlap:bf16)
case $mode in
  quick) link q100d2 100mbit 2 resnet18:1:overlap:fp32 ;;
  tcpinfo)
    link t1000d2 1000mbit 2 resnet18:1:nooverlap:fp32 resnet18:25:nooverlap:fp32 resnet18:1:overlap:fp32
    python3 "$here/dev/predict/tcpinfo.py" "$out"/raw/*.ss.txt >"$out/tcpinfo.txt"
    ;;
  tiny)
    for r in 100 1000; do
      link "r${r}d0" "${r}mbit" 0 tiny:25:overlap:fp32 tiny:25:nooverlap:fp32 tiny:25:overlap:bf16
    done
    ;;
  fast)
    for d in 0 2; do
      link "r300d$d" 300mbit "$d" resnet18:1:overlap:fp32 resnet18:25:nooverlap:fp32 resnet18:25:overlap:bf16 \
        tiny:25:nooverlap:fp32
    done
    ;;
  full)
    [ ${#rates[@]} -gt 0 ] || rates=(100 300 1000)
    for r in "${rates[@]}"; do
      for d in "${delays[@]}"; do link "r${r}d$d" "${r}mbit" "$d" "${full[@]}"; done
    done
    ;;
esac
python3 "$here/scripts/measure/predict-summarize.py" "$out"
